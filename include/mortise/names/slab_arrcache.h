/* mortise/names/slab_arrcache.h — written by tools/layer_names.py from layers/slab_arrcache.h; do not edit.
 * layers/slab_arrcache.h writes its functions and state under the default instance
 * name slab_arrcache; an instance with another MT_NAME includes this file
 * before them, so that each name becomes the instance's own (MT_SELF),
 * and again after them, to forget the mapping. (No include guard.) */
#ifndef MT_NAMES_slab_arrcache
#define MT_NAMES_slab_arrcache
#define slab_arrcache_accepts MT_SELF(accepts)
#define slab_arrcache_aligned_class MT_SELF(aligned_class)
#define slab_arrcache_alloc MT_SELF(alloc)
#define slab_arrcache_alloc_slow MT_SELF(alloc_slow)
#define slab_arrcache_backs MT_SELF(backs)
#define slab_arrcache_backs_of MT_SELF(backs_of)
#define slab_arrcache_bins MT_SELF(bins)
#define slab_arrcache_cached_in MT_SELF(cached_in)
#define slab_arrcache_cap MT_SELF(cap)
#define slab_arrcache_caps MT_SELF(caps)
#define slab_arrcache_check_group MT_SELF(check_group)
#define slab_arrcache_check_magazine MT_SELF(check_magazine)
#define slab_arrcache_class_index MT_SELF(class_index)
#define slab_arrcache_class_of MT_SELF(class_of)
#define slab_arrcache_class_size MT_SELF(class_size)
#define slab_arrcache_covers MT_SELF(covers)
#define slab_arrcache_create MT_SELF(create)
#define slab_arrcache_end MT_SELF(end)
#define slab_arrcache_file MT_SELF(file)
#define slab_arrcache_first MT_SELF(first)
#define slab_arrcache_flush_all MT_SELF(flush_all)
#define slab_arrcache_free MT_SELF(free)
#define slab_arrcache_free_slow MT_SELF(free_slow)
#define slab_arrcache_group MT_SELF(group)
#define slab_arrcache_group_cap MT_SELF(group_cap)
#define slab_arrcache_group_for MT_SELF(group_for)
#define slab_arrcache_invariants MT_SELF(invariants)
#define slab_arrcache_magazine MT_SELF(magazine)
#define slab_arrcache_promote MT_SELF(promote)
#define slab_arrcache_purge MT_SELF(purge)
#define slab_arrcache_ready MT_SELF(ready)
#define slab_arrcache_share MT_SELF(share)
#define slab_arrcache_slab_of MT_SELF(slab_of)
#define slab_arrcache_start MT_SELF(start)
#define slab_arrcache_stop MT_SELF(stop)
#define slab_arrcache_szcls_key MT_SELF(szcls_key)
#define slab_arrcache_takes MT_SELF(takes)
#define slab_arrcache_thread_exit MT_SELF(thread_exit)
#define slab_arrcache_tl MT_SELF(tl)
#define slab_arrcache_top MT_SELF(top)
#define slab_arrcache_touch MT_SELF(touch)
#else
#undef MT_NAMES_slab_arrcache
#undef slab_arrcache_accepts
#undef slab_arrcache_aligned_class
#undef slab_arrcache_alloc
#undef slab_arrcache_alloc_slow
#undef slab_arrcache_backs
#undef slab_arrcache_backs_of
#undef slab_arrcache_bins
#undef slab_arrcache_cached_in
#undef slab_arrcache_cap
#undef slab_arrcache_caps
#undef slab_arrcache_check_group
#undef slab_arrcache_check_magazine
#undef slab_arrcache_class_index
#undef slab_arrcache_class_of
#undef slab_arrcache_class_size
#undef slab_arrcache_covers
#undef slab_arrcache_create
#undef slab_arrcache_end
#undef slab_arrcache_file
#undef slab_arrcache_first
#undef slab_arrcache_flush_all
#undef slab_arrcache_free
#undef slab_arrcache_free_slow
#undef slab_arrcache_group
#undef slab_arrcache_group_cap
#undef slab_arrcache_group_for
#undef slab_arrcache_invariants
#undef slab_arrcache_magazine
#undef slab_arrcache_promote
#undef slab_arrcache_purge
#undef slab_arrcache_ready
#undef slab_arrcache_share
#undef slab_arrcache_slab_of
#undef slab_arrcache_start
#undef slab_arrcache_stop
#undef slab_arrcache_szcls_key
#undef slab_arrcache_takes
#undef slab_arrcache_thread_exit
#undef slab_arrcache_tl
#undef slab_arrcache_top
#undef slab_arrcache_touch
#endif

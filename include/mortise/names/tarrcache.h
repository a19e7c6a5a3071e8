/* mortise/names/tarrcache.h — written by tools/layer_names.py from layers/tarrcache.h; do not edit.
 * layers/tarrcache.h writes its functions and state under the default instance
 * name tarrcache; an instance with another MT_NAME includes this file
 * before them, so that each name becomes the instance's own (MT_SELF),
 * and again after them, to forget the mapping. (No include guard.) */
#ifndef MT_NAMES_tarrcache
#define MT_NAMES_tarrcache
#define tarrcache_accepts MT_SELF(accepts)
#define tarrcache_aligned_class MT_SELF(aligned_class)
#define tarrcache_alloc MT_SELF(alloc)
#define tarrcache_alloc_slow MT_SELF(alloc_slow)
#define tarrcache_bins MT_SELF(bins)
#define tarrcache_cached_in MT_SELF(cached_in)
#define tarrcache_cap MT_SELF(cap)
#define tarrcache_caps MT_SELF(caps)
#define tarrcache_check_magazine MT_SELF(check_magazine)
#define tarrcache_class_index MT_SELF(class_index)
#define tarrcache_class_of MT_SELF(class_of)
#define tarrcache_class_size MT_SELF(class_size)
#define tarrcache_covers MT_SELF(covers)
#define tarrcache_create MT_SELF(create)
#define tarrcache_end MT_SELF(end)
#define tarrcache_first MT_SELF(first)
#define tarrcache_flush_all MT_SELF(flush_all)
#define tarrcache_free MT_SELF(free)
#define tarrcache_free_slow MT_SELF(free_slow)
#define tarrcache_invariants MT_SELF(invariants)
#define tarrcache_magazine MT_SELF(magazine)
#define tarrcache_purge MT_SELF(purge)
#define tarrcache_ready MT_SELF(ready)
#define tarrcache_share MT_SELF(share)
#define tarrcache_start MT_SELF(start)
#define tarrcache_stop MT_SELF(stop)
#define tarrcache_szcls_key MT_SELF(szcls_key)
#define tarrcache_takes MT_SELF(takes)
#define tarrcache_thread_exit MT_SELF(thread_exit)
#define tarrcache_tl MT_SELF(tl)
#define tarrcache_top MT_SELF(top)
#else
#undef MT_NAMES_tarrcache
#undef tarrcache_accepts
#undef tarrcache_aligned_class
#undef tarrcache_alloc
#undef tarrcache_alloc_slow
#undef tarrcache_bins
#undef tarrcache_cached_in
#undef tarrcache_cap
#undef tarrcache_caps
#undef tarrcache_check_magazine
#undef tarrcache_class_index
#undef tarrcache_class_of
#undef tarrcache_class_size
#undef tarrcache_covers
#undef tarrcache_create
#undef tarrcache_end
#undef tarrcache_first
#undef tarrcache_flush_all
#undef tarrcache_free
#undef tarrcache_free_slow
#undef tarrcache_invariants
#undef tarrcache_magazine
#undef tarrcache_purge
#undef tarrcache_ready
#undef tarrcache_share
#undef tarrcache_start
#undef tarrcache_stop
#undef tarrcache_szcls_key
#undef tarrcache_takes
#undef tarrcache_thread_exit
#undef tarrcache_tl
#undef tarrcache_top
#endif

/* mortise/names/carrcache_lk.h — written by tools/layer_names.py from layers/carrcache_lk.h; do not edit.
 * layers/carrcache_lk.h writes its functions and state under the default instance
 * name carrcache_lk; an instance with another MT_NAME includes this file
 * before them, so that each name becomes the instance's own (MT_SELF),
 * and again after them, to forget the mapping. (No include guard.) */
#ifndef MT_NAMES_carrcache_lk
#define MT_NAMES_carrcache_lk
#define carrcache_lk_aligned_class MT_SELF(aligned_class)
#define carrcache_lk_alloc MT_SELF(alloc)
#define carrcache_lk_alloc_slow MT_SELF(alloc_slow)
#define carrcache_lk_bins MT_SELF(bins)
#define carrcache_lk_cached_in MT_SELF(cached_in)
#define carrcache_lk_cap MT_SELF(cap)
#define carrcache_lk_caps MT_SELF(caps)
#define carrcache_lk_check_magazine MT_SELF(check_magazine)
#define carrcache_lk_class_index MT_SELF(class_index)
#define carrcache_lk_class_of MT_SELF(class_of)
#define carrcache_lk_class_size MT_SELF(class_size)
#define carrcache_lk_covers MT_SELF(covers)
#define carrcache_lk_cpus MT_SELF(cpus)
#define carrcache_lk_end MT_SELF(end)
#define carrcache_lk_equip MT_SELF(equip)
#define carrcache_lk_first MT_SELF(first)
#define carrcache_lk_flush_all MT_SELF(flush_all)
#define carrcache_lk_fork_child MT_SELF(fork_child)
#define carrcache_lk_fork_parent MT_SELF(fork_parent)
#define carrcache_lk_fork_prepare MT_SELF(fork_prepare)
#define carrcache_lk_free MT_SELF(free)
#define carrcache_lk_free_slow MT_SELF(free_slow)
#define carrcache_lk_invariants MT_SELF(invariants)
#define carrcache_lk_purge MT_SELF(purge)
#define carrcache_lk_record MT_SELF(record)
#define carrcache_lk_record_for MT_SELF(record_for)
#define carrcache_lk_share MT_SELF(share)
#define carrcache_lk_szcls_key MT_SELF(szcls_key)
#define carrcache_lk_takes MT_SELF(takes)
#define carrcache_lk_top MT_SELF(top)
#else
#undef MT_NAMES_carrcache_lk
#undef carrcache_lk_aligned_class
#undef carrcache_lk_alloc
#undef carrcache_lk_alloc_slow
#undef carrcache_lk_bins
#undef carrcache_lk_cached_in
#undef carrcache_lk_cap
#undef carrcache_lk_caps
#undef carrcache_lk_check_magazine
#undef carrcache_lk_class_index
#undef carrcache_lk_class_of
#undef carrcache_lk_class_size
#undef carrcache_lk_covers
#undef carrcache_lk_cpus
#undef carrcache_lk_end
#undef carrcache_lk_equip
#undef carrcache_lk_first
#undef carrcache_lk_flush_all
#undef carrcache_lk_fork_child
#undef carrcache_lk_fork_parent
#undef carrcache_lk_fork_prepare
#undef carrcache_lk_free
#undef carrcache_lk_free_slow
#undef carrcache_lk_invariants
#undef carrcache_lk_purge
#undef carrcache_lk_record
#undef carrcache_lk_record_for
#undef carrcache_lk_share
#undef carrcache_lk_szcls_key
#undef carrcache_lk_takes
#undef carrcache_lk_top
#endif

/* mortise/names/tlsf_glk.h — written by tools/layer_names.py from layers/tlsf_glk.h; do not edit.
 * layers/tlsf_glk.h writes its functions and state under the default instance
 * name tlsf_glk; an instance with another MT_NAME includes this file
 * before them, so that each name becomes the instance's own (MT_SELF),
 * and again after them, to forget the mapping. (No include guard.) */
#ifndef MT_NAMES_tlsf_glk
#define MT_NAMES_tlsf_glk
#define tlsf_glk_add_chunk MT_SELF(add_chunk)
#define tlsf_glk_alloc MT_SELF(alloc)
#define tlsf_glk_alloc_grow MT_SELF(alloc_grow)
#define tlsf_glk_check MT_SELF(check)
#define tlsf_glk_check_region MT_SELF(check_region)
#define tlsf_glk_check_result MT_SELF(check_result)
#define tlsf_glk_chunk_at MT_SELF(chunk_at)
#define tlsf_glk_cs_alloc MT_SELF(cs_alloc)
#define tlsf_glk_cs_check MT_SELF(cs_check)
#define tlsf_glk_cs_free MT_SELF(cs_free)
#define tlsf_glk_cs_grow MT_SELF(cs_grow)
#define tlsf_glk_cs_purge MT_SELF(cs_purge)
#define tlsf_glk_cs_resize MT_SELF(cs_resize)
#define tlsf_glk_emptied MT_SELF(emptied)
#define tlsf_glk_fl_count MT_SELF(fl_count)
#define tlsf_glk_fork_child MT_SELF(fork_child)
#define tlsf_glk_fork_parent MT_SELF(fork_parent)
#define tlsf_glk_fork_prepare MT_SELF(fork_prepare)
#define tlsf_glk_free MT_SELF(free)
#define tlsf_glk_free_broken MT_SELF(free_broken)
#define tlsf_glk_free_ok MT_SELF(free_ok)
#define tlsf_glk_getmeta MT_SELF(getmeta)
#define tlsf_glk_header_at MT_SELF(header_at)
#define tlsf_glk_id MT_SELF(id)
#define tlsf_glk_insert MT_SELF(insert)
#define tlsf_glk_link_broken MT_SELF(link_broken)
#define tlsf_glk_link_region MT_SELF(link_region)
#define tlsf_glk_list_broken MT_SELF(list_broken)
#define tlsf_glk_mapped MT_SELF(mapped)
#define tlsf_glk_neighbour_ok MT_SELF(neighbour_ok)
#define tlsf_glk_place_sentinel MT_SELF(place_sentinel)
#define tlsf_glk_prev_broken MT_SELF(prev_broken)
#define tlsf_glk_prev_ok MT_SELF(prev_ok)
#define tlsf_glk_purge MT_SELF(purge)
#define tlsf_glk_reclaim MT_SELF(reclaim)
#define tlsf_glk_releasable MT_SELF(releasable)
#define tlsf_glk_release_run MT_SELF(release_run)
#define tlsf_glk_remove MT_SELF(remove)
#define tlsf_glk_resize MT_SELF(resize)
#define tlsf_glk_sl_log2 MT_SELF(sl_log2)
#define tlsf_glk_split MT_SELF(split)
#define tlsf_glk_state MT_SELF(state)
#define tlsf_glk_take MT_SELF(take)
#define tlsf_glk_take_fit MT_SELF(take_fit)
#define tlsf_glk_trim_leading MT_SELF(trim_leading)
#define tlsf_glk_unlink_region MT_SELF(unlink_region)
#define tlsf_glk_use MT_SELF(use)
#define tlsf_glk_used_ok MT_SELF(used_ok)
#define tlsf_glk_walk MT_SELF(walk)
#else
#undef MT_NAMES_tlsf_glk
#undef tlsf_glk_add_chunk
#undef tlsf_glk_alloc
#undef tlsf_glk_alloc_grow
#undef tlsf_glk_check
#undef tlsf_glk_check_region
#undef tlsf_glk_check_result
#undef tlsf_glk_chunk_at
#undef tlsf_glk_cs_alloc
#undef tlsf_glk_cs_check
#undef tlsf_glk_cs_free
#undef tlsf_glk_cs_grow
#undef tlsf_glk_cs_purge
#undef tlsf_glk_cs_resize
#undef tlsf_glk_emptied
#undef tlsf_glk_fl_count
#undef tlsf_glk_fork_child
#undef tlsf_glk_fork_parent
#undef tlsf_glk_fork_prepare
#undef tlsf_glk_free
#undef tlsf_glk_free_broken
#undef tlsf_glk_free_ok
#undef tlsf_glk_getmeta
#undef tlsf_glk_header_at
#undef tlsf_glk_id
#undef tlsf_glk_insert
#undef tlsf_glk_link_broken
#undef tlsf_glk_link_region
#undef tlsf_glk_list_broken
#undef tlsf_glk_mapped
#undef tlsf_glk_neighbour_ok
#undef tlsf_glk_place_sentinel
#undef tlsf_glk_prev_broken
#undef tlsf_glk_prev_ok
#undef tlsf_glk_purge
#undef tlsf_glk_reclaim
#undef tlsf_glk_releasable
#undef tlsf_glk_release_run
#undef tlsf_glk_remove
#undef tlsf_glk_resize
#undef tlsf_glk_sl_log2
#undef tlsf_glk_split
#undef tlsf_glk_state
#undef tlsf_glk_take
#undef tlsf_glk_take_fit
#undef tlsf_glk_trim_leading
#undef tlsf_glk_unlink_region
#undef tlsf_glk_use
#undef tlsf_glk_used_ok
#undef tlsf_glk_walk
#endif

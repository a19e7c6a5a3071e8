/* mortise/names/sheap_glk.h — written by tools/layer_names.py from os/sheap_glk.h; do not edit.
 * os/sheap_glk.h writes its functions and state under the default instance
 * name sheap_glk; an instance with another MT_NAME includes this file
 * before them, so that each name becomes the instance's own (MT_SELF),
 * and again after them, to forget the mapping. (No include guard.) */
#ifndef MT_NAMES_sheap_glk
#define MT_NAMES_sheap_glk
#define sheap_glk_alloc MT_SELF(alloc)
#define sheap_glk_alloc_chunk MT_SELF(alloc_chunk)
#define sheap_glk_alloc_kept MT_SELF(alloc_kept)
#define sheap_glk_alloc_through_keep MT_SELF(alloc_through_keep)
#define sheap_glk_check MT_SELF(check)
#define sheap_glk_extend MT_SELF(extend)
#define sheap_glk_fork_child MT_SELF(fork_child)
#define sheap_glk_fork_parent MT_SELF(fork_parent)
#define sheap_glk_fork_prepare MT_SELF(fork_prepare)
#define sheap_glk_free MT_SELF(free)
#define sheap_glk_free_chunk MT_SELF(free_chunk)
#define sheap_glk_free_kept MT_SELF(free_kept)
#define sheap_glk_free_through_keep MT_SELF(free_through_keep)
#define sheap_glk_getmeta MT_SELF(getmeta)
#define sheap_glk_grow_chunk MT_SELF(grow_chunk)
#define sheap_glk_grows MT_SELF(grows)
#define sheap_glk_id MT_SELF(id)
#define sheap_glk_is_block MT_SELF(is_block)
#define sheap_glk_keep MT_SELF(keep)
#define sheap_glk_keep_add MT_SELF(keep_add)
#define sheap_glk_keep_bound MT_SELF(keep_bound)
#define sheap_glk_keep_cap MT_SELF(keep_cap)
#define sheap_glk_keep_count MT_SELF(keep_count)
#define sheap_glk_keep_decay_ns MT_SELF(keep_decay_ns)
#define sheap_glk_keep_drop MT_SELF(keep_drop)
#define sheap_glk_keep_expire MT_SELF(keep_expire)
#define sheap_glk_keep_fits MT_SELF(keep_fits)
#define sheap_glk_keep_fork MT_SELF(keep_fork)
#define sheap_glk_keep_give_back MT_SELF(keep_give_back)
#define sheap_glk_keep_growable MT_SELF(keep_growable)
#define sheap_glk_keep_hold MT_SELF(keep_hold)
#define sheap_glk_keep_invariants MT_SELF(keep_invariants)
#define sheap_glk_keep_limit MT_SELF(keep_limit)
#define sheap_glk_keep_lock MT_SELF(keep_lock)
#define sheap_glk_keep_max MT_SELF(keep_max)
#define sheap_glk_keep_oldest MT_SELF(keep_oldest)
#define sheap_glk_keep_purge MT_SELF(keep_purge)
#define sheap_glk_keep_put MT_SELF(keep_put)
#define sheap_glk_keep_serves MT_SELF(keep_serves)
#define sheap_glk_keep_take MT_SELF(keep_take)
#define sheap_glk_keep_tick MT_SELF(keep_tick)
#define sheap_glk_keep_unlock MT_SELF(keep_unlock)
#define sheap_glk_lock MT_SELF(lock)
#define sheap_glk_map MT_SELF(map)
#define sheap_glk_obtain MT_SELF(obtain)
#define sheap_glk_pool MT_SELF(pool)
#define sheap_glk_pool_base MT_SELF(pool_base)
#define sheap_glk_pool_granules MT_SELF(pool_granules)
#define sheap_glk_purge MT_SELF(purge)
#define sheap_glk_release MT_SELF(release)
#define sheap_glk_resize MT_SELF(resize)
#define sheap_glk_resize_chunk MT_SELF(resize_chunk)
#define sheap_glk_start MT_SELF(start)
#define sheap_glk_state MT_SELF(state)
#define sheap_glk_unlock MT_SELF(unlock)
#else
#undef MT_NAMES_sheap_glk
#undef sheap_glk_alloc
#undef sheap_glk_alloc_chunk
#undef sheap_glk_alloc_kept
#undef sheap_glk_alloc_through_keep
#undef sheap_glk_check
#undef sheap_glk_extend
#undef sheap_glk_fork_child
#undef sheap_glk_fork_parent
#undef sheap_glk_fork_prepare
#undef sheap_glk_free
#undef sheap_glk_free_chunk
#undef sheap_glk_free_kept
#undef sheap_glk_free_through_keep
#undef sheap_glk_getmeta
#undef sheap_glk_grow_chunk
#undef sheap_glk_grows
#undef sheap_glk_id
#undef sheap_glk_is_block
#undef sheap_glk_keep
#undef sheap_glk_keep_add
#undef sheap_glk_keep_bound
#undef sheap_glk_keep_cap
#undef sheap_glk_keep_count
#undef sheap_glk_keep_decay_ns
#undef sheap_glk_keep_drop
#undef sheap_glk_keep_expire
#undef sheap_glk_keep_fits
#undef sheap_glk_keep_fork
#undef sheap_glk_keep_give_back
#undef sheap_glk_keep_growable
#undef sheap_glk_keep_hold
#undef sheap_glk_keep_invariants
#undef sheap_glk_keep_limit
#undef sheap_glk_keep_lock
#undef sheap_glk_keep_max
#undef sheap_glk_keep_oldest
#undef sheap_glk_keep_purge
#undef sheap_glk_keep_put
#undef sheap_glk_keep_serves
#undef sheap_glk_keep_take
#undef sheap_glk_keep_tick
#undef sheap_glk_keep_unlock
#undef sheap_glk_lock
#undef sheap_glk_map
#undef sheap_glk_obtain
#undef sheap_glk_pool
#undef sheap_glk_pool_base
#undef sheap_glk_pool_granules
#undef sheap_glk_purge
#undef sheap_glk_release
#undef sheap_glk_resize
#undef sheap_glk_resize_chunk
#undef sheap_glk_start
#undef sheap_glk_state
#undef sheap_glk_unlock
#endif

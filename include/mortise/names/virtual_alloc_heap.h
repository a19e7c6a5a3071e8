/* mortise/names/virtual_alloc_heap.h — written by tools/layer_names.py from os/virtual_alloc_heap.h; do not edit.
 * os/virtual_alloc_heap.h writes its functions and state under the default instance
 * name virtual_alloc_heap; an instance with another MT_NAME includes this file
 * before them, so that each name becomes the instance's own (MT_SELF),
 * and again after them, to forget the mapping. (No include guard.) */
#ifndef MT_NAMES_virtual_alloc_heap
#define MT_NAMES_virtual_alloc_heap
#define virtual_alloc_heap_add_reservation MT_SELF(add_reservation)
#define virtual_alloc_heap_alloc MT_SELF(alloc)
#define virtual_alloc_heap_alloc_chunk MT_SELF(alloc_chunk)
#define virtual_alloc_heap_alloc_kept MT_SELF(alloc_kept)
#define virtual_alloc_heap_alloc_through_keep MT_SELF(alloc_through_keep)
#define virtual_alloc_heap_check MT_SELF(check)
#define virtual_alloc_heap_commit MT_SELF(commit)
#define virtual_alloc_heap_drop_if_empty MT_SELF(drop_if_empty)
#define virtual_alloc_heap_extend MT_SELF(extend)
#define virtual_alloc_heap_fork_child MT_SELF(fork_child)
#define virtual_alloc_heap_fork_parent MT_SELF(fork_parent)
#define virtual_alloc_heap_fork_prepare MT_SELF(fork_prepare)
#define virtual_alloc_heap_free MT_SELF(free)
#define virtual_alloc_heap_free_chunk MT_SELF(free_chunk)
#define virtual_alloc_heap_free_kept MT_SELF(free_kept)
#define virtual_alloc_heap_free_through_keep MT_SELF(free_through_keep)
#define virtual_alloc_heap_getmeta MT_SELF(getmeta)
#define virtual_alloc_heap_give_back MT_SELF(give_back)
#define virtual_alloc_heap_grow_chunk MT_SELF(grow_chunk)
#define virtual_alloc_heap_grows MT_SELF(grows)
#define virtual_alloc_heap_holding MT_SELF(holding)
#define virtual_alloc_heap_id MT_SELF(id)
#define virtual_alloc_heap_is_block MT_SELF(is_block)
#define virtual_alloc_heap_keep MT_SELF(keep)
#define virtual_alloc_heap_keep_add MT_SELF(keep_add)
#define virtual_alloc_heap_keep_bound MT_SELF(keep_bound)
#define virtual_alloc_heap_keep_cap MT_SELF(keep_cap)
#define virtual_alloc_heap_keep_count MT_SELF(keep_count)
#define virtual_alloc_heap_keep_decay_ns MT_SELF(keep_decay_ns)
#define virtual_alloc_heap_keep_drop MT_SELF(keep_drop)
#define virtual_alloc_heap_keep_expire MT_SELF(keep_expire)
#define virtual_alloc_heap_keep_fits MT_SELF(keep_fits)
#define virtual_alloc_heap_keep_fork MT_SELF(keep_fork)
#define virtual_alloc_heap_keep_give_back MT_SELF(keep_give_back)
#define virtual_alloc_heap_keep_growable MT_SELF(keep_growable)
#define virtual_alloc_heap_keep_hold MT_SELF(keep_hold)
#define virtual_alloc_heap_keep_invariants MT_SELF(keep_invariants)
#define virtual_alloc_heap_keep_limit MT_SELF(keep_limit)
#define virtual_alloc_heap_keep_lock MT_SELF(keep_lock)
#define virtual_alloc_heap_keep_max MT_SELF(keep_max)
#define virtual_alloc_heap_keep_oldest MT_SELF(keep_oldest)
#define virtual_alloc_heap_keep_purge MT_SELF(keep_purge)
#define virtual_alloc_heap_keep_put MT_SELF(keep_put)
#define virtual_alloc_heap_keep_serves MT_SELF(keep_serves)
#define virtual_alloc_heap_keep_take MT_SELF(keep_take)
#define virtual_alloc_heap_keep_tick MT_SELF(keep_tick)
#define virtual_alloc_heap_keep_unlock MT_SELF(keep_unlock)
#define virtual_alloc_heap_lock MT_SELF(lock)
#define virtual_alloc_heap_obtain MT_SELF(obtain)
#define virtual_alloc_heap_purge MT_SELF(purge)
#define virtual_alloc_heap_release MT_SELF(release)
#define virtual_alloc_heap_reservation MT_SELF(reservation)
#define virtual_alloc_heap_resize MT_SELF(resize)
#define virtual_alloc_heap_resize_chunk MT_SELF(resize_chunk)
#define virtual_alloc_heap_state MT_SELF(state)
#define virtual_alloc_heap_unlock MT_SELF(unlock)
#else
#undef MT_NAMES_virtual_alloc_heap
#undef virtual_alloc_heap_add_reservation
#undef virtual_alloc_heap_alloc
#undef virtual_alloc_heap_alloc_chunk
#undef virtual_alloc_heap_alloc_kept
#undef virtual_alloc_heap_alloc_through_keep
#undef virtual_alloc_heap_check
#undef virtual_alloc_heap_commit
#undef virtual_alloc_heap_drop_if_empty
#undef virtual_alloc_heap_extend
#undef virtual_alloc_heap_fork_child
#undef virtual_alloc_heap_fork_parent
#undef virtual_alloc_heap_fork_prepare
#undef virtual_alloc_heap_free
#undef virtual_alloc_heap_free_chunk
#undef virtual_alloc_heap_free_kept
#undef virtual_alloc_heap_free_through_keep
#undef virtual_alloc_heap_getmeta
#undef virtual_alloc_heap_give_back
#undef virtual_alloc_heap_grow_chunk
#undef virtual_alloc_heap_grows
#undef virtual_alloc_heap_holding
#undef virtual_alloc_heap_id
#undef virtual_alloc_heap_is_block
#undef virtual_alloc_heap_keep
#undef virtual_alloc_heap_keep_add
#undef virtual_alloc_heap_keep_bound
#undef virtual_alloc_heap_keep_cap
#undef virtual_alloc_heap_keep_count
#undef virtual_alloc_heap_keep_decay_ns
#undef virtual_alloc_heap_keep_drop
#undef virtual_alloc_heap_keep_expire
#undef virtual_alloc_heap_keep_fits
#undef virtual_alloc_heap_keep_fork
#undef virtual_alloc_heap_keep_give_back
#undef virtual_alloc_heap_keep_growable
#undef virtual_alloc_heap_keep_hold
#undef virtual_alloc_heap_keep_invariants
#undef virtual_alloc_heap_keep_limit
#undef virtual_alloc_heap_keep_lock
#undef virtual_alloc_heap_keep_max
#undef virtual_alloc_heap_keep_oldest
#undef virtual_alloc_heap_keep_purge
#undef virtual_alloc_heap_keep_put
#undef virtual_alloc_heap_keep_serves
#undef virtual_alloc_heap_keep_take
#undef virtual_alloc_heap_keep_tick
#undef virtual_alloc_heap_keep_unlock
#undef virtual_alloc_heap_lock
#undef virtual_alloc_heap_obtain
#undef virtual_alloc_heap_purge
#undef virtual_alloc_heap_release
#undef virtual_alloc_heap_reservation
#undef virtual_alloc_heap_resize
#undef virtual_alloc_heap_resize_chunk
#undef virtual_alloc_heap_state
#undef virtual_alloc_heap_unlock
#endif

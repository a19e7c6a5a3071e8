/* mortise/names/brk_heap.h — written by tools/layer_names.py from os/brk_heap.h; do not edit.
 * os/brk_heap.h writes its functions and state under the default instance
 * name brk_heap; an instance with another MT_NAME includes this file
 * before them, so that each name becomes the instance's own (MT_SELF),
 * and again after them, to forget the mapping. (No include guard.) */
#ifndef MT_NAMES_brk_heap
#define MT_NAMES_brk_heap
#define brk_heap_alloc MT_SELF(alloc)
#define brk_heap_alloc_chunk MT_SELF(alloc_chunk)
#define brk_heap_alloc_kept MT_SELF(alloc_kept)
#define brk_heap_alloc_through_keep MT_SELF(alloc_through_keep)
#define brk_heap_break_is_ours MT_SELF(break_is_ours)
#define brk_heap_check MT_SELF(check)
#define brk_heap_extend MT_SELF(extend)
#define brk_heap_fork_child MT_SELF(fork_child)
#define brk_heap_fork_parent MT_SELF(fork_parent)
#define brk_heap_fork_prepare MT_SELF(fork_prepare)
#define brk_heap_free MT_SELF(free)
#define brk_heap_free_chunk MT_SELF(free_chunk)
#define brk_heap_free_kept MT_SELF(free_kept)
#define brk_heap_free_through_keep MT_SELF(free_through_keep)
#define brk_heap_getmeta MT_SELF(getmeta)
#define brk_heap_grow MT_SELF(grow)
#define brk_heap_grow_chunk MT_SELF(grow_chunk)
#define brk_heap_grows MT_SELF(grows)
#define brk_heap_id MT_SELF(id)
#define brk_heap_is_block MT_SELF(is_block)
#define brk_heap_keep MT_SELF(keep)
#define brk_heap_keep_add MT_SELF(keep_add)
#define brk_heap_keep_bound MT_SELF(keep_bound)
#define brk_heap_keep_cap MT_SELF(keep_cap)
#define brk_heap_keep_count MT_SELF(keep_count)
#define brk_heap_keep_decay_ns MT_SELF(keep_decay_ns)
#define brk_heap_keep_drop MT_SELF(keep_drop)
#define brk_heap_keep_expire MT_SELF(keep_expire)
#define brk_heap_keep_fits MT_SELF(keep_fits)
#define brk_heap_keep_fork MT_SELF(keep_fork)
#define brk_heap_keep_free MT_SELF(keep_free)
#define brk_heap_keep_give_back MT_SELF(keep_give_back)
#define brk_heap_keep_growable MT_SELF(keep_growable)
#define brk_heap_keep_hold MT_SELF(keep_hold)
#define brk_heap_keep_invariants MT_SELF(keep_invariants)
#define brk_heap_keep_limit MT_SELF(keep_limit)
#define brk_heap_keep_lock MT_SELF(keep_lock)
#define brk_heap_keep_max MT_SELF(keep_max)
#define brk_heap_keep_oldest MT_SELF(keep_oldest)
#define brk_heap_keep_purge MT_SELF(keep_purge)
#define brk_heap_keep_put MT_SELF(keep_put)
#define brk_heap_keep_serves MT_SELF(keep_serves)
#define brk_heap_keep_take MT_SELF(keep_take)
#define brk_heap_keep_tick MT_SELF(keep_tick)
#define brk_heap_keep_unlock MT_SELF(keep_unlock)
#define brk_heap_lock MT_SELF(lock)
#define brk_heap_obtain MT_SELF(obtain)
#define brk_heap_purge MT_SELF(purge)
#define brk_heap_raise_break MT_SELF(raise_break)
#define brk_heap_release MT_SELF(release)
#define brk_heap_resize MT_SELF(resize)
#define brk_heap_resize_chunk MT_SELF(resize_chunk)
#define brk_heap_sbrk MT_SELF(sbrk)
#define brk_heap_shrink MT_SELF(shrink)
#define brk_heap_state MT_SELF(state)
#define brk_heap_unlock MT_SELF(unlock)
#else
#undef MT_NAMES_brk_heap
#undef brk_heap_alloc
#undef brk_heap_alloc_chunk
#undef brk_heap_alloc_kept
#undef brk_heap_alloc_through_keep
#undef brk_heap_break_is_ours
#undef brk_heap_check
#undef brk_heap_extend
#undef brk_heap_fork_child
#undef brk_heap_fork_parent
#undef brk_heap_fork_prepare
#undef brk_heap_free
#undef brk_heap_free_chunk
#undef brk_heap_free_kept
#undef brk_heap_free_through_keep
#undef brk_heap_getmeta
#undef brk_heap_grow
#undef brk_heap_grow_chunk
#undef brk_heap_grows
#undef brk_heap_id
#undef brk_heap_is_block
#undef brk_heap_keep
#undef brk_heap_keep_add
#undef brk_heap_keep_bound
#undef brk_heap_keep_cap
#undef brk_heap_keep_count
#undef brk_heap_keep_decay_ns
#undef brk_heap_keep_drop
#undef brk_heap_keep_expire
#undef brk_heap_keep_fits
#undef brk_heap_keep_fork
#undef brk_heap_keep_free
#undef brk_heap_keep_give_back
#undef brk_heap_keep_growable
#undef brk_heap_keep_hold
#undef brk_heap_keep_invariants
#undef brk_heap_keep_limit
#undef brk_heap_keep_lock
#undef brk_heap_keep_max
#undef brk_heap_keep_oldest
#undef brk_heap_keep_purge
#undef brk_heap_keep_put
#undef brk_heap_keep_serves
#undef brk_heap_keep_take
#undef brk_heap_keep_tick
#undef brk_heap_keep_unlock
#undef brk_heap_lock
#undef brk_heap_obtain
#undef brk_heap_purge
#undef brk_heap_raise_break
#undef brk_heap_release
#undef brk_heap_resize
#undef brk_heap_resize_chunk
#undef brk_heap_sbrk
#undef brk_heap_shrink
#undef brk_heap_state
#undef brk_heap_unlock
#endif

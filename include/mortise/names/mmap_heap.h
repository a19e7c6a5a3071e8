/* mortise/names/mmap_heap.h — written by tools/layer_names.py from os/mmap_heap.h; do not edit.
 * os/mmap_heap.h writes its functions and state under the default instance
 * name mmap_heap; an instance with another MT_NAME includes this file
 * before them, so that each name becomes the instance's own (MT_SELF),
 * and again after them, to forget the mapping. (No include guard.) */
#ifndef MT_NAMES_mmap_heap
#define MT_NAMES_mmap_heap
#define mmap_heap_alloc MT_SELF(alloc)
#define mmap_heap_alloc_chunk MT_SELF(alloc_chunk)
#define mmap_heap_alloc_kept MT_SELF(alloc_kept)
#define mmap_heap_alloc_through_keep MT_SELF(alloc_through_keep)
#define mmap_heap_carve_local MT_SELF(carve_local)
#define mmap_heap_check MT_SELF(check)
#define mmap_heap_create MT_SELF(create)
#define mmap_heap_fork_child MT_SELF(fork_child)
#define mmap_heap_fork_parent MT_SELF(fork_parent)
#define mmap_heap_fork_prepare MT_SELF(fork_prepare)
#define mmap_heap_free MT_SELF(free)
#define mmap_heap_free_chunk MT_SELF(free_chunk)
#define mmap_heap_free_kept MT_SELF(free_kept)
#define mmap_heap_free_through_keep MT_SELF(free_through_keep)
#define mmap_heap_getmeta MT_SELF(getmeta)
#define mmap_heap_grow_chunk MT_SELF(grow_chunk)
#define mmap_heap_grows MT_SELF(grows)
#define mmap_heap_id MT_SELF(id)
#define mmap_heap_is_block MT_SELF(is_block)
#define mmap_heap_keep MT_SELF(keep)
#define mmap_heap_keep_add MT_SELF(keep_add)
#define mmap_heap_keep_bound MT_SELF(keep_bound)
#define mmap_heap_keep_cap MT_SELF(keep_cap)
#define mmap_heap_keep_count MT_SELF(keep_count)
#define mmap_heap_keep_decay_ns MT_SELF(keep_decay_ns)
#define mmap_heap_keep_drop MT_SELF(keep_drop)
#define mmap_heap_keep_expire MT_SELF(keep_expire)
#define mmap_heap_keep_fits MT_SELF(keep_fits)
#define mmap_heap_keep_fork MT_SELF(keep_fork)
#define mmap_heap_keep_give_back MT_SELF(keep_give_back)
#define mmap_heap_keep_growable MT_SELF(keep_growable)
#define mmap_heap_keep_hold MT_SELF(keep_hold)
#define mmap_heap_keep_invariants MT_SELF(keep_invariants)
#define mmap_heap_keep_limit MT_SELF(keep_limit)
#define mmap_heap_keep_lock MT_SELF(keep_lock)
#define mmap_heap_keep_max MT_SELF(keep_max)
#define mmap_heap_keep_oldest MT_SELF(keep_oldest)
#define mmap_heap_keep_purge MT_SELF(keep_purge)
#define mmap_heap_keep_put MT_SELF(keep_put)
#define mmap_heap_keep_serves MT_SELF(keep_serves)
#define mmap_heap_keep_take MT_SELF(keep_take)
#define mmap_heap_keep_tick MT_SELF(keep_tick)
#define mmap_heap_keep_unlock MT_SELF(keep_unlock)
#define mmap_heap_lock MT_SELF(lock)
#define mmap_heap_purge MT_SELF(purge)
#define mmap_heap_region MT_SELF(region)
#define mmap_heap_remap_grow MT_SELF(remap_grow)
#define mmap_heap_reserve MT_SELF(reserve)
#define mmap_heap_resize MT_SELF(resize)
#define mmap_heap_resize_large MT_SELF(resize_large)
#define mmap_heap_state MT_SELF(state)
#define mmap_heap_thread_exit MT_SELF(thread_exit)
#define mmap_heap_tl MT_SELF(tl)
#define mmap_heap_tl_dense MT_SELF(tl_dense)
#define mmap_heap_tl_size MT_SELF(tl_size)
#define mmap_heap_unlock MT_SELF(unlock)
#else
#undef MT_NAMES_mmap_heap
#undef mmap_heap_alloc
#undef mmap_heap_alloc_chunk
#undef mmap_heap_alloc_kept
#undef mmap_heap_alloc_through_keep
#undef mmap_heap_carve_local
#undef mmap_heap_check
#undef mmap_heap_create
#undef mmap_heap_fork_child
#undef mmap_heap_fork_parent
#undef mmap_heap_fork_prepare
#undef mmap_heap_free
#undef mmap_heap_free_chunk
#undef mmap_heap_free_kept
#undef mmap_heap_free_through_keep
#undef mmap_heap_getmeta
#undef mmap_heap_grow_chunk
#undef mmap_heap_grows
#undef mmap_heap_id
#undef mmap_heap_is_block
#undef mmap_heap_keep
#undef mmap_heap_keep_add
#undef mmap_heap_keep_bound
#undef mmap_heap_keep_cap
#undef mmap_heap_keep_count
#undef mmap_heap_keep_decay_ns
#undef mmap_heap_keep_drop
#undef mmap_heap_keep_expire
#undef mmap_heap_keep_fits
#undef mmap_heap_keep_fork
#undef mmap_heap_keep_give_back
#undef mmap_heap_keep_growable
#undef mmap_heap_keep_hold
#undef mmap_heap_keep_invariants
#undef mmap_heap_keep_limit
#undef mmap_heap_keep_lock
#undef mmap_heap_keep_max
#undef mmap_heap_keep_oldest
#undef mmap_heap_keep_purge
#undef mmap_heap_keep_put
#undef mmap_heap_keep_serves
#undef mmap_heap_keep_take
#undef mmap_heap_keep_tick
#undef mmap_heap_keep_unlock
#undef mmap_heap_lock
#undef mmap_heap_purge
#undef mmap_heap_region
#undef mmap_heap_remap_grow
#undef mmap_heap_reserve
#undef mmap_heap_resize
#undef mmap_heap_resize_large
#undef mmap_heap_state
#undef mmap_heap_thread_exit
#undef mmap_heap_tl
#undef mmap_heap_tl_dense
#undef mmap_heap_tl_size
#undef mmap_heap_unlock
#endif

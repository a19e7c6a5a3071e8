/* mortise/names/malloc_heap.h — written by tools/layer_names.py from os/malloc_heap.h; do not edit.
 * os/malloc_heap.h writes its functions and state under the default instance
 * name malloc_heap; an instance with another MT_NAME includes this file
 * before them, so that each name becomes the instance's own (MT_SELF),
 * and again after them, to forget the mapping. (No include guard.) */
#ifndef MT_NAMES_malloc_heap
#define MT_NAMES_malloc_heap
#define malloc_heap_alloc MT_SELF(alloc)
#define malloc_heap_alloc_chunk MT_SELF(alloc_chunk)
#define malloc_heap_alloc_early MT_SELF(alloc_early)
#define malloc_heap_alloc_kept MT_SELF(alloc_kept)
#define malloc_heap_alloc_next MT_SELF(alloc_next)
#define malloc_heap_alloc_through_keep MT_SELF(alloc_through_keep)
#define malloc_heap_bootstrap MT_SELF(bootstrap)
#define malloc_heap_bootstrap_base MT_SELF(bootstrap_base)
#define malloc_heap_bootstrap_take MT_SELF(bootstrap_take)
#define malloc_heap_check MT_SELF(check)
#define malloc_heap_extend MT_SELF(extend)
#define malloc_heap_find MT_SELF(find)
#define malloc_heap_fork_child MT_SELF(fork_child)
#define malloc_heap_fork_parent MT_SELF(fork_parent)
#define malloc_heap_fork_prepare MT_SELF(fork_prepare)
#define malloc_heap_free MT_SELF(free)
#define malloc_heap_free_chunk MT_SELF(free_chunk)
#define malloc_heap_free_kept MT_SELF(free_kept)
#define malloc_heap_free_through_keep MT_SELF(free_through_keep)
#define malloc_heap_from_bootstrap MT_SELF(from_bootstrap)
#define malloc_heap_getmeta MT_SELF(getmeta)
#define malloc_heap_grow_chunk MT_SELF(grow_chunk)
#define malloc_heap_grows MT_SELF(grows)
#define malloc_heap_id MT_SELF(id)
#define malloc_heap_is_block MT_SELF(is_block)
#define malloc_heap_keep MT_SELF(keep)
#define malloc_heap_keep_add MT_SELF(keep_add)
#define malloc_heap_keep_bound MT_SELF(keep_bound)
#define malloc_heap_keep_cap MT_SELF(keep_cap)
#define malloc_heap_keep_count MT_SELF(keep_count)
#define malloc_heap_keep_decay_ns MT_SELF(keep_decay_ns)
#define malloc_heap_keep_drop MT_SELF(keep_drop)
#define malloc_heap_keep_expire MT_SELF(keep_expire)
#define malloc_heap_keep_fits MT_SELF(keep_fits)
#define malloc_heap_keep_fork MT_SELF(keep_fork)
#define malloc_heap_keep_give_back MT_SELF(keep_give_back)
#define malloc_heap_keep_growable MT_SELF(keep_growable)
#define malloc_heap_keep_hold MT_SELF(keep_hold)
#define malloc_heap_keep_invariants MT_SELF(keep_invariants)
#define malloc_heap_keep_limit MT_SELF(keep_limit)
#define malloc_heap_keep_lock MT_SELF(keep_lock)
#define malloc_heap_keep_max MT_SELF(keep_max)
#define malloc_heap_keep_oldest MT_SELF(keep_oldest)
#define malloc_heap_keep_purge MT_SELF(keep_purge)
#define malloc_heap_keep_put MT_SELF(keep_put)
#define malloc_heap_keep_serves MT_SELF(keep_serves)
#define malloc_heap_keep_take MT_SELF(keep_take)
#define malloc_heap_keep_tick MT_SELF(keep_tick)
#define malloc_heap_keep_unlock MT_SELF(keep_unlock)
#define malloc_heap_libc MT_SELF(libc)
#define malloc_heap_map MT_SELF(map)
#define malloc_heap_next MT_SELF(next)
#define malloc_heap_obtain MT_SELF(obtain)
#define malloc_heap_purge MT_SELF(purge)
#define malloc_heap_ready MT_SELF(ready)
#define malloc_heap_release MT_SELF(release)
#define malloc_heap_resize MT_SELF(resize)
#define malloc_heap_resize_chunk MT_SELF(resize_chunk)
#define malloc_heap_resolve MT_SELF(resolve)
#define malloc_heap_resolve_at_start MT_SELF(resolve_at_start)
#define malloc_heap_resolving_here MT_SELF(resolving_here)
#define malloc_heap_unavailable MT_SELF(unavailable)
#define malloc_heap_unresolved MT_SELF(unresolved)
#else
#undef MT_NAMES_malloc_heap
#undef malloc_heap_alloc
#undef malloc_heap_alloc_chunk
#undef malloc_heap_alloc_early
#undef malloc_heap_alloc_kept
#undef malloc_heap_alloc_next
#undef malloc_heap_alloc_through_keep
#undef malloc_heap_bootstrap
#undef malloc_heap_bootstrap_base
#undef malloc_heap_bootstrap_take
#undef malloc_heap_check
#undef malloc_heap_extend
#undef malloc_heap_find
#undef malloc_heap_fork_child
#undef malloc_heap_fork_parent
#undef malloc_heap_fork_prepare
#undef malloc_heap_free
#undef malloc_heap_free_chunk
#undef malloc_heap_free_kept
#undef malloc_heap_free_through_keep
#undef malloc_heap_from_bootstrap
#undef malloc_heap_getmeta
#undef malloc_heap_grow_chunk
#undef malloc_heap_grows
#undef malloc_heap_id
#undef malloc_heap_is_block
#undef malloc_heap_keep
#undef malloc_heap_keep_add
#undef malloc_heap_keep_bound
#undef malloc_heap_keep_cap
#undef malloc_heap_keep_count
#undef malloc_heap_keep_decay_ns
#undef malloc_heap_keep_drop
#undef malloc_heap_keep_expire
#undef malloc_heap_keep_fits
#undef malloc_heap_keep_fork
#undef malloc_heap_keep_give_back
#undef malloc_heap_keep_growable
#undef malloc_heap_keep_hold
#undef malloc_heap_keep_invariants
#undef malloc_heap_keep_limit
#undef malloc_heap_keep_lock
#undef malloc_heap_keep_max
#undef malloc_heap_keep_oldest
#undef malloc_heap_keep_purge
#undef malloc_heap_keep_put
#undef malloc_heap_keep_serves
#undef malloc_heap_keep_take
#undef malloc_heap_keep_tick
#undef malloc_heap_keep_unlock
#undef malloc_heap_libc
#undef malloc_heap_map
#undef malloc_heap_next
#undef malloc_heap_obtain
#undef malloc_heap_purge
#undef malloc_heap_ready
#undef malloc_heap_release
#undef malloc_heap_resize
#undef malloc_heap_resize_chunk
#undef malloc_heap_resolve
#undef malloc_heap_resolve_at_start
#undef malloc_heap_resolving_here
#undef malloc_heap_unavailable
#undef malloc_heap_unresolved
#endif

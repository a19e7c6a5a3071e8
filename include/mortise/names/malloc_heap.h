/* mortise/names/malloc_heap.h — written by tools/layer_names.py from os/malloc_heap.h; do not edit.
 * os/malloc_heap.h writes its functions and state under the default instance
 * name malloc_heap; an instance with another MT_NAME includes this file
 * before them, so that each name becomes the instance's own (MT_SELF),
 * and again after them, to forget the mapping. (No include guard.) */
#ifndef MT_NAMES_malloc_heap
#define MT_NAMES_malloc_heap
#define malloc_heap_bootstrap MT_SELF(bootstrap)
#define malloc_heap_bootstrap_base MT_SELF(bootstrap_base)
#define malloc_heap_bootstrap_take MT_SELF(bootstrap_take)
#define malloc_heap_extend MT_SELF(extend)
#define malloc_heap_from_bootstrap MT_SELF(from_bootstrap)
#define malloc_heap_id MT_SELF(id)
#define malloc_heap_libc MT_SELF(libc)
#define malloc_heap_map MT_SELF(map)
#define malloc_heap_obtain MT_SELF(obtain)
#define malloc_heap_ready MT_SELF(ready)
#define malloc_heap_release MT_SELF(release)
#define malloc_heap_resolve MT_SELF(resolve)
#define malloc_heap_resolve_at_start MT_SELF(resolve_at_start)
#define malloc_heap_resolving_here MT_SELF(resolving_here)
#define malloc_heap_unavailable MT_SELF(unavailable)
#define malloc_heap_unresolved MT_SELF(unresolved)
#else
#undef MT_NAMES_malloc_heap
#undef malloc_heap_bootstrap
#undef malloc_heap_bootstrap_base
#undef malloc_heap_bootstrap_take
#undef malloc_heap_extend
#undef malloc_heap_from_bootstrap
#undef malloc_heap_id
#undef malloc_heap_libc
#undef malloc_heap_map
#undef malloc_heap_obtain
#undef malloc_heap_ready
#undef malloc_heap_release
#undef malloc_heap_resolve
#undef malloc_heap_resolve_at_start
#undef malloc_heap_resolving_here
#undef malloc_heap_unavailable
#undef malloc_heap_unresolved
#endif

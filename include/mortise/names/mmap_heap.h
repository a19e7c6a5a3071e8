/* mortise/names/mmap_heap.h — written by tools/layer_names.py from os/mmap_heap.h; do not edit.
 * os/mmap_heap.h writes its functions and state under the default instance
 * name mmap_heap; an instance with another MT_NAME includes this file
 * before them, so that each name becomes the instance's own (MT_SELF),
 * and again after them, to forget the mapping. (No include guard.) */
#ifndef MT_NAMES_mmap_heap
#define MT_NAMES_mmap_heap
#define mmap_heap_alloc_chunk MT_SELF(alloc_chunk)
#define mmap_heap_carve_local MT_SELF(carve_local)
#define mmap_heap_create MT_SELF(create)
#define mmap_heap_free_chunk MT_SELF(free_chunk)
#define mmap_heap_grow_chunk MT_SELF(grow_chunk)
#define mmap_heap_grows MT_SELF(grows)
#define mmap_heap_id MT_SELF(id)
#define mmap_heap_is_block MT_SELF(is_block)
#define mmap_heap_lock MT_SELF(lock)
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
#undef mmap_heap_alloc_chunk
#undef mmap_heap_carve_local
#undef mmap_heap_create
#undef mmap_heap_free_chunk
#undef mmap_heap_grow_chunk
#undef mmap_heap_grows
#undef mmap_heap_id
#undef mmap_heap_is_block
#undef mmap_heap_lock
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

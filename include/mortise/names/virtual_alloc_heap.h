/* mortise/names/virtual_alloc_heap.h — written by tools/layer_names.py from os/virtual_alloc_heap.h; do not edit.
 * os/virtual_alloc_heap.h writes its functions and state under the default instance
 * name virtual_alloc_heap; an instance with another MT_NAME includes this file
 * before them, so that each name becomes the instance's own (MT_SELF),
 * and again after them, to forget the mapping. (No include guard.) */
#ifndef MT_NAMES_virtual_alloc_heap
#define MT_NAMES_virtual_alloc_heap
#define virtual_alloc_heap_add_reservation MT_SELF(add_reservation)
#define virtual_alloc_heap_commit MT_SELF(commit)
#define virtual_alloc_heap_drop_if_empty MT_SELF(drop_if_empty)
#define virtual_alloc_heap_extend MT_SELF(extend)
#define virtual_alloc_heap_give_back MT_SELF(give_back)
#define virtual_alloc_heap_holding MT_SELF(holding)
#define virtual_alloc_heap_id MT_SELF(id)
#define virtual_alloc_heap_lock MT_SELF(lock)
#define virtual_alloc_heap_obtain MT_SELF(obtain)
#define virtual_alloc_heap_release MT_SELF(release)
#define virtual_alloc_heap_reservation MT_SELF(reservation)
#define virtual_alloc_heap_state MT_SELF(state)
#define virtual_alloc_heap_unlock MT_SELF(unlock)
#else
#undef MT_NAMES_virtual_alloc_heap
#undef virtual_alloc_heap_add_reservation
#undef virtual_alloc_heap_commit
#undef virtual_alloc_heap_drop_if_empty
#undef virtual_alloc_heap_extend
#undef virtual_alloc_heap_give_back
#undef virtual_alloc_heap_holding
#undef virtual_alloc_heap_id
#undef virtual_alloc_heap_lock
#undef virtual_alloc_heap_obtain
#undef virtual_alloc_heap_release
#undef virtual_alloc_heap_reservation
#undef virtual_alloc_heap_state
#undef virtual_alloc_heap_unlock
#endif

/* mortise/names/brk_heap.h — written by tools/layer_names.py from os/brk_heap.h; do not edit.
 * os/brk_heap.h writes its functions and state under the default instance
 * name brk_heap; an instance with another MT_NAME includes this file
 * before them, so that each name becomes the instance's own (MT_SELF),
 * and again after them, to forget the mapping. (No include guard.) */
#ifndef MT_NAMES_brk_heap
#define MT_NAMES_brk_heap
#define brk_heap_break_is_ours MT_SELF(break_is_ours)
#define brk_heap_extend MT_SELF(extend)
#define brk_heap_grow MT_SELF(grow)
#define brk_heap_id MT_SELF(id)
#define brk_heap_keep_free MT_SELF(keep_free)
#define brk_heap_keep_purge MT_SELF(keep_purge)
#define brk_heap_lock MT_SELF(lock)
#define brk_heap_obtain MT_SELF(obtain)
#define brk_heap_purge MT_SELF(purge)
#define brk_heap_raise_break MT_SELF(raise_break)
#define brk_heap_release MT_SELF(release)
#define brk_heap_sbrk MT_SELF(sbrk)
#define brk_heap_shrink MT_SELF(shrink)
#define brk_heap_state MT_SELF(state)
#define brk_heap_unlock MT_SELF(unlock)
#else
#undef MT_NAMES_brk_heap
#undef brk_heap_break_is_ours
#undef brk_heap_extend
#undef brk_heap_grow
#undef brk_heap_id
#undef brk_heap_keep_free
#undef brk_heap_keep_purge
#undef brk_heap_lock
#undef brk_heap_obtain
#undef brk_heap_purge
#undef brk_heap_raise_break
#undef brk_heap_release
#undef brk_heap_sbrk
#undef brk_heap_shrink
#undef brk_heap_state
#undef brk_heap_unlock
#endif

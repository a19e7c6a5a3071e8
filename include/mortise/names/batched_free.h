/* mortise/names/batched_free.h — written by tools/layer_names.py from layers/batched_free.h; do not edit.
 * layers/batched_free.h writes its functions and state under the default instance
 * name batched_free; an instance with another MT_NAME includes this file
 * before them, so that each name becomes the instance's own (MT_SELF),
 * and again after them, to forget the mapping. (No include guard.) */
#ifndef MT_NAMES_batched_free
#define MT_NAMES_batched_free
#define batched_free_create MT_SELF(create)
#define batched_free_flush_all MT_SELF(flush_all)
#define batched_free_free MT_SELF(free)
#define batched_free_free_slow MT_SELF(free_slow)
#define batched_free_invariants MT_SELF(invariants)
#define batched_free_pending MT_SELF(pending)
#define batched_free_purge MT_SELF(purge)
#define batched_free_ready MT_SELF(ready)
#define batched_free_start MT_SELF(start)
#define batched_free_stop MT_SELF(stop)
#define batched_free_thread_exit MT_SELF(thread_exit)
#define batched_free_tl MT_SELF(tl)
#else
#undef MT_NAMES_batched_free
#undef batched_free_create
#undef batched_free_flush_all
#undef batched_free_free
#undef batched_free_free_slow
#undef batched_free_invariants
#undef batched_free_pending
#undef batched_free_purge
#undef batched_free_ready
#undef batched_free_start
#undef batched_free_stop
#undef batched_free_thread_exit
#undef batched_free_tl
#endif

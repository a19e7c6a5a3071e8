/* mortise/written/slab_arrcache/cache_thread_state.inl — layers/cache/thread_state.h written out for slab_arrcache by
 * tools/layer_names.py; do not edit: edit layers/cache/thread_state.h, then run --write. */
/* mortise/layers/cache/thread_state.h — a per-thread cache's life cycle.
 *
 * A thread's cache (thread_cache, tarrcache, slab_arrcache, batched_free)
 * is `new` until the thread's first miss or free reaches the layer's slow
 * path, `on` while it caches, and `off` after its thread_exit (or when it
 * could not be set up): frees during later TLS destructors, and every
 * request of a thread whose cache is off, go straight below. The fast paths
 * never look at the state: a new or off cache has no blocks and no room,
 * so every request takes the slow path, which asks ready().
 *
 * Template part (no include guard), included by a per-thread cache layer
 * after it has defined slab_arrcache_tl, its thread-local state with an
 * `int state` member (zero: new). The layer defines (before or after):
 *   void slab_arrcache_start(void)      set the thread's cache up; state becomes
 *                                  mt_cache_on (mt_cache_off if it cannot)
 *   void slab_arrcache_stop(void)       give everything back below; state
 *                                  becomes mt_cache_off, no room is left
 *   bool slab_arrcache_flush_all(void)  give the cached blocks back below; true
 *                                  if there were any
 * and its own alloc and free. Defines:
 *   slab_arrcache_ready()   true when the thread caches; attaches the thread
 *                      (mt_thread_attach: every layer's create, and
 *                      thread_exit when it ends) on its first call
 *   the layer operations create (start), thread_exit (stop, then pass on),
 *   purge (malloc_trim: the calling thread's cache goes back first — other
 *   threads' caches are theirs — then the layers below release what is
 *   free), and getmeta, resize and the fork handlers, which pass on: the
 *   cached blocks stay owned below, and a per-thread cache has no lock
 *   (the child of a fork keeps the forking thread's cache).
 */
#ifndef MORTISE_LAYERS_CACHE_THREAD_STATE_ONCE
#define MORTISE_LAYERS_CACHE_THREAD_STATE_ONCE
enum { mt_cache_new = 0, mt_cache_on, mt_cache_off };
#endif

static void slab_arrcache_start(void);
static void slab_arrcache_stop(void);
static bool slab_arrcache_flush_all(void);

/* Returns true when the thread caches (attaching it on its first call). */
MT_SLOW bool slab_arrcache_ready(void)
{
    if (slab_arrcache_tl.state == mt_cache_new) {
        mt_thread_attach(); /* runs create, which starts the cache */
        if (slab_arrcache_tl.state == mt_cache_new)
            slab_arrcache_start(); /* a socket without threads attaches nobody */
    }
    return slab_arrcache_tl.state == mt_cache_on;
}

#define MT_IMPLEMENTS_create
MT_INLINE void *slab_arrcache_create(mt_ctx *ctx, mt_lfunc *next)
{
    if (slab_arrcache_tl.state == mt_cache_new)
        slab_arrcache_start();
    return next(ctx);
}

#define MT_IMPLEMENTS_thread_exit
MT_INLINE void *slab_arrcache_thread_exit(mt_ctx *ctx, mt_lfunc *next)
{
    slab_arrcache_stop();
    return next(ctx);
}

#define MT_IMPLEMENTS_purge
MT_INLINE void *slab_arrcache_purge(mt_ctx *ctx, mt_lfunc *next)
{
    bool any = slab_arrcache_flush_all();
    return (next(ctx) || any) ? (void *)1 : NULL;
}

/* mortise/written/slab_arrcache/cache_magazine_ops.inl — layers/cache/magazine_ops.h written out for slab_arrcache by
 * tools/layer_names.py; do not edit: edit layers/cache/magazine_ops.h, then run --write. */
/* mortise/layers/cache/magazine_ops.h — the fast paths of a per-thread
 * magazine cache (tarrcache, slab_arrcache).
 *
 * alloc: a request the cache takes pops the newest block of its class's
 *   magazine; anything else (a request it does not take, an empty magazine,
 *   a thread not caching) goes to the layer's alloc_slow, through
 *   MT_COLD_CALL. Hit: range compare, class index, pop (no lock, no atomic,
 *   no read of the block).
 * free: the owner's getmeta gives the class; a block the magazine accepts
 *   is pushed; anything else (a class it does not cover, a block it does
 *   not accept, a full magazine) goes to free_slow, tail-called.
 * stop (thread_exit, cache/thread_state.h): every cached block, then the
 *   thread's store (the one block from below holding its slot arrays) go
 *   back below; every magazine is left empty with no room.
 *
 * Template part (no include guard). The layer defines before it:
 *   mt_magazine *slab_arrcache_magazine(size_t c)   the thread's magazine of a
 *                                              cached class (TLS)
 *   bool slab_arrcache_accepts(size_t c, void *p)   p may go on that magazine
 *                                              (constant true, or a check)
 *   void *slab_arrcache_alloc_slow(mt_ctx *, mt_lfunc *)
 *   void slab_arrcache_free_slow(void *p, size_t c, mt_lfunc *)
 *   bool slab_arrcache_flush_all(void)
 * keeps its store in slab_arrcache_tl.store, and has declared
 * MT_DECLARE_BELOW(getmeta) and MT_DECLARE_BELOW(free).
 */

#define MT_IMPLEMENTS_alloc
MT_INLINE void *slab_arrcache_alloc(mt_ctx *ctx, mt_lfunc *next)
{
    size_t size = ctx->size;
    mt_magazine *m = NULL;
    uint32_t n = 0;
    if (slab_arrcache_takes(size, ctx->align)) {
        m = slab_arrcache_magazine(slab_arrcache_class_index(size));
        n = m->n;
    }
    if (MT_UNLIKELY(!n))
        return MT_COLD_CALL(ctx, copy, slab_arrcache_alloc_slow(&copy, next));
    return mt_magazine_pop(m, n);
}

#define MT_IMPLEMENTS_free
MT_INLINE void *slab_arrcache_free(mt_ctx *ctx, mt_lfunc *next)
{
    size_t c = MT_BELOW(getmeta)(ctx) ? slab_arrcache_class_of(ctx) : SIZE_MAX;
    uint32_t n;
    /* covers(c) first: the magazine of a class not covered (SIZE_MAX for a
     * block nobody owns) is no element of the table */
    if (MT_UNLIKELY(!slab_arrcache_covers(c) || !slab_arrcache_accepts(c, ctx->ptr) ||
                    (n = slab_arrcache_magazine(c)->n) >= slab_arrcache_magazine(c)->cap)) {
        slab_arrcache_free_slow(ctx->ptr, c, next);
        return NULL;
    }
    mt_magazine_push(slab_arrcache_magazine(c), n, ctx->ptr);
    return NULL;
}

MT_SLOW void slab_arrcache_stop(void)
{
    slab_arrcache_flush_all();
    if (slab_arrcache_tl.store)
        mt_cache_free_block(slab_arrcache_tl.store, MT_BELOW(free));
    slab_arrcache_tl.store = NULL;
    for (size_t c = slab_arrcache_first(); c < slab_arrcache_end(); c++)
        *slab_arrcache_magazine(c) = (mt_magazine){0};
    slab_arrcache_tl.state = mt_cache_off;
}

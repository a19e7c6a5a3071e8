/* mortise/written/tarrcache/cache_magazine_ops.inl — layers/cache/magazine_ops.h written out for tarrcache by
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
 *   mt_magazine *tarrcache_magazine(size_t c)   the thread's magazine of a
 *                                              cached class (TLS)
 *   bool tarrcache_accepts(size_t c, void *p)   p may go on that magazine
 *                                              (constant true, or a check)
 *   void *tarrcache_alloc_slow(mt_ctx *, mt_lfunc *)
 *   void tarrcache_free_slow(void *p, size_t c, mt_lfunc *)
 *   bool tarrcache_flush_all(void)
 * keeps its store in tarrcache_tl.store, and has declared
 * MT_DECLARE_BELOW(getmeta) and MT_DECLARE_BELOW(free).
 */

#define MT_IMPLEMENTS_alloc
MT_INLINE void *tarrcache_alloc(mt_ctx *ctx, mt_lfunc *next)
{
    size_t size = ctx->size;
    mt_magazine *m = NULL;
    uint32_t n = 0;
    if (tarrcache_takes(size, ctx->align)) {
        m = tarrcache_magazine(tarrcache_class_index(size));
        n = m->n;
    }
    if (MT_UNLIKELY(!n))
        return MT_COLD_CALL(ctx, copy, tarrcache_alloc_slow(&copy, next));
    return mt_magazine_pop(m, n);
}

#define MT_IMPLEMENTS_free
MT_INLINE void *tarrcache_free(mt_ctx *ctx, mt_lfunc *next)
{
    size_t c = MT_BELOW(getmeta)(ctx) ? tarrcache_class_of(ctx) : SIZE_MAX;
    uint32_t n;
    /* covers(c) first: the magazine of a class not covered (SIZE_MAX for a
     * block nobody owns) is no element of the table */
    if (MT_UNLIKELY(!tarrcache_covers(c) || !tarrcache_accepts(c, ctx->ptr) ||
                    (n = tarrcache_magazine(c)->n) >= tarrcache_magazine(c)->cap)) {
        tarrcache_free_slow(ctx->ptr, c, next);
        return NULL;
    }
    mt_magazine_push(tarrcache_magazine(c), n, ctx->ptr);
    return NULL;
}

MT_SLOW void tarrcache_stop(void)
{
    tarrcache_flush_all();
    if (tarrcache_tl.store)
        mt_cache_free_block(tarrcache_tl.store, MT_BELOW(free));
    tarrcache_tl.store = NULL;
    for (size_t c = tarrcache_first(); c < tarrcache_end(); c++)
        *tarrcache_magazine(c) = (mt_magazine){0};
    tarrcache_tl.state = mt_cache_off;
}

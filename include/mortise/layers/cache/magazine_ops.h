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
 *   mt_magazine *MT_SELF(magazine)(size_t c)   the thread's magazine of a
 *                                              cached class (TLS)
 *   bool MT_SELF(accepts)(size_t c, void *p)   p may go on that magazine
 *                                              (constant true, or a check)
 *   void *MT_SELF(alloc_slow)(mt_ctx *, mt_lfunc *)
 *   void MT_SELF(free_slow)(void *p, size_t c, mt_lfunc *)
 *   bool MT_SELF(flush_all)(void)
 * keeps its store in MT_SELF(tl).store, and has declared
 * MT_DECLARE_BELOW(getmeta) and MT_DECLARE_BELOW(free).
 */

#define MT_IMPLEMENTS_alloc
MT_INLINE void *MT_SELF(alloc)(mt_ctx *ctx, mt_lfunc *next)
{
    size_t size = ctx->size;
    mt_magazine *m = NULL;
    uint32_t n = 0;
    if (MT_SELF(takes)(size, ctx->align)) {
        m = MT_SELF(magazine)(MT_SELF(class_index)(size));
        n = m->n;
    }
    if (MT_UNLIKELY(!n))
        return MT_COLD_CALL(ctx, copy, MT_SELF(alloc_slow)(&copy, next));
    return mt_magazine_pop(m, n);
}

#define MT_IMPLEMENTS_free
MT_INLINE void *MT_SELF(free)(mt_ctx *ctx, mt_lfunc *next)
{
    size_t c = MT_BELOW(getmeta)(ctx) ? MT_SELF(class_of)(ctx) : SIZE_MAX;
    uint32_t n;
    /* covers(c) first: the magazine of a class not covered (SIZE_MAX for a
     * block nobody owns) is no element of the table */
    if (MT_UNLIKELY(!MT_SELF(covers)(c) || !MT_SELF(accepts)(c, ctx->ptr) ||
                    (n = MT_SELF(magazine)(c)->n) >= MT_SELF(magazine)(c)->cap)) {
        MT_SELF(free_slow)(ctx->ptr, c, next);
        return NULL;
    }
    mt_magazine_push(MT_SELF(magazine)(c), n, ctx->ptr);
    return NULL;
}

MT_SLOW void MT_SELF(stop)(void)
{
    MT_SELF(flush_all)();
    if (MT_SELF(tl).store)
        mt_cache_free_block(MT_SELF(tl).store, MT_BELOW(free));
    MT_SELF(tl).store = NULL;
    for (size_t c = MT_SELF(first)(); c < MT_SELF(end)(); c++)
        *MT_SELF(magazine)(c) = (mt_magazine){0};
    MT_SELF(tl).state = mt_cache_off;
}

/* mortise/layers/affinity/decide.h — affinity_pool's slow path: a group's
 * first min_objects allocations go below and are counted, its first
 * objects enter the address table; then the group is scanned, merged with
 * its affine groups, and pooled (or, with an object of max_pooled_size or
 * more, left below for good). A template fragment of layers/affinity_pool.h. */

/* A pool grew to its rescan mark: its class's groups are scanned again. */
MT_SLOW void MT_SELF(rescan)(mt_aff_pool *pool)
{
    MT_SELF(lock)();
    if (MT_SELF(pool_segments)(pool) >= pool->scan_at) {
        /* the bytes handed out since the last mark count as seen */
        MT_SELF(state).bytes_seen += (uint64_t)(pool->scan_at / 2) * MT_SEGMENT_SIZE;
        pool->scan_at *= 2;
        uint32_t root = MT_SELF(find)(pool->root);
        for (uint32_t i = 1; i <= MT_SELF(state).groups; i++)
            if (MT_SELF(find)(i) == root) {
                MT_SELF(scan)(i);
                MT_SELF(merge_affine)(i);
            }
    }
    MT_SELF(unlock)();
}

/* A direct site decided "never pooled": the fast path's table learns it
 * (again, after another return address with the same low bits took its
 * slot; the decision itself never changes). */
MT_UNUSED static void MT_SELF(mark_plain)(mt_aff_site *s)
{
    mt_store_release(&s->fast, MT_AFF_PLAIN);
    uintptr_t ra = mt_load_relaxed(&s->ra);
    mt_store_relaxed(&MT_AFF_PLAIN_AT(mt_aff_plain_slot(ra)), ra);
}

/* state lock held: a wrapper chain's group is decided, pooled or not; the
 * memo keeps it so the chain's next walks skip the lock. */
MT_UNUSED static void MT_SELF(memo_note)(uint32_t g)
{
    const mt_aff_group *x = &MT_SELF(state).group[g - 1];
    uint64_t code;
    if (x->state == MT_AFF_UNPOOLED)
        code = MT_AFF_MEMO_BELOW;
    else if (x->state == MT_AFF_POOLED && MT_SELF(state).group[MT_SELF(find)(g) - 1].pool)
        code = 2 + (uint64_t)(MT_SELF(state).group[MT_SELF(find)(g) - 1].pool - MT_SELF(state).pool);
    else
        return;
    mt_store_release(&MT_SELF(state).memo[mt_aff_memo_slot(x->hash)], (x->hash & ~MT_AFF_MEMO_CODE) | code);
}

/* An object of pool for a request of its group: what does not fit, or
 * finds the layer below out of memory, goes below. */
MT_UNUSED static void *MT_SELF(pool_serve)(mt_aff_pool *pool, mt_ctx *ctx, mt_lfunc *next)
{
    if (ctx->size > pool->size)
        return next(ctx);
    bool grown;
    void *p = MT_SELF(pool_alloc)(pool, &grown);
    if (grown && MT_SELF(pool_segments)(pool) >= pool->scan_at)
        MT_SELF(rescan)(pool);
    return p ? p : next(ctx);
}

/* state lock held: g has made its min_objects allocations. */
MT_UNUSED static void MT_SELF(decide)(uint32_t g, mt_aff_site *direct)
{
    mt_aff_group *x = &MT_SELF(state).group[g - 1];
    if (x->max_size >= MT_MAX_POOLED_SIZE) {
        x->state = MT_AFF_UNPOOLED;
        if (direct)
            MT_SELF(mark_plain)(direct);
        return;
    }
    MT_SELF(scan)(g);
    MT_SELF(merge_affine)(g);
    uint32_t root = MT_SELF(find)(g);
    mt_aff_group *r = &MT_SELF(state).group[root - 1];
    if (!r->pool) {
        uint32_t size = 0;
        for (uint32_t i = 1; i <= MT_SELF(state).groups; i++)
            if (MT_SELF(find)(i) == root && MT_SELF(mergeable)(i) &&
                MT_SELF(size_class)(&MT_SELF(state).group[i - 1]) > size)
                size = MT_SELF(size_class)(&MT_SELF(state).group[i - 1]);
        r->pool = MT_SELF(pool_new)(size, root);
    }
    if (!r->pool)
        return; /* no pool left: stays counting, served below */
    x->state = MT_AFF_POOLED;
    if (direct && x->max_size <= r->pool->size)
        MT_SELF(mark_pooled)(direct, r->pool);
}

/* The request of group g (direct: the site, if its chain is its return
 * address alone; memoize: a wrapper chain walked over classified frames,
 * whose decision the memo may keep). */
MT_UNUSED static void *MT_SELF(serve)(mt_ctx *ctx, uint32_t g, mt_aff_site *direct, bool memoize,
                                      mt_lfunc *next)
{
    size_t size = ctx->size;
    MT_SELF(lock)();
    mt_aff_group *x = &MT_SELF(state).group[g - 1];
    mt_aff_pool *pool = MT_SELF(state).group[MT_SELF(find)(g) - 1].pool;
    if (pool && x->state != MT_AFF_UNPOOLED && size < MT_MAX_POOLED_SIZE && size <= pool->size) {
        x->pooled++;
        if (x->state == MT_AFF_COUNTING) /* joined a pooled class by a merge */
            x->state = MT_AFF_POOLED;
        if (direct && x->max_size <= pool->size) /* pooled while it was learning */
            MT_SELF(mark_pooled)(direct, pool);
        if (memoize)
            MT_SELF(memo_note)(g);
        MT_SELF(unlock)();
        return MT_SELF(pool_serve)(pool, ctx, next);
    }
    bool counting = x->state == MT_AFF_COUNTING;
    if (counting) {
        x->allocs++;
        x->bytes += size;
        MT_SELF(state).bytes_seen += size;
        uint32_t s32 = size > UINT32_MAX ? UINT32_MAX : (uint32_t)size;
        x->min_size = s32 < x->min_size ? s32 : x->min_size;
        x->max_size = s32 > x->max_size ? s32 : x->max_size;
    }
    if (!counting && memoize)
        MT_SELF(memo_note)(g);
    MT_SELF(unlock)();
    void *p = next(ctx);
    if (!p || !counting)
        return p;
    MT_SELF(lock)();
    if (x->nfirst < MT_AFF_FIRST) {
        x->first[x->nfirst++] = p;
        MT_SELF(addr_insert)(p, g);
    }
    if (x->state == MT_AFF_COUNTING && x->allocs >= MT_MIN_OBJECTS)
        MT_SELF(decide)(g, direct);
    if (memoize)
        MT_SELF(memo_note)(g);
    MT_SELF(unlock)();
    return p;
}

MT_SLOW void *MT_SELF(alloc_slow)(mt_ctx *ctx, uintptr_t ra, uintptr_t my_sp, uintptr_t entry, mt_lfunc *next)
{
    if (MT_SELF(busy)) { /* inside the unwinder: never re-enter it */
        mt_faa(&MT_SELF(state).reentries, 1);
        return next(ctx);
    }
    if (ctx->align > MT_MIN_ALIGN)
        return next(ctx);
    mt_aff_site *s = MT_SELF(site_get)(ra);
    if (!s)
        return next(ctx);
    uintptr_t fast = mt_load_acquire(&s->fast);
    if (fast == MT_AFF_PLAIN) { /* its fast-path slot was taken */
        MT_SELF(mark_plain)(s);
        return next(ctx);
    }
    if (fast != MT_AFF_SLOW) /* a pool whose current segment ran out */
        return MT_SELF(pool_serve)((mt_aff_pool *)fast, ctx, next);
    MT_SELF(name_site)(s, ra);
    uint32_t kind = mt_load_acquire(&s->kind);
    if (kind == MT_AFF_LEARNING)
        kind = MT_SELF(learn_direct)(s, ra, ctx->size);
    uint32_t g;
    bool walked = false;
    if (kind == MT_AFF_WRAPPER) {
        if (ctx->size >= MT_MAX_POOLED_SIZE)
            return next(ctx);
        bool learn = true; /* a recheck re-learns: the walk must agree */
        uintptr_t chain[MT_AFF_CHAIN_CAP];
        uint32_t depth = 0;
        if (++MT_SELF(wt).tick % MT_AFF_RECHECK)
            depth = MT_SELF(walk_chain)(ra, my_sp, entry, &learn, chain);
        else { /* the shared count is updated this seldom: no line bouncing */
            mt_faa(&MT_SELF(state).memo_hits, MT_SELF(wt).hits);
            MT_SELF(wt).hits = 0;
            uint32_t gen = mt_load_relaxed(&MT_SELF(state).memo_gen);
            if (MT_SELF(wt).gen != gen) { /* a merge cleared the memo */
                MT_SELF(wc_clear)();
                MT_SELF(wt).gen = gen;
            }
        }
        if (depth) {
            uint64_t h = mt_aff_chain_hash(chain, depth);
            uint64_t e = mt_load_acquire(&MT_SELF(state).memo[mt_aff_memo_slot(h)]);
            uint64_t code = e & MT_AFF_MEMO_CODE;
            if (code && !((e ^ h) & ~MT_AFF_MEMO_CODE)) {
                MT_SELF(wt).hits++;
                return code == MT_AFF_MEMO_BELOW
                           ? next(ctx)
                           : MT_SELF(pool_serve)(&MT_SELF(state).pool[code - 2], ctx, next);
            }
            walked = true;
            MT_SELF(lock)();
            MT_SELF(state).walks++;
            g = MT_SELF(group_get)(chain, depth);
            MT_SELF(unlock)();
        } else
            g = MT_SELF(chain_group)(ra, ctx->size, my_sp, entry, learn && my_sp);
    } else {
        MT_SELF(lock)();
        if (!s->group)
            s->group = MT_SELF(group_get)(&ra, 1);
        g = s->group;
        MT_SELF(unlock)();
    }
    if (!g)
        return next(ctx);
    return MT_SELF(serve)(ctx, g, kind == MT_AFF_DIRECT ? s : NULL, walked, next);
}

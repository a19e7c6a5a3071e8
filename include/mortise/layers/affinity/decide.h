/* mortise/layers/affinity/decide.h — affinity_pool's slow path: a group's
 * first min_objects allocations go below and are counted, its first
 * objects enter the address table; then the group is scanned, merged with
 * its affine groups, and pooled (or, with an object of max_pooled_size or
 * more, left below for good). A template fragment of layers/affinity_pool.h. */

/* A direct site decided "never pooled": the fast path's table learns it
 * (again, after another return address with the same low bits took its
 * slot; the decision itself never changes). */
MT_UNUSED static void affinity_pool_mark_plain(mt_aff_site *s)
{
    mt_store_release(&s->fast, MT_AFF_PLAIN);
    uintptr_t ra = mt_load_relaxed(&s->ra);
    mt_store_relaxed(&MT_AFF_SITE_AT(mt_aff_plain_slot(ra)), ra);
}

/* state lock held: a wrapper chain's group is decided, pooled or not; the
 * memo keeps it so the chain's next walks skip the lock. */
MT_UNUSED static void affinity_pool_memo_note(uint32_t g)
{
    const mt_aff_group *x = &affinity_pool_state.group[g - 1];
    uint64_t code;
    if (x->state == MT_AFF_UNPOOLED || x->state == MT_AFF_RETIRED)
        code = MT_AFF_MEMO_BELOW;
    else if (x->state == MT_AFF_POOLED && affinity_pool_state.group[affinity_pool_find(g) - 1].pool)
        code = 2 + (uint64_t)(affinity_pool_state.group[affinity_pool_find(g) - 1].pool -
                              affinity_pool_state.pool);
    else
        return;
    mt_store_release(&affinity_pool_state.memo[mt_aff_memo_slot(x->hash)],
                     (x->hash & ~MT_AFF_MEMO_CODE) | code);
}

/* state lock held: a wrapper whose every pooled chain was retired is
 * passed below like a decided direct site (one compare), its chains no
 * longer walked; chains of it still counting are given up with them. */
MT_UNUSED static void affinity_pool_plain_wrapper(uintptr_t w)
{
    for (uint32_t i = 0; i < affinity_pool_state.groups; i++) {
        const mt_aff_group *x = &affinity_pool_state.group[i];
        if (x->chain[0] == w && x->state == MT_AFF_POOLED)
            return;
    }
    mt_aff_site *s = affinity_pool_site_get(w);
    if (s && mt_load_relaxed(&s->kind) == MT_AFF_WRAPPER)
        affinity_pool_mark_plain(s);
}

/* state lock held: root's class leaves its pool for good. Its groups go
 * below (the memo says so; each thread empties its wrapper cache at its
 * next recheck, until then a stale entry still pops from the pool), its
 * direct sites are passed below, and so are wrappers left with no pooled
 * chain. Objects in the pool stay there until freed. */
MT_UNUSED static void affinity_pool_retire(uint32_t root, mt_aff_pool *pool)
{
    pool->retired = true;
    affinity_pool_state.retired++;
    for (uint32_t i = 1; i <= affinity_pool_state.groups; i++)
        if (affinity_pool_find(i) == root && affinity_pool_state.group[i - 1].state == MT_AFF_POOLED) {
            affinity_pool_state.group[i - 1].state = MT_AFF_RETIRED;
            affinity_pool_memo_note(i);
        }
    mt_faa(&affinity_pool_state.memo_gen, 1);
    for (uint32_t i = 1; i <= affinity_pool_state.groups; i++) {
        mt_aff_site *s = affinity_pool_direct_site(i, root, pool);
        if (s)
            affinity_pool_mark_plain(s); /* its row's pooled word goes with it */
    }
    for (uint32_t i = 1; i <= affinity_pool_state.groups; i++) {
        const mt_aff_group *x = &affinity_pool_state.group[i - 1];
        if (x->depth > 1 && x->state == MT_AFF_RETIRED && affinity_pool_find(i) == root)
            affinity_pool_plain_wrapper(x->chain[0]);
    }
}

/* A wrapper chain's recheck (one in MT_AFF_RECHECK of a thread's walks
 * and cache hits): every pool that has lived MT_AFF_JUDGE rechecks and
 * never held more than MT_AFF_SMALL_POOL bytes is retired with its class.
 * Its objects' live footprint is that small: they stay in the caches in
 * any layout, and its chains' walks would cost every malloc for nothing.
 * A pool a merge left behind (its class took another's) is not judged. */
MT_UNUSED static void affinity_pool_judge(void)
{
    affinity_pool_lock();
    uint32_t now = ++affinity_pool_state.rechecks;
    for (uint32_t i = 0; i < affinity_pool_state.pools; i++) {
        mt_aff_pool *pool = &affinity_pool_state.pool[i];
        uint32_t root = affinity_pool_find(pool->root);
        if (pool->retired || now - pool->born < MT_AFF_JUDGE ||
            affinity_pool_state.group[root - 1].pool != pool)
            continue;
        mt_sync_spinlock_lock(&pool->lock);
        size_t peak = (size_t)pool->peak * MT_SEGMENT_SIZE;
        mt_sync_spinlock_unlock(&pool->lock);
        if (peak <= MT_AFF_SMALL_POOL)
            affinity_pool_retire(root, pool);
    }
    affinity_pool_unlock();
}

/* An object of pool for a request of its group: what does not fit, or
 * finds the layer below out of memory, goes below. */
MT_UNUSED static void *affinity_pool_pool_serve(mt_aff_pool *pool, mt_ctx *ctx, mt_lfunc *next)
{
    if (ctx->size > pool->size)
        return next(ctx);
    void *p = affinity_pool_pool_alloc(pool);
    return p ? p : next(ctx);
}

/* A pool's slot is its class's largest size. A group whose sizes vary
 * would leave most of each slot unused: a larger footprint than the size
 * classes below give it, which the locality of a pool does not make up
 * for (Xalan's string buffers, 4 to 74 bytes from one site, took 80-byte
 * slots and 5.6 % more L1 misses than below). */
MT_INLINE bool affinity_pool_slots_waste(const mt_aff_group *x)
{
    uint64_t slots = (uint64_t)affinity_pool_size_class(x) * x->allocs;
    return slots * MT_AFF_SLOT_SLACK > x->rounded * (MT_AFF_SLOT_SLACK + 1);
}

/* state lock held: g has made its min_objects allocations. */
MT_UNUSED static void affinity_pool_decide(uint32_t g, mt_aff_site *direct)
{
    mt_aff_group *x = &affinity_pool_state.group[g - 1];
    if (x->max_size >= MT_MAX_POOLED_SIZE || affinity_pool_slots_waste(x)) {
        x->state = MT_AFF_UNPOOLED;
        if (direct)
            affinity_pool_mark_plain(direct);
        return;
    }
    affinity_pool_scan(g);
    affinity_pool_merge_affine(g);
    uint32_t root = affinity_pool_find(g);
    mt_aff_group *r = &affinity_pool_state.group[root - 1];
    if (!r->pool) {
        uint32_t size = 0;
        for (uint32_t i = 1; i <= affinity_pool_state.groups; i++)
            if (affinity_pool_find(i) == root && affinity_pool_mergeable(i) &&
                affinity_pool_size_class(&affinity_pool_state.group[i - 1]) > size)
                size = affinity_pool_size_class(&affinity_pool_state.group[i - 1]);
        r->pool = affinity_pool_pool_new(size, root);
    }
    if (!r->pool)
        return;             /* no pool left: stays counting, served below */
    if (r->pool->retired) { /* joined a class that gained nothing */
        x->state = MT_AFF_RETIRED;
        if (direct)
            affinity_pool_mark_plain(direct);
        return;
    }
    x->state = MT_AFF_POOLED;
    if (direct && x->max_size <= r->pool->size)
        affinity_pool_mark_pooled(direct, r->pool);
}

/* The request of group g (direct: the site, if its chain is its return
 * address alone; memoize: a wrapper chain walked over classified frames,
 * whose decision the memo may keep). */
MT_UNUSED static void *affinity_pool_serve(mt_ctx *ctx, uint32_t g, mt_aff_site *direct, bool memoize,
                                           mt_lfunc *next)
{
    size_t size = ctx->size;
    affinity_pool_lock();
    mt_aff_group *x = &affinity_pool_state.group[g - 1];
    mt_aff_pool *pool = affinity_pool_state.group[affinity_pool_find(g) - 1].pool;
    if (pool && !pool->retired && (x->state == MT_AFF_COUNTING || x->state == MT_AFF_POOLED) &&
        size < MT_MAX_POOLED_SIZE && size <= pool->size) {
        x->pooled++;
        if (x->state == MT_AFF_COUNTING) /* joined a pooled class by a merge */
            x->state = MT_AFF_POOLED;
        if (direct && x->max_size <= pool->size) /* pooled while it was learning */
            affinity_pool_mark_pooled(direct, pool);
        if (memoize)
            affinity_pool_memo_note(g);
        affinity_pool_unlock();
        return affinity_pool_pool_serve(pool, ctx, next);
    }
    bool counting = x->state == MT_AFF_COUNTING;
    if (counting) {
        x->allocs++;
        x->bytes += size;
        x->rounded += mt_align_up(size, MT_MIN_ALIGN);
        affinity_pool_state.bytes_seen += size;
        uint32_t s32 = size > UINT32_MAX ? UINT32_MAX : (uint32_t)size;
        x->min_size = s32 < x->min_size ? s32 : x->min_size;
        x->max_size = s32 > x->max_size ? s32 : x->max_size;
    }
    if (!counting && memoize)
        affinity_pool_memo_note(g);
    affinity_pool_unlock();
    void *p = next(ctx);
    if (!p || !counting)
        return p;
    affinity_pool_lock();
    if (x->nfirst < MT_AFF_FIRST) {
        x->first[x->nfirst++] = p;
        affinity_pool_addr_insert(p, g);
    }
    if (x->state == MT_AFF_COUNTING && x->allocs >= MT_MIN_OBJECTS)
        affinity_pool_decide(g, direct);
    if (memoize)
        affinity_pool_memo_note(g);
    affinity_pool_unlock();
    return p;
}

/* A wrapper chain's walk stopped at a site still learning, which only an
 * unwind teaches (its callers, and whether the chain goes on): wait until
 * the site has been reached MT_AFF_YOUNG_WAIT times, then unwind 1 time in
 * MT_AFF_YOUNG_SAMPLE. A chain through it could be pooled only after
 * min_objects allocations anyway, and most such sites (start-up, error
 * paths) never get there: they cost no unwind. The walks while it waits
 * note their sizes, which need no unwind: a site that asked for one size
 * all that time is no wrapper by use (that takes two), and is decided a
 * direct site then. The others are decided within MT_AFF_YOUNG_WAIT +
 * MT_AFF_LEARN * MT_AFF_YOUNG_SAMPLE walks. Until then the request goes
 * below, ungrouped. */
MT_UNUSED static bool affinity_pool_young_waits(mt_aff_site *young, size_t size)
{
    uint32_t reached = (uint32_t)mt_faa(&young->reached, 1) + 1;
    if (reached <= MT_AFF_YOUNG_WAIT) {
        affinity_pool_lock();
        if (mt_load_relaxed(&young->kind) == MT_AFF_LEARNING) {
            affinity_pool_note_size(young, size);
            if (reached == MT_AFF_YOUNG_WAIT && young->nsizes == 1)
                mt_store_release(&young->kind, MT_AFF_DIRECT);
        }
        affinity_pool_unlock();
        return true;
    }
    return reached % MT_AFF_YOUNG_SAMPLE;
}

MT_SLOW void *affinity_pool_alloc_slow(mt_ctx *ctx, uintptr_t ra, uintptr_t my_sp, uintptr_t entry,
                                       mt_lfunc *next)
{
    if (affinity_pool_busy) { /* inside the unwinder: never re-enter it */
        mt_faa(&affinity_pool_state.reentries, 1);
        return next(ctx);
    }
    if (ctx->align > MT_MIN_ALIGN)
        return next(ctx);
    mt_aff_site *s = affinity_pool_site_get(ra);
    if (!s)
        return next(ctx);
    uintptr_t fast = mt_load_acquire(&s->fast);
    if (fast == MT_AFF_PLAIN) { /* its fast-path slot was taken */
        affinity_pool_mark_plain(s);
        return next(ctx);
    }
    if (fast != MT_AFF_SLOW) /* a pool whose current segment ran out */
        return affinity_pool_pool_serve((mt_aff_pool *)fast, ctx, next);
    affinity_pool_name_site(s, ra);
    uint32_t kind = mt_load_acquire(&s->kind);
    if (kind == MT_AFF_LEARNING)
        kind = affinity_pool_learn_direct(s, ra, ctx->size);
    uint32_t g;
    bool walked = false;
    if (kind == MT_AFF_WRAPPER) {
        if (ctx->size >= MT_MAX_POOLED_SIZE)
            return next(ctx);
        bool learn = true; /* a recheck re-learns: the walk must agree */
        mt_aff_site *young = NULL;
        uintptr_t chain[MT_AFF_CHAIN_CAP];
        uint32_t depth = 0;
        bool recheck = !(++affinity_pool_wt.tick % MT_AFF_RECHECK);
        if (!recheck)
            depth = affinity_pool_walk_chain(ra, my_sp, entry, &learn, &young, chain);
        else { /* the shared count is updated this seldom: no line bouncing */
            mt_faa(&affinity_pool_state.memo_hits, affinity_pool_wt.hits);
            affinity_pool_wt.hits = 0;
            uint32_t gen = mt_load_relaxed(&affinity_pool_state.memo_gen);
            if (affinity_pool_wt.gen != gen) { /* a merge cleared the memo */
                affinity_pool_wc_clear();
                affinity_pool_wt.gen = gen;
            }
        }
        if (depth) {
            uint64_t h = mt_aff_chain_hash(chain, depth);
            uint64_t e = mt_load_acquire(&affinity_pool_state.memo[mt_aff_memo_slot(h)]);
            uint64_t code = e & MT_AFF_MEMO_CODE;
            if (code && !((e ^ h) & ~MT_AFF_MEMO_CODE)) {
                affinity_pool_wt.hits++;
                return code == MT_AFF_MEMO_BELOW
                           ? next(ctx)
                           : affinity_pool_pool_serve(&affinity_pool_state.pool[code - 2], ctx, next);
            }
            walked = true;
            affinity_pool_lock();
            affinity_pool_state.walks++;
            g = affinity_pool_group_get(chain, depth);
            affinity_pool_unlock();
        } else if (young && affinity_pool_young_waits(young, ctx->size))
            return next(ctx);
        else
            g = affinity_pool_chain_group(ra, ctx->size, my_sp, entry, learn && my_sp);
        if (recheck)
            affinity_pool_judge();
    } else {
        affinity_pool_lock();
        if (!s->group)
            s->group = affinity_pool_group_get(&ra, 1);
        g = s->group;
        affinity_pool_unlock();
    }
    if (!g)
        return next(ctx);
    return affinity_pool_serve(ctx, g, kind == MT_AFF_DIRECT ? s : NULL, walked, next);
}

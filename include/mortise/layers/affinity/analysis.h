/* mortise/layers/affinity/analysis.h — affinity_pool's affinity analysis:
 * the address table of each group's first objects, the bounded scan of
 * those objects for pointers into other groups' objects (the storage shape
 * graph's edges, field offset included), and the type I and type II merges
 * on that graph (a template fragment of layers/affinity_pool.h). Every
 * function here runs under the state lock.
 *
 * Object types are unknown to a library: "same type" is read as "same size
 * rounded to 16 bytes", as the seed paper does with binaries. A pointer is
 * recognised when it equals the start of a recorded first object; interior
 * pointers are not followed. A stale entry (a first object freed and its
 * memory reused) can only make a wrong merge, which costs locality, never
 * correctness: the scan reads only memory the page map says belongs to this
 * allocator, and never writes. */

MT_INLINE uint32_t MT_SELF(size_class)(const mt_aff_group *g)
{
    return g->max_size ? (uint32_t)mt_align_up(g->max_size, MT_MIN_ALIGN) : 0;
}

MT_UNUSED static uint32_t MT_SELF(find)(uint32_t g)
{
    while (MT_SELF(state).group[g - 1].parent != g) {
        mt_aff_group *x = &MT_SELF(state).group[g - 1];
        x->parent = MT_SELF(state).group[x->parent - 1].parent; /* path halving */
        g = x->parent;
    }
    return g;
}

MT_UNUSED static void MT_SELF(addr_insert)(void *p, uint32_t g)
{
    uint32_t h = mt_aff_addr_hash((uintptr_t)p);
    for (uint32_t i = 0; i < 8; i++) {
        mt_aff_addr *a = &MT_SELF(state).addr[(h + i) & ((1u << MT_AFF_ADDR_BITS) - 1)];
        uintptr_t k = mt_load_relaxed(&a->addr);
        if (!k || k == (uintptr_t)p) {
            a->group = g;
            mt_store_relaxed(&a->addr, (uintptr_t)p);
            return;
        }
    }
}

MT_UNUSED static uint32_t MT_SELF(addr_find)(uintptr_t w)
{
    uint32_t h = mt_aff_addr_hash(w);
    for (uint32_t i = 0; i < 8; i++) {
        mt_aff_addr *a = &MT_SELF(state).addr[(h + i) & ((1u << MT_AFF_ADDR_BITS) - 1)];
        uintptr_t k = mt_load_relaxed(&a->addr);
        if (!k)
            return 0;
        if (k == w)
            return a->group;
    }
    return 0;
}

/* Groups b joins a's pool class; the log keeps why. Roots with a pool stay
 * roots, so a merged class keeps allocating from the pool it had. */
MT_UNUSED static void MT_SELF(merge)(uint32_t a, uint32_t b, uint8_t type, uint32_t via, uint32_t offset)
{
    uint32_t ra = MT_SELF(find)(a), rb = MT_SELF(find)(b);
    if (ra == rb)
        return;
    mt_aff_group *A = &MT_SELF(state).group[ra - 1], *B = &MT_SELF(state).group[rb - 1];
    if (!A->pool && B->pool) {
        uint32_t t = ra;
        ra = rb;
        rb = t;
        mt_aff_group *T = A;
        A = B;
        B = T;
    }
    B->parent = ra;
    if (MT_SELF(state).merges < MT_AFF_MERGE_LOG)
        MT_SELF(state).merge[MT_SELF(state).merges] = (mt_aff_merge){type, a, b, via, offset};
    MT_SELF(state).merges++;
    if (!A->pool || !B->pool)
        return;
    /* both had pools: direct sites of b's class move to a's pool, and the
     * memo forgets every wrapper chain (b's among them), each thread's
     * wrapper cache at its next recheck (until then a stale entry costs
     * locality only: its pool still exists, its segment checks the size) */
    for (uint32_t i = 0; i < (1u << MT_AFF_MEMO_BITS); i++)
        mt_store_relaxed(&MT_SELF(state).memo[i], 0);
    mt_faa(&MT_SELF(state).memo_gen, 1);
    for (uint32_t i = 0; i < MT_AFF_SITES; i++) {
        mt_aff_site *s = &MT_SELF(state).site[i];
        uintptr_t fast = mt_load_relaxed(&s->fast);
        if (fast == (uintptr_t)B->pool && A->pool->size >= B->pool->size)
            MT_SELF(mark_pooled)(s, A->pool);
    }
}

MT_INLINE bool MT_SELF(mergeable)(uint32_t g)
{
    const mt_aff_group *x = &MT_SELF(state).group[g - 1];
    return x->allocs && x->state != MT_AFF_UNPOOLED && x->max_size < MT_MAX_POOLED_SIZE;
}

/* Scan g's first objects for pointers at other groups' first objects. */
MT_UNUSED static void MT_SELF(scan)(uint32_t g)
{
    mt_aff_group *x = &MT_SELF(state).group[g - 1];
    size_t len = x->max_size < MT_AFF_SCAN_WORDS * 8 ? x->max_size & ~(size_t)7 : MT_AFF_SCAN_WORDS * 8;
    if (MT_SELF(state).bytes_scanned + len * x->nfirst >
        MT_AFF_SCAN_FLOOR + MT_SELF(state).bytes_seen / MT_AFF_SCAN_SHARE) {
        MT_SELF(state).scans_skipped++;
        return;
    }
    MT_SELF(state).scans++;
    for (uint32_t i = 0; i < x->nfirst; i++) {
        const char *o = x->first[i];
        if (!mt_entry_owner(mt_pagemap_get(o)))
            continue; /* not this allocator's memory any more */
        MT_SELF(state).bytes_scanned += len;
        for (size_t off = 0; off < len; off += 8) {
            uintptr_t w = *(const uintptr_t *)(o + off);
            uint32_t t = w && !(w & 7) ? MT_SELF(addr_find)(w) : 0;
            if (!t || t == g)
                continue;
            bool seen = false;
            for (uint32_t e = 0; e < x->nedges; e++)
                seen |= x->edge[e].offset == off && x->edge[e].target == t;
            if (!seen && x->nedges < MT_AFF_EDGES)
                x->edge[x->nedges++] = (mt_aff_edge){(uint32_t)off, t};
        }
    }
}

/* Type I: g points at a group of its own size. Type II: two groups of one
 * size pointed at from the same offset of g's class. */
MT_UNUSED static void MT_SELF(merge_affine)(uint32_t g)
{
    mt_aff_group *x = &MT_SELF(state).group[g - 1];
    for (uint32_t e = 0; e < x->nedges; e++) {
        uint32_t t = x->edge[e].target;
        if (MT_SELF(mergeable)(t) && MT_SELF(mergeable)(g) &&
            MT_SELF(size_class)(&MT_SELF(state).group[t - 1]) == MT_SELF(size_class)(x))
            MT_SELF(merge)(g, t, 1, 0, x->edge[e].offset);
    }
    uint32_t root = MT_SELF(find)(g);
    mt_aff_edge class_edges[64];
    uint32_t n = 0;
    for (uint32_t i = 1; i <= MT_SELF(state).groups && n < 64; i++) {
        if (MT_SELF(find)(i) != root)
            continue;
        const mt_aff_group *y = &MT_SELF(state).group[i - 1];
        for (uint32_t e = 0; e < y->nedges && n < 64; e++)
            class_edges[n++] = y->edge[e];
    }
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = i + 1; j < n; j++) {
            uint32_t t1 = class_edges[i].target, t2 = class_edges[j].target;
            if (class_edges[i].offset != class_edges[j].offset || !MT_SELF(mergeable)(t1) ||
                !MT_SELF(mergeable)(t2) || MT_SELF(find)(t1) == MT_SELF(find)(t2) ||
                MT_SELF(size_class)(&MT_SELF(state).group[t1 - 1]) !=
                    MT_SELF(size_class)(&MT_SELF(state).group[t2 - 1]))
                continue;
            MT_SELF(merge)(t1, t2, 2, root, class_edges[i].offset);
        }
}

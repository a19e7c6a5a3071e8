/* mortise/layers/affinity/analysis.h — affinity_pool's affinity analysis:
 * the address table of each group's first objects, the bounded scan of
 * those objects for pointers into other groups' objects (the storage shape
 * graph's edges, field offset included), and the type I and type II merges
 * on that graph (a template fragment of layers/affinity_pool.h). Every
 * function here runs under the state lock.
 *
 * Object types are unknown to a library: "same type" is read as "same size
 * rounded to 16 bytes", as the seed paper does with binaries. A pointer is
 * recognised when it equals the start of a recorded first object or of
 * any object of a pool's segment; interior pointers are not followed. A
 * stale entry (a first object freed and its memory reused) can only make a
 * wrong merge, which costs locality, never correctness: the scan reads only
 * memory the page map says belongs to this allocator, and never writes. */

MT_INLINE uint32_t affinity_pool_size_class(const mt_aff_group *g)
{
    return g->max_size ? (uint32_t)mt_align_up(g->max_size, MT_MIN_ALIGN) : 0;
}

MT_UNUSED static uint32_t affinity_pool_find(uint32_t g)
{
    while (affinity_pool_state.group[g - 1].parent != g) {
        mt_aff_group *x = &affinity_pool_state.group[g - 1];
        x->parent = affinity_pool_state.group[x->parent - 1].parent; /* path halving */
        g = x->parent;
    }
    return g;
}

/* state lock held: the site of group g if g is a direct site's group (its
 * chain the return address alone) in root's class whose fast-path word
 * names pool, else NULL. A site's word names a pool of its group's class
 * only, and a group leaves a class only when that class's root is merged
 * under another, so the groups of a class find every site that names its
 * root's pool: a pass over the groups, not over the site table. */
MT_INLINE mt_aff_site *affinity_pool_direct_site(uint32_t g, uint32_t root, const mt_aff_pool *pool)
{
    const mt_aff_group *x = &affinity_pool_state.group[g - 1];
    if (x->depth != 1 || affinity_pool_find(g) != root)
        return NULL;
    mt_aff_site *s = (mt_aff_site *)affinity_pool_site_find(x->chain[0]);
    return s && mt_load_relaxed(&s->fast) == (uintptr_t)pool ? s : NULL;
}

MT_UNUSED static void affinity_pool_addr_insert(void *p, uint32_t g)
{
    uint32_t h = mt_aff_addr_hash((uintptr_t)p);
    for (uint32_t i = 0; i < 8; i++) {
        mt_aff_addr *a = &affinity_pool_state.addr[(h + i) & ((1u << MT_AFF_ADDR_BITS) - 1)];
        uintptr_t k = mt_load_relaxed(&a->addr);
        if (!k || k == (uintptr_t)p) {
            a->group = g;
            mt_store_relaxed(&a->addr, (uintptr_t)p);
            return;
        }
    }
}

MT_UNUSED static uint32_t affinity_pool_addr_find(uintptr_t w)
{
    uint32_t h = mt_aff_addr_hash(w);
    for (uint32_t i = 0; i < 8; i++) {
        mt_aff_addr *a = &affinity_pool_state.addr[(h + i) & ((1u << MT_AFF_ADDR_BITS) - 1)];
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
MT_UNUSED static void affinity_pool_merge(uint32_t a, uint32_t b, uint8_t type, uint32_t via, uint32_t offset)
{
    uint32_t ra = affinity_pool_find(a), rb = affinity_pool_find(b);
    if (ra == rb)
        return;
    mt_aff_group *A = &affinity_pool_state.group[ra - 1], *B = &affinity_pool_state.group[rb - 1];
    if (A->pool && B->pool && A->pool->retired != B->pool->retired)
        return; /* a retired class takes groups without a pool only */
    if (!A->pool && B->pool) {
        uint32_t t = ra;
        ra = rb;
        rb = t;
        mt_aff_group *T = A;
        A = B;
        B = T;
    }
    /* both have pools: direct sites of b's class move to a's pool (found
     * while b is still their root) */
    if (A->pool && B->pool && A->pool->size >= B->pool->size)
        for (uint32_t i = 1; i <= affinity_pool_state.groups; i++) {
            mt_aff_site *s = affinity_pool_direct_site(i, rb, B->pool);
            if (s)
                affinity_pool_mark_pooled(s, A->pool);
        }
    B->parent = ra;
    if (affinity_pool_state.merges < MT_AFF_MERGE_LOG)
        affinity_pool_state.merge[affinity_pool_state.merges] = (mt_aff_merge){type, a, b, via, offset};
    affinity_pool_state.merges++;
    if (!A->pool || !B->pool)
        return;
    /* both had pools: the memo forgets every wrapper chain (b's among
     * them), each thread's wrapper cache at its next recheck (until then a
     * stale entry costs locality only: its pool still exists, its segment
     * checks the size) */
    for (uint32_t i = 0; i < (1u << MT_AFF_MEMO_BITS); i++)
        mt_store_relaxed(&affinity_pool_state.memo[i], 0);
    mt_faa(&affinity_pool_state.memo_gen, 1);
}

MT_INLINE bool affinity_pool_mergeable(uint32_t g)
{
    const mt_aff_group *x = &affinity_pool_state.group[g - 1];
    return x->allocs && x->state != MT_AFF_UNPOOLED && x->max_size < MT_MAX_POOLED_SIZE;
}

/* The group a scanned word points at, 0 if none: the start of a recorded
 * first object, or of any object in a pool's segment (the page map says
 * the word's granule is this layer's, and the segment's pool names its
 * class's root group), so a pointer at a pooled class's later objects is
 * an edge as well as one at its first ones. */
MT_UNUSED static uint32_t affinity_pool_word_target(uintptr_t w)
{
    if (!w || (w & 7))
        return 0;
    uint32_t t = affinity_pool_addr_find(w);
    if (t)
        return t;
    uintptr_t e = mt_pagemap_get((const void *)w);
    if (mt_entry_owner(e) != (uintptr_t)MT_SELF_ID)
        return 0;
    const mt_aff_pool *pool =
        affinity_pool_seg_pool(affinity_pool_seg_at((const void *)w, mt_entry_payload(e)));
    return pool && affinity_pool_object_ok((const void *)w, pool->size_magic) ? pool->root : 0;
}

/* Scan g's first objects for pointers at other groups' objects. A
 * first object the program has freed since holds the layer below's free
 * link: a pointer at another freed block of its size, perhaps another
 * group's first object. One such word makes an edge that no other object
 * shows; an edge counts only when MT_AFF_EDGE_SUPPORT distinct scanned
 * objects show it. (A group whose first objects are one block, freed and
 * handed out again, holds temporaries: none of its edges counts.) */
MT_UNUSED static void affinity_pool_scan(uint32_t g)
{
    mt_aff_group *x = &affinity_pool_state.group[g - 1];
    size_t len = x->max_size < MT_AFF_SCAN_WORDS * 8 ? x->max_size & ~(size_t)7 : MT_AFF_SCAN_WORDS * 8;
    if (affinity_pool_state.bytes_scanned + len * x->nfirst >
        MT_AFF_SCAN_FLOOR + affinity_pool_state.bytes_seen / MT_AFF_SCAN_SHARE) {
        affinity_pool_state.scans_skipped++;
        return;
    }
    affinity_pool_state.scans++;
    for (uint32_t i = 0; i < x->nfirst; i++) {
        const char *o = x->first[i];
        bool again = false;
        for (uint32_t j = 0; j < i; j++)
            again |= x->first[j] == o;
        if (again || !mt_entry_owner(mt_pagemap_get(o)))
            continue; /* read already, or not this allocator's memory any more */
        affinity_pool_state.bytes_scanned += len;
        for (size_t off = 0; off < len; off += 8) {
            uintptr_t w = *(const uintptr_t *)(o + off);
            uint32_t t = affinity_pool_word_target(w);
            if (!t || t == g)
                continue;
            uint32_t e = 0;
            while (e < x->nedges && (x->edge[e].offset != off || x->edge[e].target != t))
                e++;
            if (e < x->nedges)
                x->edge[e].objects++;
            else if (x->nedges < MT_AFF_EDGES)
                x->edge[x->nedges++] = (mt_aff_edge){(uint32_t)off, t, 1};
        }
    }
}

/* Is group y's edge e shown by enough of its scanned objects? */
MT_INLINE bool affinity_pool_edge_held(const mt_aff_group *y, uint32_t e)
{
    return y->edge[e].objects >= MT_AFF_EDGE_SUPPORT;
}

/* Type I: g points at a group of its own size. Type II: two groups of one
 * size pointed at from the same offset of g's class. */
MT_UNUSED static void affinity_pool_merge_affine(uint32_t g)
{
    mt_aff_group *x = &affinity_pool_state.group[g - 1];
    for (uint32_t e = 0; e < x->nedges; e++) {
        uint32_t t = x->edge[e].target;
        if (affinity_pool_edge_held(x, e) && affinity_pool_mergeable(t) && affinity_pool_mergeable(g) &&
            affinity_pool_size_class(&affinity_pool_state.group[t - 1]) == affinity_pool_size_class(x))
            affinity_pool_merge(g, t, 1, 0, x->edge[e].offset);
    }
    uint32_t root = affinity_pool_find(g);
    mt_aff_edge class_edges[64];
    uint32_t n = 0;
    for (uint32_t i = 1; i <= affinity_pool_state.groups && n < 64; i++) {
        if (affinity_pool_find(i) != root)
            continue;
        const mt_aff_group *y = &affinity_pool_state.group[i - 1];
        for (uint32_t e = 0; e < y->nedges && n < 64; e++)
            if (affinity_pool_edge_held(y, e))
                class_edges[n++] = y->edge[e];
    }
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = i + 1; j < n; j++) {
            uint32_t t1 = class_edges[i].target, t2 = class_edges[j].target;
            if (class_edges[i].offset != class_edges[j].offset || !affinity_pool_mergeable(t1) ||
                !affinity_pool_mergeable(t2) || affinity_pool_find(t1) == affinity_pool_find(t2) ||
                affinity_pool_size_class(&affinity_pool_state.group[t1 - 1]) !=
                    affinity_pool_size_class(&affinity_pool_state.group[t2 - 1]))
                continue;
            affinity_pool_merge(t1, t2, 2, root, class_edges[i].offset);
        }
}

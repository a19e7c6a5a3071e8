/* mortise/layers/affinity/report.h — what affinity_pool shows and checks:
 * its MORTISE_STATS report (groups with their call chains named by dladdr,
 * sizes, objects, pools, merges and why, wrappers found), the invariants
 * of its pools and spans, and queries for tests (a template fragment of
 * layers/affinity_pool.h). */

/* "function+0xoff" or "object+0xoff" or the bare address. */
MT_UNUSED static void mt_aff_put_frame(mt_stats_out *o, uintptr_t a)
{
    mt_pal_symbol_info info;
    char b[32];
    if (mt_pal_symbol((const void *)(a - 1), &info) && (info.function || info.object)) {
        const char *name = info.function ? info.function : info.object;
        const char *slash = info.function ? NULL : strrchr(name, '/');
        mt_so_str(o, slash ? slash + 1 : name);
        mt_so_str(o, "+0x");
        uintptr_t base = (uintptr_t)(info.function ? info.function_start : info.object_base);
        uintptr_t off = a - base;
        int n = 0;
        do
            b[n++] = "0123456789abcdef"[off & 15];
        while ((off >>= 4) && n < 31);
        while (n)
            mt_so_mem(o, &b[--n], 1);
        return;
    }
    mt_so_hex(o, a);
}

MT_UNUSED static void MT_SELF(report_chain)(mt_stats_out *o, const mt_aff_group *g)
{
    for (uint32_t i = 0; i < g->depth; i++) {
        if (i)
            mt_so_str(o, " < ");
        mt_aff_put_frame(o, g->chain[i]);
    }
}

static void MT_SELF(report)(mt_stats_out *o)
{
    MT_SELF(busy) = 1; /* naming may allocate below: never re-enter the analysis */
    uint32_t groups = MT_SELF(state).groups, wrappers = 0, pooled = 0;
    for (uint32_t i = 0; i < MT_AFF_SITES; i++)
        wrappers += mt_load_relaxed(&MT_SELF(state).site[i].kind) == MT_AFF_WRAPPER;
    for (uint32_t i = 0; i < groups; i++)
        pooled += MT_SELF(state).group[i].state == MT_AFF_POOLED;
    mt_so_begin_layer(o, MT_STR(MT_NAME), "affinity_pool");
    if (o->json) {
        mt_so_kv_u64(o, "groups", groups);
        mt_so_kv_u64(o, "groups_pooled", pooled);
        mt_so_kv_u64(o, "pools", MT_SELF(state).pools);
        mt_so_kv_u64(o, "wrappers", wrappers);
        mt_so_kv_u64(o, "merges", MT_SELF(state).merges);
        mt_so_kv_u64(o, "scans", MT_SELF(state).scans);
        mt_so_kv_u64(o, "bytes_scanned", MT_SELF(state).bytes_scanned);
        mt_so_kv_u64(o, "spans_taken", MT_SELF(state).spans_taken);
        mt_so_kv_u64(o, "spans_given", MT_SELF(state).spans_given);
        mt_so_kv_u64(o, "reentries", MT_SELF(reentries)());
        mt_so_end_layer(o);
        MT_SELF(busy) = 0;
        return;
    }
    mt_so_str(o, ": groups ");
    mt_so_u64(o, groups, 0);
    mt_so_str(o, " (pooled ");
    mt_so_u64(o, pooled, 0);
    mt_so_str(o, "), pools ");
    mt_so_u64(o, MT_SELF(state).pools, 0);
    mt_so_str(o, ", wrappers ");
    mt_so_u64(o, wrappers, 0);
    mt_so_str(o, ", merges ");
    mt_so_u64(o, MT_SELF(state).merges, 0);
    mt_so_str(o, ", scans ");
    mt_so_u64(o, MT_SELF(state).scans, 0);
    mt_so_str(o, " (");
    mt_so_u64(o, MT_SELF(state).bytes_scanned, 0);
    mt_so_str(o, " bytes of ");
    mt_so_u64(o, MT_SELF(state).bytes_seen, 0);
    mt_so_str(o, " seen), spans taken ");
    mt_so_u64(o, MT_SELF(state).spans_taken, 0);
    mt_so_str(o, " given back ");
    mt_so_u64(o, MT_SELF(state).spans_given, 0);
    mt_so_str(o, ", unwinder re-entries ");
    mt_so_u64(o, MT_SELF(reentries)(), 0);
    mt_so_str(o, ", chains walked ");
    mt_so_u64(o, MT_SELF(state).walks, 0);
    mt_so_str(o, " + ");
    mt_so_u64(o, mt_load_relaxed(&MT_SELF(state).memo_hits), 0);
    mt_so_str(o, " decided by the memo");
    mt_so_str(o, mt_load_relaxed(&MT_SELF(state).walk_off) ? " (walk off: disagreed)" : "");
    mt_so_str(o, "\n  group  pool  allocs  pooled  size        chain (return addresses, innermost first)\n");
    for (uint32_t i = 0; i < groups && i < 64; i++) {
        const mt_aff_group *g = &MT_SELF(state).group[i];
        uint32_t root = MT_SELF(find)(i + 1);
        mt_aff_pool *pool = MT_SELF(state).group[root - 1].pool;
        mt_so_str(o, "  ");
        mt_so_u64(o, i + 1, 5);
        mt_so_str(o, " ");
        mt_so_u64(o, pool && g->state == MT_AFF_POOLED ? (uint64_t)(pool - MT_SELF(state).pool) + 1 : 0, 5);
        mt_so_str(o, " ");
        mt_so_u64(o, g->allocs, 7);
        mt_so_str(o, " ");
        mt_so_u64(o, g->pooled, 7);
        mt_so_str(o, "  ");
        mt_so_u64(o, g->min_size == UINT32_MAX ? 0 : g->min_size, 0);
        mt_so_str(o, "-");
        mt_so_u64(o, g->max_size, 0);
        mt_so_str(o, g->state == MT_AFF_UNPOOLED ? " (too big)  " : "  ");
        MT_SELF(report_chain)(o, g);
        mt_so_str(o, "\n");
    }
    for (uint32_t i = 0; i < MT_SELF(state).merges && i < MT_AFF_MERGE_LOG; i++) {
        const mt_aff_merge *m = &MT_SELF(state).merge[i];
        mt_so_str(o, m->type == 1 ? "  merge type I: group " : "  merge type II: group ");
        mt_so_u64(o, m->a, 0);
        mt_so_str(o, " + group ");
        mt_so_u64(o, m->b, 0);
        if (m->type == 1)
            mt_so_str(o, ", same size, a pointer at offset ");
        else {
            mt_so_str(o, ", same size, both pointed at from offset ");
        }
        mt_so_u64(o, m->offset, 0);
        if (m->type == 2) {
            mt_so_str(o, " of group ");
            mt_so_u64(o, m->via, 0);
            mt_so_str(o, "'s class");
        }
        mt_so_str(o, "\n");
    }
    for (uint32_t i = 0; i < MT_AFF_SITES; i++) {
        const mt_aff_site *s = &MT_SELF(state).site[i];
        if (mt_load_relaxed(&s->kind) != MT_AFF_WRAPPER)
            continue;
        mt_so_str(o, s->why == MT_AFF_BY_NAME ? "  wrapper (by name): " : "  wrapper (callers and sizes): ");
        mt_aff_put_frame(o, mt_load_relaxed(&s->ra));
        mt_so_str(o, "\n");
    }
    MT_SELF(busy) = 0;
}

static mt_stats_entry MT_SELF(entry) = {.layer = MT_STR(MT_NAME), .report = MT_SELF(report)};

__attribute__((constructor)) static void MT_SELF(register_stats)(void) { mt_stats_register(&MT_SELF(entry)); }

/* The pool an object was served from (1, 2, ...), 0 if it came from below. */
MT_UNUSED static uint32_t MT_SELF(pool_id)(void *p)
{
    uintptr_t e = mt_pagemap_get(p);
    if (mt_entry_owner(e) != MT_SELF_ID)
        return 0;
    mt_aff_pool *pool = MT_SELF(pool_of)(p, mt_entry_payload(e));
    return pool ? (uint32_t)(pool - MT_SELF(state).pool) + 1 : 0;
}

/* Merges of type 1 or 2 made so far. */
MT_UNUSED static uint32_t MT_SELF(merges_of_type)(unsigned type)
{
    uint32_t n = 0;
    MT_SELF(lock)();
    for (uint32_t i = 0; i < MT_SELF(state).merges && i < MT_AFF_MERGE_LOG; i++)
        n += MT_SELF(state).merge[i].type == type;
    MT_SELF(unlock)();
    return n;
}

/* Wrapper chains found by walking learned frame sizes, not unwinding. */
/* Chains walked without the unwinder (memo hits as of each thread's last
 * recheck). */
MT_UNUSED static uint64_t MT_SELF(walks)(void)
{
    return MT_SELF(state).walks + mt_load_relaxed(&MT_SELF(state).memo_hits);
}
MT_UNUSED static bool MT_SELF(walk_off)(void) { return mt_load_relaxed(&MT_SELF(state).walk_off); }
/* The calling thread's wrapper-cache hits left before its next recheck
 * (each hit counts it down). */
MT_UNUSED static unsigned MT_SELF(wc_left)(void) { return MT_SELF(wt).left; }

/* Spans held from below now. */
MT_UNUSED static uint64_t MT_SELF(spans_held)(void)
{
    return MT_SELF(state).spans_taken - MT_SELF(state).spans_given;
}

/* One segment of pool: every link of its free list and remote stack at an
 * object start inside it, no cycle, and unless it is current (whose count
 * is not kept) used + free = capacity (remote frees are still counted in
 * used). */
MT_UNUSED static const char *MT_SELF(check_seg)(mt_aff_pool *pool, mt_aff_seg *h, bool current)
{
    if (MT_SELF(seg_pool)(h) != pool || h->size != pool->size)
        return MT_STR(MT_NAME) ": segment header does not match its pool";
    char *first = MT_SELF(seg_base)(h);
    size_t cap = MT_SEGMENT_SIZE / pool->size, nfree = 0, nremote = 0;
    for (char *f = h->free; f; f = *(char **)f) {
        if (f < first || f >= first + cap * pool->size || (size_t)(f - first) % pool->size)
            return MT_STR(MT_NAME) ": free link outside its segment";
        if (++nfree > cap)
            return MT_STR(MT_NAME) ": free list longer than the segment (a cycle)";
    }
    for (char *f = mt_load_acquire(&h->remote); f; f = *(char **)f) {
        if (f < first || f >= first + cap * pool->size || (size_t)(f - first) % pool->size)
            return MT_STR(MT_NAME) ": remote free link outside its segment";
        if (++nremote > cap - nfree)
            return MT_STR(MT_NAME) ": more remote frees than objects out";
    }
    if (!current && h->used + nfree != cap)
        return MT_STR(MT_NAME) ": segment counts do not add up";
    return NULL;
}

/* The calling thread's segments of pool (current, then its ring, linked
 * both ways and all its own) and the pool's abandoned segments (pool lock
 * held). Other threads' segments are theirs: check them from their thread. */
MT_UNUSED static const char *MT_SELF(check_pool)(mt_aff_pool *pool)
{
    uint32_t k = MT_SELF(pool_index)(pool);
    const char *broken = NULL;
    mt_aff_seg *cur = MT_SELF(tl).cur[k];
    if (cur != &MT_SELF(none)) {
        if (mt_load_relaxed(&cur->owner) != MT_SELF(me)() || cur->gen != MT_SELF(tl).id)
            return MT_STR(MT_NAME) ": current segment not the thread's";
        broken = MT_SELF(check_seg)(pool, cur, true);
    }
    mt_aff_seg *head = MT_SELF(tl).ring[k], *s = head;
    size_t n = 0;
    while (s && !broken) {
        if (s->next->prev != s || s->prev->next != s || mt_load_relaxed(&s->owner) != MT_SELF(me)() ||
            s->gen != MT_SELF(tl).id)
            return MT_STR(MT_NAME) ": segment ring links";
        if (s == cur)
            return MT_STR(MT_NAME) ": current segment on the ring";
        if (++n > MT_AFF_SPANS * MT_AFF_SEGS_PER_SPAN)
            return MT_STR(MT_NAME) ": segment ring does not close";
        broken = MT_SELF(check_seg)(pool, s, false);
        s = s->next == head ? NULL : s->next;
    }
    mt_aff_seg *prev = NULL;
    for (s = mt_load_relaxed(&pool->abandoned); s && !broken; prev = s, s = s->next) {
        if (s->prev != prev || mt_load_relaxed(&s->owner) != MT_AFF_OWNER_NONE)
            return MT_STR(MT_NAME) ": abandoned segment list links";
        broken = MT_SELF(check_seg)(pool, s, false);
    }
    return broken;
}

MT_UNUSED static const char *MT_SELF(invariants)(void)
{
    const char *broken = NULL;
    MT_SELF(lock)();
    for (uint32_t i = 0; i < MT_SELF(state).pools && !broken; i++) {
        mt_aff_pool *pool = &MT_SELF(state).pool[i];
        mt_sync_spinlock_lock(&pool->lock);
        broken = MT_SELF(check_pool)(pool);
        mt_sync_spinlock_unlock(&pool->lock);
    }
    for (uint32_t i = 1; i <= MT_SELF(state).groups && !broken; i++)
        if (MT_SELF(state).group[i - 1].parent > MT_SELF(state).groups)
            broken = MT_STR(MT_NAME) ": group parent out of range";
    for (uint32_t i = 0; i < (1u << MT_AFF_PLAIN_BITS) && !broken; i++) {
        uintptr_t ra = mt_load_relaxed(&MT_AFF_PLAIN_AT(i));
        if (ra && mt_aff_plain_slot(ra) != i)
            broken = MT_STR(MT_NAME) ": an unpooled return address in another's slot";
    }
    for (uint32_t i = 0; i < (1u << MT_AFF_WRAP_BITS) && !broken; i++) {
        uint64_t e = mt_load_relaxed(&MT_SELF(wrap)[i]);
        if (e && (((e >> 16) & ((1u << MT_AFF_WRAP_BITS) - 1)) != i || !(e & 0xffff)))
            broken = MT_STR(MT_NAME) ": a trusted frame size in another's slot, or empty";
    }
    for (uint32_t i = 0; i < (1u << MT_AFF_MEMO_BITS) && !broken; i++) {
        uint64_t code = mt_load_relaxed(&MT_SELF(state).memo[i]) & MT_AFF_MEMO_CODE;
        if (code > MT_AFF_MEMO_BELOW && code - 2 >= MT_SELF(state).pools)
            broken = MT_STR(MT_NAME) ": a memo entry names a pool that does not exist";
    }
    MT_SELF(unlock)();
    mt_sync_spinlock_lock(&MT_SELF(state).spans_lock);
    uint32_t listed = 0;
    for (int32_t i = MT_SELF(state).spans_free_head; i && !broken && listed <= MT_AFF_SPANS;
         i = MT_SELF(state).span[i - 1].next, listed++) {
        mt_aff_span *s = &MT_SELF(state).span[i - 1];
        if (!s->base || s->used == MT_AFF_SPAN_FULL || !s->listed)
            broken = MT_STR(MT_NAME) ": span list holds a full or unused span";
    }
    for (uint32_t i = 0; i < MT_SELF(state).spans_high && !broken; i++) {
        mt_aff_span *s = &MT_SELF(state).span[i];
        if (s->base && mt_entry_owner(mt_pagemap_get(s->base)) != MT_SELF_ID)
            broken = MT_STR(MT_NAME) ": a span not ours in the page map";
        else if (s->base && s->used != MT_AFF_SPAN_FULL && !s->listed)
            broken = MT_STR(MT_NAME) ": a span with free segments not listed";
    }
    mt_sync_spinlock_unlock(&MT_SELF(state).spans_lock);
    return broken;
}

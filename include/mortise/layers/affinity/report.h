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

MT_UNUSED static void affinity_pool_report_chain(mt_stats_out *o, const mt_aff_group *g)
{
    for (uint32_t i = 0; i < g->depth; i++) {
        if (i)
            mt_so_str(o, " < ");
        mt_aff_put_frame(o, g->chain[i]);
    }
}

/* Left below for sizes too varied to share a slot (the other reason a
 * group is unpooled is an object of max_pooled_size; decide.h). */
MT_INLINE bool affinity_pool_sizes_varied(const mt_aff_group *g)
{
    return g->state == MT_AFF_UNPOOLED && g->max_size < MT_MAX_POOLED_SIZE;
}

static void affinity_pool_report(mt_stats_out *o)
{
    affinity_pool_busy = 1; /* naming may allocate below: never re-enter the analysis */
    uint32_t groups = affinity_pool_state.groups, wrappers = 0, pooled = 0, mixed = 0;
    for (uint32_t i = 0; i < MT_AFF_SITES; i++)
        wrappers += mt_load_relaxed(&affinity_pool_state.site[i].kind) == MT_AFF_WRAPPER;
    for (uint32_t i = 0; i < groups; i++) {
        pooled += affinity_pool_state.group[i].state == MT_AFF_POOLED;
        mixed += affinity_pool_sizes_varied(&affinity_pool_state.group[i]);
    }
    mt_so_begin_layer(o, MT_STR(MT_NAME), "affinity_pool");
    if (o->json) {
        mt_so_kv_u64(o, "groups", groups);
        mt_so_kv_u64(o, "groups_pooled", pooled);
        mt_so_kv_u64(o, "groups_mixed_sizes", mixed);
        mt_so_kv_u64(o, "pools", affinity_pool_state.pools);
        mt_so_kv_u64(o, "wrappers", wrappers);
        mt_so_kv_u64(o, "merges", affinity_pool_state.merges);
        mt_so_kv_u64(o, "scans", affinity_pool_state.scans);
        mt_so_kv_u64(o, "bytes_scanned", affinity_pool_state.bytes_scanned);
        mt_so_kv_u64(o, "spans_taken", affinity_pool_state.spans_taken);
        mt_so_kv_u64(o, "spans_given", affinity_pool_state.spans_given);
        mt_so_kv_u64(o, "reentries", affinity_pool_reentries());
        mt_so_kv_u64(o, "unwinds", mt_load_relaxed(&affinity_pool_state.unwinds));
        mt_so_kv_u64(o, "scans_skipped", affinity_pool_state.scans_skipped);
        mt_so_kv_u64(o, "sites_full", affinity_pool_state.sites_full);
        mt_so_kv_u64(o, "groups_full", affinity_pool_state.groups_full);
        mt_so_kv_u64(o, "chains_lost", affinity_pool_state.chains_lost);
        mt_so_end_layer(o);
        affinity_pool_busy = 0;
        return;
    }
    /* the header: each figure after the text before it */
    const struct {
        const char *before;
        uint64_t value;
    } line[] = {
        {": groups ", groups},
        {" (pooled ", pooled},
        {", sizes too varied ", mixed},
        {"), pools ", affinity_pool_state.pools},
        {", wrappers ", wrappers},
        {", merges ", affinity_pool_state.merges},
        {", classes retired ", affinity_pool_state.retired},
        {" (rechecks ", affinity_pool_state.rechecks},
        {"), scans ", affinity_pool_state.scans},
        {" (", affinity_pool_state.bytes_scanned},
        {" bytes of ", affinity_pool_state.bytes_seen},
        {" seen, ", affinity_pool_state.scans_skipped},
        {" skipped), spans taken ", affinity_pool_state.spans_taken},
        {" given back ", affinity_pool_state.spans_given},
        {", unwinder re-entries ", affinity_pool_reentries()},
        {", chains walked ", affinity_pool_state.walks},
        {" + ", mt_load_relaxed(&affinity_pool_state.memo_hits)},
        {mt_load_relaxed(&affinity_pool_state.walk_off)
             ? " decided by the memo (walk off: disagreed), unwinds "
             : " decided by the memo, unwinds ",
         mt_load_relaxed(&affinity_pool_state.unwinds)},
        {", left below for a full table: sites ", affinity_pool_state.sites_full},
        {", groups ", affinity_pool_state.groups_full},
        {"; call sites an unwind did not find ", affinity_pool_state.chains_lost},
    };
    for (size_t i = 0; i < sizeof line / sizeof line[0]; i++) {
        mt_so_str(o, line[i].before);
        mt_so_u64(o, line[i].value, 0);
    }
    mt_so_str(o, "\n  group  pool  allocs  pooled  size        chain (return addresses, innermost first)\n");
    for (uint32_t i = 0; i < groups && i < 64; i++) {
        const mt_aff_group *g = &affinity_pool_state.group[i];
        uint32_t root = affinity_pool_find(i + 1);
        mt_aff_pool *pool = affinity_pool_state.group[root - 1].pool;
        mt_so_str(o, "  ");
        mt_so_u64(o, i + 1, 5);
        mt_so_str(o, " ");
        mt_so_u64(o, pool && g->state == MT_AFF_POOLED ? (uint64_t)(pool - affinity_pool_state.pool) + 1 : 0,
                  5);
        mt_so_str(o, " ");
        mt_so_u64(o, g->allocs, 7);
        mt_so_str(o, " ");
        mt_so_u64(o, g->pooled, 7);
        mt_so_str(o, "  ");
        mt_so_u64(o, g->min_size == UINT32_MAX ? 0 : g->min_size, 0);
        mt_so_str(o, "-");
        mt_so_u64(o, g->max_size, 0);
        mt_so_str(o, g->state == MT_AFF_UNPOOLED
                         ? (affinity_pool_sizes_varied(g) ? " (sizes vary)  " : " (too big)  ")
                     : g->state == MT_AFF_RETIRED ? " (retired)  "
                                                  : "  ");
        affinity_pool_report_chain(o, g);
        mt_so_str(o, "\n");
    }
    for (uint32_t i = 0; i < affinity_pool_state.pools; i++) {
        mt_aff_pool *pool = &affinity_pool_state.pool[i];
        mt_so_str(o, "  pool ");
        mt_so_u64(o, i + 1, 0);
        mt_so_str(o, ": ");
        mt_so_u64(o, pool->size, 0);
        mt_so_str(o, " bytes, segments ");
        mt_so_u64(o, affinity_pool_pool_segments(pool), 0);
        mt_so_str(o, " now, ");
        mt_so_u64(o, pool->peak, 0);
        mt_so_str(o, " at most, made at recheck ");
        mt_so_u64(o, pool->born, 0);
        mt_so_str(o, pool->retired ? ", retired (never more than the small-pool bound)\n" : "\n");
    }
    for (uint32_t i = 0; i < affinity_pool_state.merges && i < MT_AFF_MERGE_LOG; i++) {
        const mt_aff_merge *m = &affinity_pool_state.merge[i];
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
        const mt_aff_site *s = &affinity_pool_state.site[i];
        if (mt_load_relaxed(&s->kind) != MT_AFF_WRAPPER)
            continue;
        mt_so_str(o, s->why == MT_AFF_BY_NAME ? "  wrapper (by name): " : "  wrapper (callers and sizes): ");
        mt_aff_put_frame(o, mt_load_relaxed(&s->ra));
        mt_so_str(o, mt_load_relaxed(&s->fast) == MT_AFF_PLAIN
                         ? ", passed below (its pooled classes retired)\n"
                         : "\n");
    }
    affinity_pool_busy = 0;
}

static mt_stats_entry affinity_pool_entry = {.layer = MT_STR(MT_NAME), .report = affinity_pool_report};

__attribute__((constructor)) static void affinity_pool_register_stats(void)
{
    mt_stats_register(&affinity_pool_entry);
}

/* The pool an object was served from (1, 2, ...), 0 if it came from below. */
MT_UNUSED static uint32_t affinity_pool_pool_id(void *p)
{
    uintptr_t e = mt_pagemap_get(p);
    if (mt_entry_owner(e) != MT_SELF_ID)
        return 0;
    mt_aff_pool *pool = affinity_pool_pool_of(p, mt_entry_payload(e));
    return pool ? (uint32_t)(pool - affinity_pool_state.pool) + 1 : 0;
}

/* Merges of type 1 or 2 made so far. */
MT_UNUSED static uint32_t affinity_pool_merges_of_type(unsigned type)
{
    uint32_t n = 0;
    affinity_pool_lock();
    for (uint32_t i = 0; i < affinity_pool_state.merges && i < MT_AFF_MERGE_LOG; i++)
        n += affinity_pool_state.merge[i].type == type;
    affinity_pool_unlock();
    return n;
}

/* Wrapper chains found by walking learned frame sizes, not unwinding. */
/* Chains walked without the unwinder (memo hits as of each thread's last
 * recheck). */
MT_UNUSED static uint64_t affinity_pool_walks(void)
{
    return affinity_pool_state.walks + mt_load_relaxed(&affinity_pool_state.memo_hits);
}
MT_UNUSED static bool affinity_pool_walk_off(void) { return mt_load_relaxed(&affinity_pool_state.walk_off); }
/* The calling thread's wrapper-cache hits left before its next recheck
 * (each hit counts it down). */
MT_UNUSED static unsigned affinity_pool_wc_left(void) { return affinity_pool_wt.left; }

/* Spans held from below now. */
MT_UNUSED static uint64_t affinity_pool_spans_held(void)
{
    return affinity_pool_state.spans_taken - affinity_pool_state.spans_given;
}

/* One segment of pool: every link of its free list and remote stack at an
 * object start inside it, no cycle, and unless it is current (whose count
 * is not kept) out + free = capacity (remote frees are still counted as
 * out). */
MT_UNUSED static const char *affinity_pool_check_seg(mt_aff_pool *pool, mt_aff_seg *h, bool current)
{
    if (affinity_pool_seg_pool(h) != pool || h->size != pool->size)
        return MT_STR(MT_NAME) ": segment header does not match its pool";
    char *first = affinity_pool_seg_base(h);
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
    if (!current && affinity_pool_out(h) + nfree != cap)
        return MT_STR(MT_NAME) ": segment counts do not add up";
    return NULL;
}

/* The calling thread's segments of pool (current, then its ring, linked
 * both ways and all its own) and the pool's abandoned segments (pool lock
 * held). Other threads' segments are theirs: check them from their thread. */
MT_UNUSED static const char *affinity_pool_check_pool(mt_aff_pool *pool)
{
    uint32_t k = affinity_pool_pool_index(pool);
    const char *broken = NULL;
    mt_aff_seg *cur = affinity_pool_tl.cur[k];
    if (cur != &affinity_pool_none) {
        if (mt_load_relaxed(&cur->owner) != affinity_pool_me() || cur->gen != (uint32_t)affinity_pool_tl.id)
            return MT_STR(MT_NAME) ": current segment not the thread's";
        broken = affinity_pool_check_seg(pool, cur, true);
    }
    mt_aff_seg *head = affinity_pool_tl.ring[k], *s = head;
    size_t n = 0;
    while (s && !broken) {
        if (s->next->prev != s || s->prev->next != s || mt_load_relaxed(&s->owner) != affinity_pool_me() ||
            s->gen != (uint32_t)affinity_pool_tl.id)
            return MT_STR(MT_NAME) ": segment ring links";
        if (s == cur)
            return MT_STR(MT_NAME) ": current segment on the ring";
        if (++n > MT_AFF_SPANS * MT_AFF_SEGS_PER_SPAN)
            return MT_STR(MT_NAME) ": segment ring does not close";
        broken = affinity_pool_check_seg(pool, s, false);
        s = s->next == head ? NULL : s->next;
    }
    mt_aff_seg *prev = NULL;
    for (s = mt_load_relaxed(&pool->abandoned); s && !broken; prev = s, s = s->next) {
        if (s->prev != prev || mt_load_relaxed(&s->owner) != MT_AFF_OWNER_NONE)
            return MT_STR(MT_NAME) ": abandoned segment list links";
        broken = affinity_pool_check_seg(pool, s, false);
    }
    return broken;
}

MT_UNUSED static const char *affinity_pool_invariants(void)
{
    const char *broken = NULL;
    affinity_pool_lock();
    for (uint32_t i = 0; i < affinity_pool_state.pools && !broken; i++) {
        mt_aff_pool *pool = &affinity_pool_state.pool[i];
        mt_sync_spinlock_lock(&pool->lock);
        broken = affinity_pool_check_pool(pool);
        mt_sync_spinlock_unlock(&pool->lock);
    }
    for (uint32_t i = 1; i <= affinity_pool_state.groups && !broken; i++)
        if (affinity_pool_state.group[i - 1].parent > affinity_pool_state.groups)
            broken = MT_STR(MT_NAME) ": group parent out of range";
    for (uintptr_t i = 0; i < ((uintptr_t)MT_AFF_ROW << MT_AFF_PLAIN_BITS) && !broken; i += MT_AFF_ROW) {
        uintptr_t ra = mt_load_relaxed(&MT_AFF_SITE_AT(i));
        if (ra && mt_aff_plain_slot(ra) != i && mt_aff_plain_slot(~ra) != i)
            broken = MT_STR(MT_NAME) ": a return address in another's row";
    }
    for (uint32_t i = 0; i < (1u << MT_AFF_WRAP_BITS) && !broken; i++) {
        uint64_t e = mt_load_relaxed(&affinity_pool_wrap[i]);
        if (e && (mt_aff_wrap_index((uintptr_t)(e >> 16)) != i || !(e & 0xffff)))
            broken = MT_STR(MT_NAME) ": a trusted frame size in another's slot, or empty";
    }
    for (uint32_t i = 0; i < (1u << MT_AFF_MEMO_BITS) && !broken; i++) {
        uint64_t code = mt_load_relaxed(&affinity_pool_state.memo[i]) & MT_AFF_MEMO_CODE;
        if (code > MT_AFF_MEMO_BELOW && code - 2 >= affinity_pool_state.pools)
            broken = MT_STR(MT_NAME) ": a memo entry names a pool that does not exist";
    }
    affinity_pool_unlock();
    mt_sync_spinlock_lock(&affinity_pool_state.spans_lock);
    uint32_t listed = 0;
    for (int32_t i = affinity_pool_state.spans_free_head; i && !broken && listed <= MT_AFF_SPANS;
         i = affinity_pool_state.span[i - 1].next, listed++) {
        mt_aff_span *s = &affinity_pool_state.span[i - 1];
        if (!s->base || s->used == MT_AFF_SPAN_FULL || !s->listed)
            broken = MT_STR(MT_NAME) ": span list holds a full or unused span";
    }
    uint32_t spare = 0;
    for (int32_t i = affinity_pool_state.spans_spare; i && !broken; i = affinity_pool_state.span[i - 1].next)
        if ((uint32_t)i > affinity_pool_state.spans_high || affinity_pool_state.span[i - 1].base ||
            ++spare > affinity_pool_state.spans_high)
            broken = MT_STR(MT_NAME) ": a spare span record in use, or the spare list does not end";
    for (uint32_t i = 0; i < affinity_pool_state.spans_high && !broken; i++) {
        mt_aff_span *s = &affinity_pool_state.span[i];
        if (s->base && mt_entry_owner(mt_pagemap_get(s->base)) != MT_SELF_ID)
            broken = MT_STR(MT_NAME) ": a span not ours in the page map";
        else if (s->base && (~s->used & ~s->reserved & MT_AFF_SPAN_FULL) && !s->listed)
            broken = MT_STR(MT_NAME) ": a span with free segments not listed";
    }
    mt_sync_spinlock_unlock(&affinity_pool_state.spans_lock);
    return broken;
}

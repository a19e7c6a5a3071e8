/* mortise/layers/affinity/pools.h — affinity_pool's pools: 64 KiB spans
 * from the layer below cut into segments, a segment per pool at a time,
 * objects carved by a bump pointer and recycled through a free list in the
 * segment (a template fragment of layers/affinity_pool.h).
 *
 * A pool bumps through its current segment; when that is used up it takes
 * a segment of its own that has free objects (the partial list), else a
 * fresh one. A segment that is not current and holds no live object goes
 * back to its span at once, a span with no segment in use back below. */

#define MT_AFF_SEGS_PER_SPAN (MT_GRANULE / MT_SEGMENT_SIZE)
#define MT_AFF_SPAN_FULL \
    (MT_AFF_SEGS_PER_SPAN == 64 ? ~(uint64_t)0 : (((uint64_t)1 << MT_AFF_SEGS_PER_SPAN) - 1))
_Static_assert(MT_GRANULE / MT_SEGMENT_SIZE <= 64, "a span's segments fit its bitmap");

MT_INLINE mt_aff_seg *MT_SELF(seg_of)(const void *p)
{
    return (mt_aff_seg *)mt_align_down_ptr((uintptr_t)p, MT_SEGMENT_SIZE);
}

/* spans_lock held: unlink span i from the list of spans with a free segment */
MT_UNUSED static void MT_SELF(span_unlist)(int32_t i)
{
    mt_aff_span *s = &MT_SELF(state).span[i];
    if (!s->listed)
        return;
    if (s->prev)
        MT_SELF(state).span[s->prev - 1].next = s->next;
    else
        MT_SELF(state).spans_free_head = s->next;
    if (s->next)
        MT_SELF(state).span[s->next - 1].prev = s->prev;
    s->listed = false;
}
MT_UNUSED static void MT_SELF(span_list)(int32_t i)
{
    mt_aff_span *s = &MT_SELF(state).span[i];
    s->prev = 0;
    s->next = MT_SELF(state).spans_free_head;
    if (s->next)
        MT_SELF(state).span[s->next - 1].prev = i + 1;
    MT_SELF(state).spans_free_head = i + 1;
    s->listed = true;
}

/* spans_lock held: a new span from below, or -1 */
MT_UNUSED static int32_t MT_SELF(span_new)(void)
{
    int32_t i = -1;
    if (MT_SELF(state).spans_high < MT_AFF_SPANS)
        i = (int32_t)MT_SELF(state).spans_high;
    else
        for (int32_t j = 0; j < MT_AFF_SPANS && i < 0; j++)
            if (!MT_SELF(state).span[j].base)
                i = j;
    if (i < 0)
        return -1;
    mt_ctx c = mt_ctx_for_alloc(MT_GRANULE, MT_GRANULE);
    char *base = MT_BELOW(alloc)(&c);
    if (!base)
        return -1;
    if ((uint32_t)i == MT_SELF(state).spans_high)
        MT_SELF(state).spans_high++;
    mt_aff_span *s = &MT_SELF(state).span[i];
    s->base = base;
    s->used = 0;
    s->prev_entry = mt_span_claim(base, MT_GRANULE, MT_SELF_ID, (uintptr_t)i + 1);
    MT_SELF(state).spans_taken++;
    MT_SELF(span_list)(i);
    return i;
}

/* A free segment for `pool`, initialised; NULL when the layer below refuses. */
MT_SLOW mt_aff_seg *MT_SELF(segment_take)(mt_aff_pool *pool)
{
    mt_sync_spinlock_lock(&MT_SELF(state).spans_lock);
    int32_t i = MT_SELF(state).spans_free_head - 1;
    if (i < 0)
        i = MT_SELF(span_new)();
    if (i < 0) {
        mt_sync_spinlock_unlock(&MT_SELF(state).spans_lock);
        return NULL;
    }
    mt_aff_span *s = &MT_SELF(state).span[i];
    unsigned k = (unsigned)__builtin_ctzll(~s->used);
    s->used |= (uint64_t)1 << k;
    if (s->used == MT_AFF_SPAN_FULL)
        MT_SELF(span_unlist)(i);
    mt_sync_spinlock_unlock(&MT_SELF(state).spans_lock);

    mt_aff_seg *seg = (mt_aff_seg *)(s->base + (size_t)k * MT_SEGMENT_SIZE);
    seg->free = NULL;
    seg->bump = (char *)seg + MT_AFF_SEG_HEADER;
    seg->end = seg->bump + (MT_SEGMENT_SIZE - MT_AFF_SEG_HEADER) / pool->size * pool->size;
    seg->live = 0;
    seg->listed = false;
    seg->next = seg->prev = NULL;
    mt_store_release((_Atomic(mt_aff_pool *) *)&seg->pool, pool);
    return seg;
}

/* An empty segment back to its span; the span back below when all of its
 * segments are free. */
MT_SLOW void MT_SELF(segment_give)(mt_aff_seg *seg)
{
    uintptr_t e = mt_pagemap_get(seg);
    int32_t i = (int32_t)mt_entry_payload(e) - 1;
    mt_sync_spinlock_lock(&MT_SELF(state).spans_lock);
    mt_aff_span *s = &MT_SELF(state).span[i];
    unsigned k = (unsigned)(((char *)seg - s->base) / MT_SEGMENT_SIZE);
    bool was_full = s->used == MT_AFF_SPAN_FULL;
    s->used &= ~((uint64_t)1 << k);
    if (was_full)
        MT_SELF(span_list)(i);
    if (!s->used) {
        MT_SELF(span_unlist)(i);
        char *base = s->base;
        s->base = NULL;
        MT_SELF(state).spans_given++;
        mt_span_release(base, MT_GRANULE, s->prev_entry, MT_BELOW(free));
    }
    mt_sync_spinlock_unlock(&MT_SELF(state).spans_lock);
}

/* pool lock held: pop an object of the current segment, or NULL */
MT_INLINE void *MT_SELF(seg_pop)(mt_aff_pool *pool, mt_aff_seg *s)
{
    void *p = s->free;
    if (p)
        s->free = *(void **)p;
    else if (s->bump < s->end) {
        p = s->bump;
        s->bump += pool->size;
    } else
        return NULL;
    s->live++;
    return p;
}

/* The fast path: an object of the current segment, NULL if it has none. */
MT_INLINE void *MT_SELF(pool_pop)(mt_aff_pool *pool)
{
    mt_sync_spinlock_lock(&pool->lock);
    mt_aff_seg *s = pool->cur;
    void *p = MT_LIKELY(s != NULL) ? MT_SELF(seg_pop)(pool, s) : NULL;
    mt_sync_spinlock_unlock(&pool->lock);
    return p;
}

/* The current segment is used up: move to a partial one or a new one.
 * Sets *grown when the pool took a new segment. */
MT_SLOW void *MT_SELF(pool_alloc_slow)(mt_aff_pool *pool, bool *grown)
{
    *grown = false;
    mt_sync_spinlock_lock(&pool->lock);
    for (;;) {
        void *p = pool->cur ? MT_SELF(seg_pop)(pool, pool->cur) : NULL;
        if (p) {
            mt_sync_spinlock_unlock(&pool->lock);
            return p;
        }
        mt_aff_seg *s = pool->partial;
        if (s) {
            pool->partial = s->next;
            if (s->next)
                s->next->prev = NULL;
            s->listed = false;
            pool->cur = s;
            continue;
        }
        mt_sync_spinlock_unlock(&pool->lock);
        s = MT_SELF(segment_take)(pool);
        if (!s)
            return NULL;
        mt_sync_spinlock_lock(&pool->lock);
        void *q = pool->cur ? MT_SELF(seg_pop)(pool, pool->cur) : NULL;
        if (q) { /* another thread gave the pool a segment meanwhile */
            mt_sync_spinlock_unlock(&pool->lock);
            mt_store_relaxed((_Atomic(mt_aff_pool *) *)&s->pool, NULL);
            MT_SELF(segment_give)(s);
            return q;
        }
        pool->segments++;
        pool->segments_taken++;
        *grown = true;
        mt_aff_seg *old = pool->cur;
        pool->cur = s;
        /* the old current segment is used up; objects freed into it while
         * it was current left it off the partial list */
        if (old && (old->free || !old->live)) {
            if (!old->live) {
                mt_store_relaxed((_Atomic(mt_aff_pool *) *)&old->pool, NULL);
                pool->segments--;
                pool->segments_given++;
                mt_sync_spinlock_unlock(&pool->lock);
                MT_SELF(segment_give)(old);
                mt_sync_spinlock_lock(&pool->lock);
            } else {
                old->next = pool->partial;
                old->prev = NULL;
                if (old->next)
                    old->next->prev = old;
                pool->partial = old;
                old->listed = true;
            }
        }
    }
}

MT_INLINE void *MT_SELF(pool_alloc)(mt_aff_pool *pool, bool *grown)
{
    *grown = false;
    void *p = MT_SELF(pool_pop)(pool);
    return p ? p : MT_SELF(pool_alloc_slow)(pool, grown);
}

/* Is p an object start handed out by its segment? (A pointer into a span of
 * ours that is not one is bad input: ignored, never followed.) */
MT_INLINE mt_aff_pool *MT_SELF(pool_of)(void *p)
{
    mt_aff_seg *seg = MT_SELF(seg_of)(p);
    mt_aff_pool *pool = mt_load_acquire((_Atomic(mt_aff_pool *) *)&seg->pool);
    char *first = (char *)seg + MT_AFF_SEG_HEADER;
    /* off is a multiple of size iff off * ceil(2^64 / size), wrapped, is
     * below the magic (exact for offsets and sizes below 2^32) */
    if (MT_UNLIKELY(!pool || (char *)p < first ||
                    (uint64_t)((char *)p - first) * pool->size_magic >= pool->size_magic))
        return NULL;
    return pool;
}

MT_INLINE size_t MT_SELF(pool_usable)(void *p)
{
    mt_aff_pool *pool = MT_SELF(pool_of)(p);
    return pool ? pool->size : 0;
}

MT_SLOW void MT_SELF(pool_free_slow)(mt_aff_pool *pool, mt_aff_seg *seg)
{
    /* pool lock held; seg is not current and just had an object freed */
    mt_aff_seg *give = NULL;
    if (seg->live == 0) {
        if (seg->listed) {
            if (seg->prev)
                seg->prev->next = seg->next;
            else
                pool->partial = seg->next;
            if (seg->next)
                seg->next->prev = seg->prev;
            seg->listed = false;
        }
        mt_store_relaxed((_Atomic(mt_aff_pool *) *)&seg->pool, NULL);
        pool->segments--;
        pool->segments_given++;
        give = seg;
    } else if (!seg->listed) {
        seg->prev = NULL;
        seg->next = pool->partial;
        if (seg->next)
            seg->next->prev = seg;
        pool->partial = seg;
        seg->listed = true;
    }
    mt_sync_spinlock_unlock(&pool->lock);
    if (give)
        MT_SELF(segment_give)(give);
}

static __attribute__((noinline)) void MT_SELF(pool_free)(void *p)
{
    mt_aff_pool *pool = MT_SELF(pool_of)(p);
    if (MT_UNLIKELY(!pool))
        return;
    mt_aff_seg *seg = MT_SELF(seg_of)(p);
    mt_sync_spinlock_lock(&pool->lock);
    *(void **)p = seg->free;
    seg->free = p;
    seg->live--;
    if (MT_UNLIKELY(seg != pool->cur) && (seg->live == 0 || !seg->listed)) {
        MT_SELF(pool_free_slow)(pool, seg);
        return;
    }
    mt_sync_spinlock_unlock(&pool->lock);
}

/* state lock held: a new pool for objects of `size` bytes, or NULL */
MT_UNUSED static mt_aff_pool *MT_SELF(pool_new)(size_t size, uint32_t root)
{
    if (MT_SELF(state).pools == MT_AFF_GROUPS)
        return NULL;
    mt_aff_pool *pool = &MT_SELF(state).pool[MT_SELF(state).pools++];
    pool->size = mt_align_up(size ? size : 1, MT_MIN_ALIGN);
    pool->size_magic = UINT64_MAX / pool->size + 1;
    pool->root = root;
    pool->scan_at = 2;
    return pool;
}

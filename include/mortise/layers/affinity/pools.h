/* mortise/layers/affinity/pools.h — affinity_pool's pools: 64 KiB spans
 * from the layer below cut into segments, each segment owned by one thread
 * and one pool at a time (a template fragment of layers/affinity_pool.h).
 *
 * A thread allocates from its current segment of a pool: a pop of the
 * segment's free list, threaded through the whole segment in address order
 * when the segment is taken (so a group's consecutive objects lie side by
 * side). The owner's frees push onto the same list; other threads' frees
 * push onto the segment's remote stack (a compare-and-swap loop), which the
 * owner takes whole with one exchange when it looks at the segment. When
 * the current segment runs dry the thread looks at a few of its other
 * segments of the pool (a ring, fronted by those the owner freed into),
 * then at segments abandoned by exited threads, then takes a fresh one. A
 * segment the owner empties goes back to its span at once unless it is
 * current; a span with no segment in use goes back below. At thread exit
 * the thread's empty segments go back and the others are abandoned to
 * their pool: frees into them take the pool's lock, the last one gives the
 * segment back, and a thread that runs dry adopts them. */

#define MT_AFF_SPAN_FULL \
    (MT_AFF_SEGS_PER_SPAN == 64 ? ~(uint64_t)0 : (((uint64_t)1 << MT_AFF_SEGS_PER_SPAN) - 1))
_Static_assert(MT_GRANULE / MT_SEGMENT_SIZE <= 64, "a span's segments fit its bitmap");

/* The header of the segment holding p, from its span's page-map payload. */
MT_INLINE mt_aff_seg *affinity_pool_seg_at(const void *p, uintptr_t meta)
{
    return (mt_aff_seg *)mt_payload_ptr(meta) +
           (((uintptr_t)p / MT_SEGMENT_SIZE) & (MT_AFF_SEGS_PER_SPAN - 1));
}

MT_INLINE uint32_t affinity_pool_seg_index(const mt_aff_seg *h)
{
    return (uint32_t)(h - &affinity_pool_segs[0][0]);
}

MT_INLINE char *affinity_pool_seg_base(const mt_aff_seg *h)
{
    uint32_t i = affinity_pool_seg_index(h);
    return affinity_pool_state.span[i / MT_AFF_SEGS_PER_SPAN].base +
           (size_t)(i % MT_AFF_SEGS_PER_SPAN) * MT_SEGMENT_SIZE;
}

MT_INLINE uint32_t affinity_pool_pool_index(const mt_aff_pool *pool)
{
    return (uint32_t)(pool - affinity_pool_state.pool);
}

/* A segment's pool, NULL while it is free. */
MT_INLINE mt_aff_pool *affinity_pool_seg_pool(const mt_aff_seg *h)
{
    return h->pool ? &affinity_pool_state.pool[h->pool - 1] : NULL;
}

/* Is p an object start of a segment of the pool with this magic? With
 * magic = ceil(2^32 / size) = (2^32 + e) / size, e < size, an offset
 * k * size + r gives k * e + r * magic, wrapped to 32 bits: below the
 * segment size when r = 0 (k * e < k * size), at least the magic (at least
 * 2^22, above any segment size) when it is not, for sizes up to 1024 and
 * segments up to 64 KiB. One multiply and a compare with a constant. */
_Static_assert(MT_MAX_POOLED_SIZE <= 1024 && MT_SEGMENT_SIZE <= ((size_t)64 << 10),
               "affinity_pool: the object-start test's bounds");
MT_INLINE bool affinity_pool_object_ok(const void *p, uint32_t magic)
{
    return (uint32_t)((uint32_t)((uintptr_t)p & (MT_SEGMENT_SIZE - 1)) * magic) < MT_SEGMENT_SIZE;
}

/* A segment's objects out: what its owner may still free before the next
 * note, and what is out then. */
MT_INLINE uint32_t affinity_pool_out(const mt_aff_seg *h) { return (uint32_t)h->frees_left + h->out_at_note; }

/* The next note when the last of out objects comes back. */
MT_INLINE void affinity_pool_note_at_empty(mt_aff_seg *h, uint32_t out)
{
    h->frees_left = (uint16_t)out;
    h->out_at_note = 0;
}

/* A used-up segment (all out) in the ring: the next note at its first free,
 * which makes it the next one the refill looks at. */
MT_INLINE void affinity_pool_note_at_first_free(mt_aff_seg *h, uint32_t out)
{
    h->frees_left = 1;
    h->out_at_note = (uint16_t)(out - 1);
}

/* The current segment: no count (the malloc fast path keeps none), a note
 * only after this many frees, to renew it. */
MT_INLINE void affinity_pool_note_never(mt_aff_seg *h)
{
    h->frees_left = UINT16_MAX;
    h->out_at_note = 0;
}

/* The calling thread's owner mark: on x86-64 Linux its thread pointer,
 * one load with no TLS offset from the GOT (a thread that ended without
 * thread_exit leaves its segments marked with an address a later thread
 * may get: that thread's frees into them stay plain list operations, and
 * their ring links are never touched, as gen differs); else its id. */
MT_INLINE uintptr_t affinity_pool_me(void)
{
#if MT_AFF_TP_REL
    return mt_aff_thread_pointer();
#else
    return affinity_pool_tl.id;
#endif
}

/* spans_lock held: unlink span i from the list of spans with a free segment */
MT_UNUSED static void affinity_pool_span_unlist(int32_t i)
{
    mt_aff_span *s = &affinity_pool_state.span[i];
    if (!s->listed)
        return;
    if (s->prev)
        affinity_pool_state.span[s->prev - 1].next = s->next;
    else
        affinity_pool_state.spans_free_head = s->next;
    if (s->next)
        affinity_pool_state.span[s->next - 1].prev = s->prev;
    s->listed = false;
}
MT_UNUSED static void affinity_pool_span_list(int32_t i)
{
    mt_aff_span *s = &affinity_pool_state.span[i];
    s->prev = 0;
    s->next = affinity_pool_state.spans_free_head;
    if (s->next)
        affinity_pool_state.span[s->next - 1].prev = i + 1;
    affinity_pool_state.spans_free_head = i + 1;
    s->listed = true;
}

/* spans_lock held: a new span from below, or -1 */
MT_UNUSED static int32_t affinity_pool_span_new(void)
{
    int32_t i = affinity_pool_state.spans_spare - 1;
    if (i < 0 && affinity_pool_state.spans_high < MT_AFF_SPANS)
        i = (int32_t)affinity_pool_state.spans_high;
    if (i < 0)
        return -1;
    mt_ctx c = mt_ctx_for_alloc(MT_GRANULE, MT_GRANULE);
    char *base = MT_BELOW(alloc)(&c);
    if (!base)
        return -1;
    if ((uint32_t)i == affinity_pool_state.spans_high)
        affinity_pool_state.spans_high++;
    else
        affinity_pool_state.spans_spare = affinity_pool_state.span[i].next;
    for (uint32_t k = 0; k < MT_AFF_SEGS_PER_SPAN; k++)
        mt_store_relaxed(&affinity_pool_segs[i][k].owner, MT_AFF_OWNER_NONE);
    mt_aff_span *s = &affinity_pool_state.span[i];
    s->base = base;
    s->used = s->reserved = 0;
    s->prev_entry = mt_span_claim(base, MT_GRANULE, MT_SELF_ID, mt_payload_of(&affinity_pool_segs[i][0]));
    affinity_pool_state.spans_taken++;
    affinity_pool_span_list(i);
    return i;
}

/* spans_lock held: where pool's next segment goes, span i and segment *k;
 * -1 when the layer below refuses a span. The segment after the pool's
 * last one when it is free, so a pool growing beside others keeps runs of
 * neighbouring segments. Else a free segment of the first span with one,
 * searched from an offset that depends on the pool and the span: pools
 * growing in step would otherwise keep the same offsets in every span,
 * and fill only a share of the sets of a cache indexed by address (a
 * 2 MiB 16-way cache repeats its sets every 128 KiB, two spans; with
 * transparent huge pages, physical addresses repeat the pattern). A pool
 * past a span's worth of segments takes a fresh span of its own instead,
 * off the list and its other segments reserved: a large pool's walk then
 * crosses 64 KiB stretches, not runs of 4 segments among other pools'. */
MT_UNUSED static int32_t affinity_pool_segment_place(const mt_aff_pool *pool, unsigned *k)
{
    if (pool->next_span && pool->next_seg < MT_AFF_SEGS_PER_SPAN) {
        const mt_aff_span *c = &affinity_pool_state.span[pool->next_span - 1];
        if (c->base && !((c->used >> pool->next_seg) & 1)) {
            *k = pool->next_seg;
            return pool->next_span - 1;
        }
    }
    if (pool->placed >= MT_AFF_SEGS_PER_SPAN) {
        int32_t w = affinity_pool_span_new();
        if (w >= 0) {
            mt_aff_span *s = &affinity_pool_state.span[w];
            affinity_pool_span_unlist(w);
            s->reserved = MT_AFF_SPAN_FULL & ~(uint64_t)1;
            *k = 0;
            return w;
        }
    }
    int32_t i = affinity_pool_state.spans_free_head - 1;
    if (i < 0)
        i = affinity_pool_span_new();
    if (i < 0)
        return -1;
    uint64_t mix = ((uint64_t)affinity_pool_pool_index(pool) << 32 | (uint32_t)i) * 0x9E3779B97F4A7C15ull;
    unsigned start = (unsigned)(mix >> 58) % MT_AFF_SEGS_PER_SPAN;
    mt_aff_span *s = &affinity_pool_state.span[i];
    /* First a segment that starts a run: free, not reserved by another
     * pool's run, and so is the one after it; the run's next segments are
     * reserved for this pool (two pools growing in step would otherwise
     * take each other's next segment in turn). Then any free segment. */
    uint64_t taken = s->used | s->reserved;
    unsigned any = MT_AFF_SEGS_PER_SPAN;
    for (unsigned j = 0; j < MT_AFF_SEGS_PER_SPAN; j++) {
        unsigned at = (start + j) % MT_AFF_SEGS_PER_SPAN;
        if (any == MT_AFF_SEGS_PER_SPAN && !((s->used >> at) & 1))
            any = at;
        if (at + 1 < MT_AFF_SEGS_PER_SPAN && !((taken >> at) & 3)) {
            for (unsigned r = at + 1; r < at + MT_AFF_RUN && r < MT_AFF_SEGS_PER_SPAN && !((taken >> r) & 1);
                 r++)
                s->reserved |= (uint64_t)1 << r;
            *k = at;
            return i;
        }
    }
    *k = any; /* a listed span has a free segment */
    return i;
}

/* A free segment for `pool`, owned by the calling thread, its objects all on
 * its free list; NULL when the layer below refuses. */
MT_SLOW mt_aff_seg *affinity_pool_segment_take(mt_aff_pool *pool)
{
    mt_sync_spinlock_lock(&affinity_pool_state.spans_lock);
    unsigned k = 0;
    int32_t i = affinity_pool_segment_place(pool, &k);
    if (i < 0) {
        mt_sync_spinlock_unlock(&affinity_pool_state.spans_lock);
        return NULL;
    }
    pool->next_span = i + 1;
    pool->next_seg = k + 1;
    if (pool->placed < MT_AFF_SEGS_PER_SPAN)
        pool->placed++;
    mt_aff_span *s = &affinity_pool_state.span[i];
    s->used |= (uint64_t)1 << k;
    s->reserved &= ~((uint64_t)1 << k);
    if (s->used == MT_AFF_SPAN_FULL)
        affinity_pool_span_unlist(i);
    char *base = s->base + (size_t)k * MT_SEGMENT_SIZE;
    mt_sync_spinlock_unlock(&affinity_pool_state.spans_lock);

    mt_aff_seg *h = &affinity_pool_segs[i][k];
    size_t n = MT_SEGMENT_SIZE / pool->size;
    for (size_t j = 0; j + 1 < n; j++)
        *(void **)(base + j * pool->size) = base + (j + 1) * pool->size;
    *(void **)(base + (n - 1) * pool->size) = NULL;
    h->free = base;
    affinity_pool_note_never(h);
    h->size = pool->size;
    h->magic = pool->size_magic;
    h->gen = (uint32_t)affinity_pool_tl.id;
    mt_store_relaxed(&h->remote, NULL);
    h->pool = (uint16_t)(affinity_pool_pool_index(pool) + 1);
    h->next = h->prev = NULL;
    mt_store_release(&h->owner, affinity_pool_me());
    mt_sync_spinlock_lock(&pool->lock);
    pool->segments++;
    pool->segments_taken++;
    if (pool->segments > pool->peak)
        pool->peak = pool->segments;
    mt_sync_spinlock_unlock(&pool->lock);
    return h;
}

/* An empty segment back to its span; the span back below when all of its
 * segments are free. Pool lock not held. */
MT_SLOW void affinity_pool_segment_give(mt_aff_seg *h)
{
    mt_aff_pool *pool = affinity_pool_seg_pool(h);
    mt_sync_spinlock_lock(&pool->lock);
    pool->segments--;
    pool->segments_given++;
    mt_sync_spinlock_unlock(&pool->lock);
    h->pool = 0;
    h->size = 0;
    h->magic = 0;
    h->gen = 0;
    h->free = NULL;
    mt_store_relaxed(&h->remote, NULL);
    mt_store_release(&h->owner, MT_AFF_OWNER_NONE);
    uint32_t idx = affinity_pool_seg_index(h);
    int32_t i = (int32_t)(idx / MT_AFF_SEGS_PER_SPAN);
    unsigned k = idx % MT_AFF_SEGS_PER_SPAN;
    mt_sync_spinlock_lock(&affinity_pool_state.spans_lock);
    mt_aff_span *s = &affinity_pool_state.span[i];
    s->used &= ~((uint64_t)1 << k);
    if (!s->listed)
        affinity_pool_span_list(i);
    if (!s->used) {
        affinity_pool_span_unlist(i);
        char *base = s->base;
        s->base = NULL;
        s->next = affinity_pool_state.spans_spare;
        affinity_pool_state.spans_spare = i + 1;
        affinity_pool_state.spans_given++;
        mt_span_release(base, MT_GRANULE, s->prev_entry, MT_BELOW(free));
    }
    mt_sync_spinlock_unlock(&affinity_pool_state.spans_lock);
}

/* The current segment stops being current other than by running dry: its
 * count, from the objects on its free list. */
MT_SLOW void affinity_pool_recount(mt_aff_seg *h)
{
    uint32_t n = 0;
    for (void *f = h->free; f; f = *(void **)f)
        n++;
    affinity_pool_note_at_empty(h, (uint32_t)(MT_SEGMENT_SIZE / h->size - n));
}

/* The owner (or, for an abandoned segment, the holder of its pool's lock)
 * takes the remote frees: one exchange, then a walk to count them. */
MT_INLINE void affinity_pool_collect(mt_aff_seg *h)
{
    if (!mt_load_relaxed(&h->remote))
        return;
    void *r = atomic_exchange_explicit(&h->remote, NULL, memory_order_acquire);
    if (!r)
        return;
    uint32_t n = 1;
    void *tail = r;
    while (*(void **)tail) {
        tail = *(void **)tail;
        n++;
    }
    *(void **)tail = h->free;
    h->free = r;
    affinity_pool_note_at_empty(h, affinity_pool_out(h) - n);
}

/* The thread's ring of a pool's other segments (circular, doubly linked). */
MT_INLINE void affinity_pool_ring_push_back(uint32_t k, mt_aff_seg *s)
{
    mt_aff_seg *head = affinity_pool_tl.ring[k];
    if (!head) {
        s->next = s->prev = s;
        affinity_pool_tl.ring[k] = s;
        return;
    }
    s->next = head;
    s->prev = head->prev;
    head->prev->next = s;
    head->prev = s;
}
MT_INLINE void affinity_pool_ring_remove(uint32_t k, mt_aff_seg *s)
{
    if (s->next == s) {
        affinity_pool_tl.ring[k] = NULL;
    } else {
        s->prev->next = s->next;
        s->next->prev = s->prev;
        if (affinity_pool_tl.ring[k] == s)
            affinity_pool_tl.ring[k] = s->next;
    }
    s->next = s->prev = NULL;
}

/* The thread's start: its owner id (create runs it; a socket without
 * threads starts the thread on its first refill). */
MT_UNUSED static void affinity_pool_begin(void)
{
    affinity_pool_tl.id = mt_faa(&affinity_pool_state.thread_ids, 1) + 2; /* never 0 or OWNER_NONE */
    affinity_pool_tl.state = affinity_pool_tl_on;
}
MT_SLOW bool affinity_pool_start(void)
{
    if (affinity_pool_tl.state == affinity_pool_tl_new) {
        mt_thread_attach(); /* runs create, which begins the thread */
        if (affinity_pool_tl.state == affinity_pool_tl_new)
            affinity_pool_begin();
    }
    return affinity_pool_tl.state == affinity_pool_tl_on;
}

/* The fast path: an object of the thread's current segment, NULL if none. */
MT_INLINE void *affinity_pool_pool_pop(mt_aff_pool *pool)
{
    mt_aff_seg *h = affinity_pool_tl.cur[affinity_pool_pool_index(pool)];
    void *p = h->free;
    if (MT_LIKELY(p != NULL))
        h->free = *(void **)p;
    return p;
}

/* An abandoned segment of pool for the calling thread, or NULL. */
MT_SLOW mt_aff_seg *affinity_pool_adopt(mt_aff_pool *pool)
{
    if (!mt_load_relaxed(&pool->abandoned)) /* a peek: a miss only takes a fresh segment */
        return NULL;
    mt_sync_spinlock_lock(&pool->lock);
    mt_aff_seg *s = mt_load_relaxed(&pool->abandoned);
    if (s) {
        mt_store_relaxed(&pool->abandoned, s->next);
        if (s->next)
            s->next->prev = NULL;
        s->next = s->prev = NULL;
        s->gen = (uint32_t)affinity_pool_tl.id;
        mt_store_release(&s->owner, affinity_pool_me());
    }
    mt_sync_spinlock_unlock(&pool->lock);
    if (s)
        affinity_pool_collect(s);
    return s;
}

/* The current segment ran dry: its remote frees, else another segment of
 * the thread's with free objects, else an abandoned one, else a fresh one.
 * NULL when the thread has ended or the layer below refuses. */
MT_SLOW void *affinity_pool_pool_refill(mt_aff_pool *pool)
{
    if (MT_UNLIKELY(affinity_pool_tl.state != affinity_pool_tl_on) && !affinity_pool_start())
        return NULL;
    uint32_t k = affinity_pool_pool_index(pool);
    mt_aff_seg *h = affinity_pool_tl.cur[k], *s = NULL;
    if (h != &affinity_pool_none) {
        affinity_pool_collect(h);
        if (h->free) {
            affinity_pool_note_never(h);
            return affinity_pool_pool_pop(pool);
        }
    }
    for (unsigned i = 0; i < MT_AFF_LOOK && !s && affinity_pool_tl.ring[k]; i++) {
        mt_aff_seg *t = affinity_pool_tl.ring[k];
        affinity_pool_collect(t);
        if (t->free) {
            affinity_pool_ring_remove(k, t);
            s = t;
        } else
            affinity_pool_tl.ring[k] = t->next; /* to the back */
    }
    for (unsigned i = 0; i < MT_AFF_LOOK && !s; i++) {
        mt_aff_seg *t = affinity_pool_adopt(pool);
        if (!t)
            break;
        if (t->free)
            s = t;
        else
            affinity_pool_note_at_first_free(t, affinity_pool_out(t)), affinity_pool_ring_push_back(k, t);
    }
    if (!s) {
        s = affinity_pool_segment_take(pool);
        if (!s)
            return NULL;
    }
    if (h != &affinity_pool_none) {
        affinity_pool_note_at_first_free(h, (uint32_t)(MT_SEGMENT_SIZE / h->size)); /* used up: all out */
        affinity_pool_ring_push_back(k, h);
    }
    affinity_pool_note_never(s);
    affinity_pool_tl.cur[k] = s;
    return affinity_pool_pool_pop(pool);
}

MT_INLINE void *affinity_pool_pool_alloc(mt_aff_pool *pool)
{
    void *p = affinity_pool_pool_pop(pool);
    return p ? p : affinity_pool_pool_refill(pool);
}

/* The pool of an object start handed out by a live segment, else NULL (a
 * pointer into a span of ours that is not one is bad input: ignored). */
MT_INLINE mt_aff_pool *affinity_pool_pool_of(void *p, uintptr_t meta)
{
    mt_aff_seg *h = affinity_pool_seg_at(p, meta);
    mt_aff_pool *pool = affinity_pool_seg_pool(h);
    return pool && affinity_pool_object_ok(p, pool->size_magic) ? pool : NULL;
}

MT_INLINE size_t affinity_pool_pool_usable(void *p, uintptr_t meta)
{
    mt_aff_pool *pool = affinity_pool_pool_of(p, meta);
    return pool ? pool->size : 0;
}

/* The owner freed into h, which just became empty or had no free object:
 * a segment other than the current one goes back when empty, else to the
 * front of the ring, where the next refill finds it. */
MT_SLOW void affinity_pool_free_note(mt_aff_seg *h)
{
    uint32_t k = h->pool - 1;
    if (h == affinity_pool_tl.cur[k] || h->gen != (uint32_t)affinity_pool_tl.id) {
        affinity_pool_note_never(h); /* current, or left by an ended thread whose mark this thread has */
        return;
    }
    uint32_t out = h->out_at_note;
    affinity_pool_ring_remove(k, h);
    if (!out) {
        affinity_pool_segment_give(h);
        return;
    }
    affinity_pool_note_at_empty(h, out);
    affinity_pool_ring_push_back(k, h);
    affinity_pool_tl.ring[k] = h;
}

/* A free by a thread that does not own the segment: a push onto its remote
 * stack; into an abandoned segment, under its pool's lock, straight onto its
 * free list, and the last one gives the segment back. */
MT_NOINLINE_HOT void affinity_pool_free_other(mt_aff_seg *h, void *p)
{
    mt_aff_pool *pool = affinity_pool_seg_pool(h);
    if (MT_UNLIKELY(!pool || !affinity_pool_object_ok(p, pool->size_magic)))
        return;
    if (mt_load_acquire(&h->owner) == MT_AFF_OWNER_NONE) {
        mt_sync_spinlock_lock(&pool->lock);
        if (mt_load_relaxed(&h->owner) == MT_AFF_OWNER_NONE) {
            *(void **)p = h->free;
            h->free = p;
            affinity_pool_note_at_empty(h, affinity_pool_out(h) - 1);
            affinity_pool_collect(h);
            bool empty = !affinity_pool_out(h);
            if (empty) {
                if (h->prev)
                    h->prev->next = h->next;
                else
                    mt_store_relaxed(&pool->abandoned, h->next);
                if (h->next)
                    h->next->prev = h->prev;
                h->next = h->prev = NULL;
            }
            mt_sync_spinlock_unlock(&pool->lock);
            if (empty)
                affinity_pool_segment_give(h);
            return;
        }
        mt_sync_spinlock_unlock(&pool->lock);
    }
    void *old = mt_load_relaxed(&h->remote);
    do
        *(void **)p = old;
    while (!atomic_compare_exchange_weak_explicit(&h->remote, &old, p, memory_order_release,
                                                  memory_order_relaxed));
}

/* The free fast path: an object of a segment the calling thread owns goes
 * on the segment's free list, no atomic operation. */
MT_INLINE void affinity_pool_pool_free(void *p, uintptr_t meta)
{
    mt_aff_seg *h = affinity_pool_seg_at(p, meta);
#if MT_AFF_TP_REL
    bool mine = mt_aff_is_thread_pointer(mt_load_relaxed(&h->owner));
#else
    bool mine = mt_load_relaxed(&h->owner) == affinity_pool_me();
#endif
    if (MT_UNLIKELY(!mine)) {
        affinity_pool_free_other(h, p);
        return;
    }
    if (MT_UNLIKELY(!affinity_pool_object_ok(p, h->magic)))
        return; /* inside an object: ignored, as every trunk's free does */
    *(void **)p = h->free;
    h->free = p;
    if (MT_UNLIKELY(--h->frees_left == 0))
        affinity_pool_free_note(h);
}

/* thread_exit: the thread's empty segments go back, the others are
 * abandoned to their pools (frees into them take the pool's lock; a thread
 * that runs dry adopts them). Later requests of the thread go below. */
MT_SLOW void affinity_pool_abandon_all(void)
{
    int was = affinity_pool_tl.state;
    affinity_pool_tl.state = affinity_pool_tl_off;
    if (was != affinity_pool_tl_on)
        return;
    for (uint32_t k = 0; k < MT_AFF_POOLS; k++) {
        mt_aff_seg *h = affinity_pool_tl.cur[k];
        affinity_pool_tl.cur[k] = &affinity_pool_none;
        if (h != &affinity_pool_none) {
            affinity_pool_collect(h);
            affinity_pool_recount(h);
        }
        if (h == &affinity_pool_none)
            h = affinity_pool_tl.ring[k];
        else if (affinity_pool_tl.ring[k])
            affinity_pool_ring_push_back(k, h), h = affinity_pool_tl.ring[k];
        else
            h->next = NULL;
        if (h && h->prev)
            h->prev->next = NULL; /* the ring as a list */
        affinity_pool_tl.ring[k] = NULL;
        while (h) {
            mt_aff_seg *next = h->next;
            mt_aff_pool *pool = affinity_pool_seg_pool(h);
            affinity_pool_collect(h);
            if (!affinity_pool_out(h)) {
                affinity_pool_segment_give(h);
            } else {
                mt_sync_spinlock_lock(&pool->lock);
                mt_store_release(&h->owner, MT_AFF_OWNER_NONE);
                affinity_pool_collect(h); /* frees pushed before they saw NONE */
                h->prev = NULL;
                h->next = mt_load_relaxed(&pool->abandoned);
                if (h->next)
                    h->next->prev = h;
                mt_store_relaxed(&pool->abandoned, h);
                mt_sync_spinlock_unlock(&pool->lock);
            }
            h = next;
        }
    }
}

/* state lock held: a new pool for objects of `size` bytes, or NULL */
MT_UNUSED static mt_aff_pool *affinity_pool_pool_new(size_t size, uint32_t root)
{
    if (affinity_pool_state.pools == MT_AFF_POOLS)
        return NULL;
    mt_aff_pool *pool = &affinity_pool_state.pool[affinity_pool_state.pools++];
    pool->size = mt_align_up(size ? size : 1, MT_MIN_ALIGN);
    pool->size_magic = (uint32_t)(UINT32_MAX / pool->size + 1);
    pool->root = root;
    pool->born = affinity_pool_state.rechecks;
    return pool;
}

/* A pool's segments held now (its lock orders the read). */
MT_UNUSED static uint32_t affinity_pool_pool_segments(mt_aff_pool *pool)
{
    mt_sync_spinlock_lock(&pool->lock);
    uint32_t n = pool->segments;
    mt_sync_spinlock_unlock(&pool->lock);
    return n;
}

/* A direct site decided "pooled, into pool": the site's word, and the fast
 * path's entry at its return address's low bits (again, after an eviction,
 * or when a merge moves the site to another pool). */
MT_UNUSED static void affinity_pool_mark_pooled(mt_aff_site *s, mt_aff_pool *pool)
{
    mt_store_release(&s->fast, (uintptr_t)pool);
    uintptr_t ra = mt_load_relaxed(&s->ra);
    uintptr_t slot = mt_aff_plain_slot(ra);
    uintptr_t word = affinity_pool_pool_index(pool);
#if MT_AFF_TP_REL
    word = (uintptr_t)&affinity_pool_tl.cur[word] - mt_aff_thread_pointer();
#endif
    if (mt_load_relaxed(&MT_AFF_SITE_AT(slot)) == ~ra && mt_load_relaxed(&MT_AFF_POOL_AT(slot)) == word)
        return;
    mt_store_relaxed(&MT_AFF_SITE_AT(slot), 0);
    mt_store_release(&MT_AFF_POOL_AT(slot), word);
    mt_store_release(&MT_AFF_SITE_AT(slot), ~ra);
}

/* The thread's current segment of the pool a fast-path entry names. */
MT_INLINE mt_aff_seg *affinity_pool_cur_of(uintptr_t word)
{
#if MT_AFF_TP_REL
    return (mt_aff_seg *)mt_aff_tp_load(word);
#else
    return affinity_pool_tl.cur[word];
#endif
}

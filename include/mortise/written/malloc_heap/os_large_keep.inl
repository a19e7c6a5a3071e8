/* mortise/written/malloc_heap/os_large_keep.inl — os/large_keep.h written out for malloc_heap by
 * tools/layer_names.py; do not edit: edit os/large_keep.h, then run --write. */
/* mortise/os/large_keep.h — the large-block keep of the hosted OS layers
 * (slots large_keep and large_decay_ms of mmap_heap, brk_heap and virtual_alloc_heap).
 *
 * Why: an OS layer gives a freed block's pages back at once (munmap, or
 * MADV_DONTNEED for the ranges it keeps), so a program that frees and
 * allocates blocks of several MiB in a loop pays one page fault per page per
 * round: the time goes into the kernel zeroing pages, not into the program.
 * The keep holds on to recently freed large blocks with their pages and
 * hands them out again, bounded in bytes and in idle time, so the resident
 * set still falls back once the program stops asking.
 *
 * A template fragment, included by granule_owner.h (so inside an OS layer's
 * header, MT_NAME and MT_SELF_ID defined, after its alloc_chunk and
 * free_chunk). A layer that offers the keep defines before including
 * granule_owner.h (without MT_OS_KEEPS, alloc and free call alloc_chunk and
 * free_chunk as they always did):
 *   MT_OS_KEEPS        the layer has the keep (and an MT_OS_LOCK);
 *   MT_LARGE_KEEP      (optional: 96 MiB, the slot's default in every
 *                      layer that has it) bytes the keep may hold, any constant
 *                      expression (0: no keep; the wrappers fold to
 *                      always-inline calls of alloc_chunk and free_chunk, the
 *                      machine code of a layer without it);
 *   MT_LARGE_DECAY_MS  (optional: 1000) how long a kept block may stay
 *                      unused, in milliseconds (0: no limit);
 *   MT_SYNC            the policy of the keep's own lock;
 *   MT_OS_LARGE_GRANULES (optional) blocks longer than this many granules
 *                      count in mt_os_counters.large (mmap_heap's directly
 *                      mapped blocks); undefined: none do;
 *   MT_OS_GROWS        (optional) the layer can make a free block longer
 *                      keeping its pages, and defines before the include
 *                        bool malloc_heap_grows(size_t granules): can it, for a
 *                          block this long (one mapping of its own);
 *                        char *malloc_heap_grow_chunk(char *p, size_t granules,
 *                          size_t new_granules): the block, no longer in
 *                          the page map, made new_granules long in place or
 *                          moved, its pages with it and the tail fresh (the
 *                          layer's mapped counter included); NULL: refused,
 *                          the block unchanged (mmap_heap: mremap through
 *                          mt_pal_remap; a port without it refuses).
 * Tuning (not model slots): MT_LARGE_KEEP_MIN (64 KiB, one granule: every
 * block an OS layer hands out), the shortest block kept (an empty slab or a
 * 64 KiB block given back and asked for again at once would otherwise pay
 * an madvise, its page faults and, with threads on other cores, a TLB
 * shoot-down each time); MT_LARGE_KEEP_SLOTS (32), the most blocks kept at once;
 * MT_LARGE_KEEP_CAP (MT_LARGE_KEEP: the bound does not scale), the most the
 * bound scales to.
 *
 * Policy:
 *   - bound: MT_LARGE_KEEP, or, when more is in use, as many bytes as the OS
 *     layers have handed out and not taken back (mt_os_counters.handed_out
 *     without the block being freed), up to MT_LARGE_KEEP_CAP; set at each
 *     large free. So a program holding big buffers on several threads is
 *     served from the keep while holding at most twice what it uses, and once
 *     it has freed them the next free brings the bound back to MT_LARGE_KEEP.
 *     Off by default (cap = MT_LARGE_KEEP): a larger cap saves page faults
 *     on loops of large blocks but holds that much more memory.
 *   - free of a block of at least MT_LARGE_KEEP_MIN and at most the bound:
 *     its page-map entry is cleared (a second free finds nobody) and
 *     it joins the keep, merged with a kept block right before or after it
 *     (so a block split by an earlier reuse is whole again); the least
 *     recently freed blocks make room (back to the OS through free_chunk).
 *   - alloc of such a size: the smallest kept block that fits (and starts
 *     aligned as asked) is reused; a remainder of more than 1/8 of the
 *     request is split off (kept when it is MT_LARGE_KEEP_MIN or longer,
 *     else given back), a smaller one stays with the block. A reused block
 *     is not zero-filled: ctx->zeroed is left unset, so calloc clears it.
 *   - alloc longer than every kept block (MT_OS_GROWS, no alignment above a
 *     granule asked): the longest kept block the layer grows is grown to the
 *     request, so only its tail faults in, not the whole block (the misses of
 *     a loop of 1-8 MiB blocks were all of this kind: the next request longer
 *     than anything kept); refused (a merged block over two mappings): it
 *     stays kept and the request maps afresh.
 *   - decay: blocks unused for MT_LARGE_DECAY_MS go back (mt_pal_clock_ns;
 *     a port without a clock never decays them) at the next large free, and
 *     at any other alloc or free reaching the OS layer that the keep does
 *     not serve (a miss, the slab and span refills of the layers above) once
 *     the oldest block is due: one relaxed load while nothing is due. A
 *     program that stops reaching the OS layer altogether keeps at most the
 *     bound of its last large free (MT_LARGE_KEEP if it had freed its large
 *     blocks by then) until it next does, calls malloc_trim, or exits.
 *   - purge (malloc_trim) gives back everything kept.
 * Bound: kept bytes ≤ the bound set at the last large free, itself within
 *   [MT_LARGE_KEEP, MT_LARGE_KEEP_CAP], at every moment (checked by the check
 *   operation with the number of blocks, their sum, their extents and their
 *   page-map entries). Time: O(MT_LARGE_KEEP_SLOTS) under the keep's lock
 *   per large alloc or free; system calls (giving blocks back, growing one:
 *   at most three) run after the lock is released. Thread safety: one lock
 *   of its own (MT_SYNC), taken only here and never while the OS layer's
 *   lock is held (a grow runs with neither); fork_prepare
 *   takes it before the OS layer's lock (granule_owner.h), so a fork child
 *   finds the list consistent and the lock reset. Fails: never; a block it
 *   cannot keep goes back to the OS as before.
 * Counters: a kept block is mapped, neither handed out nor large, and not
 *   yet returned; mallinfo counts it in fordblks.
 */
#ifndef MT_LARGE_KEEP_MIN
#define MT_LARGE_KEEP_MIN ((size_t)64 << 10)
#endif
#ifndef MT_LARGE_KEEP_SLOTS
#define MT_LARGE_KEEP_SLOTS 32
#endif

#ifndef MORTISE_OS_LARGE_KEEP_TYPES
#define MORTISE_OS_LARGE_KEEP_TYPES
typedef struct {
    char *p;
    size_t granules;
    uint64_t stamp;
} mt_keep_entry;
typedef struct {
    char *p;
    size_t granules;
} mt_keep_range;
#endif

#if defined(MT_OS_KEEPS)
#if !defined(MT_OS_LOCK)
#error "large_keep: the OS layer names its lock (MT_OS_LOCK), so that fork holds the keep's lock too"
#endif

#ifndef MT_LARGE_KEEP
#define MT_LARGE_KEEP ((size_t)96 << 20)
#endif
#ifndef MT_LARGE_DECAY_MS
#define MT_LARGE_DECAY_MS 1000
#endif

_Static_assert(MT_LARGE_KEEP_MIN >= MT_GRANULE, "large_keep: MT_LARGE_KEEP_MIN is at least a granule");

#ifndef MT_LARGE_KEEP_CAP
#define MT_LARGE_KEEP_CAP MT_LARGE_KEEP
#endif

static struct {
    MT_SYNC_T(MT_SYNC) lock; /* zero-filled = unlocked (sync.h) */
    _Atomic(size_t) bytes;   /* sum of the entries' lengths: written under the lock, read without */
    _Atomic(uint64_t) due;   /* clock at which the oldest entry decays; 0: none */
    size_t limit;            /* the bound set at the last free (0: none yet, MT_LARGE_KEEP); under the lock */
    unsigned count;
    mt_keep_entry e[MT_LARGE_KEEP_SLOTS];
} malloc_heap_keep;

static const size_t malloc_heap_keep_max = (size_t)(MT_LARGE_KEEP);
static const size_t malloc_heap_keep_cap = (size_t)(MT_LARGE_KEEP_CAP) > (size_t)(MT_LARGE_KEEP)
                                            ? (size_t)(MT_LARGE_KEEP_CAP)
                                            : (size_t)(MT_LARGE_KEEP);
static const uint64_t malloc_heap_keep_decay_ns = (uint64_t)(MT_LARGE_DECAY_MS)*1000000u;

static void malloc_heap_keep_lock(void) { MT_SYNC_FN(MT_SYNC, lock)(&malloc_heap_keep.lock); }
static void malloc_heap_keep_unlock(void) { MT_SYNC_FN(MT_SYNC, unlock)(&malloc_heap_keep.lock); }

MT_INLINE bool malloc_heap_keep_fits(size_t len) { return len >= MT_LARGE_KEEP_MIN && len <= malloc_heap_keep_cap; }

/* The bound now: MT_LARGE_KEEP, or as many bytes as the OS layers have
 * handed out and not taken back (blocks in use, spans, slabs), up to
 * MT_LARGE_KEEP_CAP. A program that holds big buffers on several threads is
 * served from the keep, and at most doubles its footprint; once it has
 * freed them, the bound is MT_LARGE_KEEP again at the next free. */
static size_t malloc_heap_keep_bound(size_t leaving)
{
    size_t in_use = mt_load_relaxed(&mt_os_counters.handed_out);
    in_use = in_use > leaving ? in_use - leaving : 0;
    if (in_use > malloc_heap_keep_cap)
        in_use = malloc_heap_keep_cap;
    return in_use > malloc_heap_keep_max ? in_use : malloc_heap_keep_max;
}

/* Lock held: the bound last set by a free. */
static size_t malloc_heap_keep_limit(void)
{
    return malloc_heap_keep.limit ? malloc_heap_keep.limit : malloc_heap_keep_max;
}

/* What handing a block out or taking it back does to the counters: kept
 * bytes stay mapped but are neither handed out nor large. */
static void malloc_heap_keep_count(size_t granules, bool out)
{
    size_t len = granules << MT_GRANULE_SHIFT;
    bool large = false;
#ifdef MT_OS_LARGE_GRANULES
    large = granules > (size_t)(MT_OS_LARGE_GRANULES);
#endif
    if (out) {
        atomic_fetch_add(&mt_os_counters.handed_out, len);
        if (large)
            atomic_fetch_add(&mt_os_counters.large, len);
    } else {
        atomic_fetch_sub(&mt_os_counters.handed_out, len);
        if (large)
            atomic_fetch_sub(&mt_os_counters.large, len);
    }
}

/* Give ranges back to the OS, outside the lock. free_chunk does the
 * accounting of a handed-out block, so they are handed out for a moment. */
static void malloc_heap_keep_give_back(mt_keep_range *r, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        malloc_heap_keep_count(r[i].granules, true);
        malloc_heap_free_chunk(r[i].p, r[i].granules);
    }
}

/* Lock held: the kept bytes change by delta (modulo 2^64: a size_t). */
static void malloc_heap_keep_add(size_t delta)
{
    mt_store_relaxed(&malloc_heap_keep.bytes, mt_load_relaxed(&malloc_heap_keep.bytes) + delta);
}

/* Lock held: entry i leaves the keep (into out, if given). */
static void malloc_heap_keep_drop(unsigned i, mt_keep_range *out, unsigned *n)
{
    mt_keep_entry e = malloc_heap_keep.e[i];
    malloc_heap_keep.e[i] = malloc_heap_keep.e[--malloc_heap_keep.count];
    malloc_heap_keep_add(-(e.granules << MT_GRANULE_SHIFT));
    if (out)
        out[(*n)++] = (mt_keep_range){e.p, e.granules};
}

/* Lock held: the index of the least recently freed entry (count > 0). */
static unsigned malloc_heap_keep_oldest(void)
{
    unsigned old = 0;
    for (unsigned i = 1; i < malloc_heap_keep.count; i++)
        if (malloc_heap_keep.e[i].stamp < malloc_heap_keep.e[old].stamp)
            old = i;
    return old;
}

/* Lock held: drop the entries unused for the decay time, then note when the
 * next one is due (never later than it is: nothing is due before then). */
static void malloc_heap_keep_expire(uint64_t now, mt_keep_range *out, unsigned *n)
{
    if (!malloc_heap_keep_decay_ns || now < mt_load_relaxed(&malloc_heap_keep.due))
        return;
    for (unsigned i = 0; i < malloc_heap_keep.count;)
        if (now >= malloc_heap_keep.e[i].stamp && now - malloc_heap_keep.e[i].stamp >= malloc_heap_keep_decay_ns)
            malloc_heap_keep_drop(i, out, n);
        else
            i++;
    uint64_t due = 0;
    if (malloc_heap_keep.count)
        due = malloc_heap_keep.e[malloc_heap_keep_oldest()].stamp + malloc_heap_keep_decay_ns;
    mt_store_relaxed(&malloc_heap_keep.due, due);
}

/* Any slow path of the OS layer: give back what has decayed. */
static void malloc_heap_keep_tick(void)
{
    uint64_t due = mt_load_relaxed(&malloc_heap_keep.due), now;
    if (!due || (now = mt_pal_clock_ns()) < due)
        return;
    mt_keep_range out[MT_LARGE_KEEP_SLOTS];
    unsigned n = 0;
    malloc_heap_keep_lock();
    malloc_heap_keep_expire(now, out, &n);
    malloc_heap_keep_unlock();
    malloc_heap_keep_give_back(out, n);
}

/* The keep's invariants, under its lock: NULL if they hold. */
static const char *malloc_heap_keep_invariants(void)
{
    const char *broken = NULL;
    size_t sum = 0;
    malloc_heap_keep_lock();
    unsigned count = malloc_heap_keep.count;
    if (count > MT_LARGE_KEEP_SLOTS)
        broken = MT_STR(MT_NAME) ": large_keep count above its slots";
    for (unsigned i = 0; !broken && i < count; i++) {
        const mt_keep_entry *e = &malloc_heap_keep.e[i];
        size_t len = e->granules << MT_GRANULE_SHIFT;
        if (((uintptr_t)e->p & (MT_GRANULE - 1)) || len < MT_LARGE_KEEP_MIN || len > malloc_heap_keep_limit())
            broken = MT_STR(MT_NAME) ": large_keep block misaligned or out of its size range";
        else if (mt_entry_owner(mt_pagemap_get(e->p)))
            broken = MT_STR(MT_NAME) ": large_keep block still owned in the page map";
        for (unsigned j = 0; !broken && j < i; j++) {
            const mt_keep_entry *f = &malloc_heap_keep.e[j];
            if (f->p < e->p + len && e->p < f->p + (f->granules << MT_GRANULE_SHIFT))
                broken = MT_STR(MT_NAME) ": large_keep blocks overlap";
        }
        sum += len;
    }
    if (!broken && sum != mt_load_relaxed(&malloc_heap_keep.bytes))
        broken = MT_STR(MT_NAME) ": large_keep bytes differ from its blocks' sum";
    if (!broken && sum > malloc_heap_keep_limit())
        broken = MT_STR(MT_NAME) ": large_keep holds more than its bound";
    if (!broken && (malloc_heap_keep_limit() < malloc_heap_keep_max || malloc_heap_keep_limit() > malloc_heap_keep_cap))
        broken = MT_STR(MT_NAME) ": large_keep bound outside [large_keep, MT_LARGE_KEEP_CAP]";
    malloc_heap_keep_unlock();
    return broken;
}

/* Lock held: [p, granules), no longer a block, joins the keep under the
 * bound limit, merged with its kept neighbours; the least recently freed
 * entries make room (into out). */
static void malloc_heap_keep_hold(char *p, size_t granules, size_t limit, uint64_t now, mt_keep_range *out,
                               unsigned *n)
{
    size_t len = granules << MT_GRANULE_SHIFT;
    malloc_heap_keep.limit = limit;
    malloc_heap_keep_expire(now, out, n);
    /* whole again with the remainder of an earlier split, if both fit */
    for (unsigned i = 0; i < malloc_heap_keep.count;) {
        mt_keep_entry e = malloc_heap_keep.e[i];
        size_t elen = e.granules << MT_GRANULE_SHIFT;
        if ((e.p + elen == p || p + len == e.p) && len + elen <= limit) {
            malloc_heap_keep_drop(i, NULL, NULL);
            p = e.p < p ? e.p : p;
            granules += e.granules;
            len += elen;
        } else {
            i++;
        }
    }
    while (malloc_heap_keep.count && (malloc_heap_keep.count == MT_LARGE_KEEP_SLOTS ||
                                   mt_load_relaxed(&malloc_heap_keep.bytes) + len > limit))
        malloc_heap_keep_drop(malloc_heap_keep_oldest(), out, n);
    malloc_heap_keep.e[malloc_heap_keep.count++] = (mt_keep_entry){p, granules, now};
    malloc_heap_keep_add(len);
    /* clang-format off */
    if (malloc_heap_keep_decay_ns && !mt_load_relaxed(&malloc_heap_keep.due))
        mt_store_relaxed(&malloc_heap_keep.due, now + malloc_heap_keep_decay_ns);
    /* clang-format on */
}

#ifdef MT_OS_GROWS
/* Lock held: the longest kept block the OS layer can grow (count: none). */
static unsigned malloc_heap_keep_growable(void)
{
    unsigned best = malloc_heap_keep.count;
    for (unsigned i = 0; i < malloc_heap_keep.count; i++)
        if (malloc_heap_grows(malloc_heap_keep.e[i].granules) &&
            (best == malloc_heap_keep.count || malloc_heap_keep.e[i].granules > malloc_heap_keep.e[best].granules))
            best = i;
    return best;
}
#endif

/* A kept block for ctx, or NULL. No clock read on a hit: a hit is the keep
 * in use; what decays goes at the next free or miss (keep_put, keep_tick).
 * When every kept block is too short, what has decayed goes back, then the
 * longest one the OS layer can grow (MT_OS_GROWS: a remap) is grown to the
 * size asked: its pages stay, only the new tail is fresh. */
MT_SLOW void *malloc_heap_keep_take(mt_ctx *ctx)
{
    size_t len = mt_align_up(ctx->size ? ctx->size : 1, MT_GRANULE);
    size_t granules = len >> MT_GRANULE_SHIFT;
    if (!malloc_heap_keep_fits(len) || !mt_load_relaxed(&malloc_heap_keep.bytes))
        return NULL;
    size_t align = ctx->align > MT_GRANULE ? ctx->align : MT_GRANULE;
    mt_keep_range out[MT_LARGE_KEEP_SLOTS + 2]; /* a short rest, a block without a leaf, evictions */
    unsigned n = 0;
    char *p = NULL;
#ifdef MT_OS_GROWS
    mt_keep_entry grow = {0};
#endif
    malloc_heap_keep_lock();
    unsigned best = malloc_heap_keep.count;
    for (unsigned i = 0; i < malloc_heap_keep.count; i++) {
        mt_keep_entry *e = &malloc_heap_keep.e[i];
        if (e->granules >= granules && ((uintptr_t)e->p & (align - 1)) == 0 &&
            (best == malloc_heap_keep.count || e->granules < malloc_heap_keep.e[best].granules))
            best = i;
    }
    if (best < malloc_heap_keep.count) {
        mt_keep_entry *e = &malloc_heap_keep.e[best];
        size_t rest = e->granules - granules;
        p = e->p;
        if (rest * 8 <= granules) { /* a remainder this small stays with the block */
            granules = e->granules;
            malloc_heap_keep_drop(best, NULL, NULL);
        } else if (rest << MT_GRANULE_SHIFT >= MT_LARGE_KEEP_MIN) {
            e->p += len; /* the remainder stays kept, as idle as before */
            e->granules = rest;
            malloc_heap_keep_add(-len);
        } else {
            malloc_heap_keep_drop(best, NULL, NULL);
            out[n++] = (mt_keep_range){p + len, rest};
        }
    }
#ifdef MT_OS_GROWS
    else if (align == MT_GRANULE) {
        /* what has decayed goes first: a block idle past the decay must not
         * come back to life (with its pages) by being grown */
        malloc_heap_keep_expire(mt_pal_clock_ns(), out, &n);
        if ((best = malloc_heap_keep_growable()) < malloc_heap_keep.count) {
            grow = malloc_heap_keep.e[best];
            malloc_heap_keep_drop(best, NULL, NULL);
        }
    }
#endif
    malloc_heap_keep_unlock();
#ifdef MT_OS_GROWS
    if (grow.p && !(p = malloc_heap_grow_chunk(grow.p, grow.granules, granules))) {
        /* the OS would not remap it (a merged block over two mappings):
         * back into the keep, as idle as it was */
        malloc_heap_keep_lock();
        malloc_heap_keep_hold(grow.p, grow.granules, malloc_heap_keep_limit(), grow.stamp, out, &n);
        malloc_heap_keep_unlock();
    }
#endif
    if (p && !mt_pagemap_set_checked(p, MT_GRANULE, mt_entry(MT_SELF_ID, granules))) {
        out[n++] = (mt_keep_range){p, granules}; /* no leaf for it: let the OS layer try */
        p = NULL;
    }
    malloc_heap_keep_give_back(out, n);
    if (p)
        malloc_heap_keep_count(granules, true);
    MT_ASSERT_HOLDS(malloc_heap_keep_invariants());
    return p;
}

/* Does the keep hold a block that serves granules as it is (not grown)?
 * An OS layer growing a block asks before it remaps: copying into pages
 * already resident costs less than faulting in a fresh tail. */
MT_SLOW MT_UNUSED bool malloc_heap_keep_serves(size_t granules)
{
    bool found = false;
    if (!malloc_heap_keep_max || !mt_load_relaxed(&malloc_heap_keep.bytes))
        return false;
    malloc_heap_keep_lock();
    for (unsigned i = 0; i < malloc_heap_keep.count && !found; i++)
        found = malloc_heap_keep.e[i].granules >= granules;
    malloc_heap_keep_unlock();
    return found;
}

/* Keep the freed block [p, granules) if it is large; false: the caller
 * frees it as usual. */
MT_SLOW bool malloc_heap_keep_put(char *p, size_t granules)
{
    size_t len = granules << MT_GRANULE_SHIFT, limit;
    if (!malloc_heap_keep_fits(len) || len > (limit = malloc_heap_keep_bound(len)))
        return false;
    uint64_t now = mt_pal_clock_ns();
    mt_keep_range out[MT_LARGE_KEEP_SLOTS]; /* each kept block leaves at most once */
    unsigned n = 0;
    mt_pagemap_set(p, MT_GRANULE, 0); /* no longer a block: a second free finds nobody */
    malloc_heap_keep_count(granules, false);
    malloc_heap_keep_lock();
    malloc_heap_keep_hold(p, granules, limit, now, out, &n);
    malloc_heap_keep_unlock();
    malloc_heap_keep_give_back(out, n);
    MT_ASSERT_HOLDS(malloc_heap_keep_invariants());
    return true;
}

/* malloc_trim: everything kept goes back. True if anything did. */
static bool malloc_heap_keep_purge(void)
{
    mt_keep_range out[MT_LARGE_KEEP_SLOTS];
    unsigned n = 0;
    if (!malloc_heap_keep_max)
        return false;
    malloc_heap_keep_lock();
    while (malloc_heap_keep.count)
        malloc_heap_keep_drop(0, out, &n);
    mt_store_relaxed(&malloc_heap_keep.due, 0);
    malloc_heap_keep_unlock();
    malloc_heap_keep_give_back(out, n);
    return n > 0;
}

/* fork: 0 prepare (take the lock), 1 parent (release it), 2 child (reset it). */
static void malloc_heap_keep_fork(int phase)
{
    if (!malloc_heap_keep_max)
        return;
    if (phase == 0)
        malloc_heap_keep_lock();
    else if (phase == 1)
        malloc_heap_keep_unlock();
    else
        MT_SYNC_FN(MT_SYNC, init)(&malloc_heap_keep.lock);
}

MT_SLOW void *malloc_heap_alloc_through_keep(mt_ctx *ctx)
{
    char *p = malloc_heap_keep_take(ctx);
    if (p)
        return p;
    malloc_heap_keep_tick();
    return malloc_heap_alloc_chunk(ctx);
}

MT_SLOW void malloc_heap_free_through_keep(char *p, size_t granules)
{
    if (!malloc_heap_keep_put(p, granules)) {
        malloc_heap_keep_tick();
        malloc_heap_free_chunk(p, granules);
    }
}

/* The OS layer's alloc and free (granule_owner.h); large_keep=0 folds to
 * its own paths. */
MT_INLINE void *malloc_heap_alloc_kept(mt_ctx *ctx)
{
    return malloc_heap_keep_max ? malloc_heap_alloc_through_keep(ctx) : malloc_heap_alloc_chunk(ctx);
}

MT_INLINE void malloc_heap_free_kept(char *p, size_t granules)
{
    if (malloc_heap_keep_max)
        malloc_heap_free_through_keep(p, granules);
    else
        malloc_heap_free_chunk(p, granules);
}

#define MT_IMPLEMENTS_check
MT_INLINE void *malloc_heap_check(mt_ctx *ctx, mt_lfunc *next)
{
    return mt_check_then(malloc_heap_keep_invariants(), ctx, next);
}

#else /* no keep: the OS layer's own paths, inlined */

MT_INLINE void *malloc_heap_alloc_kept(mt_ctx *ctx) { return malloc_heap_alloc_chunk(ctx); }
MT_INLINE void malloc_heap_free_kept(char *p, size_t granules) { malloc_heap_free_chunk(p, granules); }
MT_INLINE bool malloc_heap_keep_purge(void) { return false; }
MT_INLINE void malloc_heap_keep_fork(int phase) { (void)phase; }
MT_INLINE bool malloc_heap_keep_serves(size_t granules) { return (void)granules, false; }

#endif

#undef MT_OS_LARGE_GRANULES
#undef MT_OS_KEEPS
#undef MT_OS_GROWS

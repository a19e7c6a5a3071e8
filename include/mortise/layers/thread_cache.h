/* thread_cache — per-thread LIFO free lists per size class.
 *
 * Serves: alloc requests in size_handle with alignment <= 16 from the calling
 *   thread's LIFO list of the request's size class, and (on the hit path
 *   too, no lock) those with 16 < alignment <= 4096 from the list of the
 *   smallest class that is a multiple of the alignment when the list's head
 *   is aligned (checked at run time; a miss refills that class from below);
 *   frees of blocks whose class it covers go onto the freeing thread's list. Cached blocks stay
 *   owned by the layer below (the page map still names it: the cache holds
 *   blocks the layer below counts as allocated), so the cache needs no lock,
 *   no page-map entry and no metadata of its own. Everything else — aligned
 *   requests the cache has no aligned block for, sizes outside
 *   size_handle, blocks of other classes, getmeta, resize — goes to the
 *   next layer.
 * Slots (model language → macro, default):
 *   size_handle=[lo, hi] → MT_SIZE_HANDLE (0, 32768): hi must be finite.
 *   sizeclass=POLICY     → MT_SIZECLASS (log2b); interval also reads
 *                          MT_SIZECLASS_STEP (16). Best the same policy as the
 *                          layer below, so blocks come back in whole classes.
 *   cache_size=BYTES     → MT_CACHE_SIZE (2 MiB): each thread's budget, split
 *                          evenly between the classes of size_handle: class c
 *                          keeps at most max(min_blocks, cache_size / classes
 *                          / size(c)) blocks. With the defaults: 40 classes of
 *                          52 KiB, 3276 blocks of 16 bytes ... one block of
 *                          32 KiB; a thread never holds more than cache_size
 *                          bytes plus min_blocks blocks per class.
 *   min_blocks=N         → MT_CACHE_MIN_BLOCKS (1): the fewest blocks any
 *                          class may keep, whatever its share of the budget.
 *                          The large classes' share is a block or two; with
 *                          more, a program that frees and allocates a few
 *                          large blocks in turn, or passes them between
 *                          threads, stays out of the class lock below. It
 *                          raises the bound above by (N - share) blocks of
 *                          each large class a thread uses.
 *   coreaware_cachesize=0|1 → MT_COREAWARE_CACHESIZE (0). With 1 the budget
 *                          follows the cache of the core the thread runs on:
 *                          cache_size × size(core) / size(largest core), the
 *                          sizes from MORTISE_CORE_CACHE or sysfs (layers/cache/core_cache.h:
 *                          e.g. MORTISE_CORE_CACHE=0-3:512K,4-7:2M). The core
 *                          is looked at when the thread starts caching and
 *                          again every MT_COREAWARE_INTERVAL (64) slow-path
 *                          events (misses, full lists, uncached frees): the
 *                          socket's CPU hint (ctx->cpu, cmalloc_socket) if it
 *                          gives one, else sched_getcpu(). On a move to a core
 *                          with a smaller cache the blocks above the new
 *                          bounds go back below at once. Costs nothing on a
 *                          hit; with 0 the code is that of no slot at all.
 *   link_check=0|1       → MT_LINK_CHECK (0): 1 checks every link of a
 *                          cached list before it is followed (a hit's pop,
 *                          cutting a list, a hand-off chain, and every link
 *                          of a run a flush hands below first: a trunk's
 *                          free_batch follows them too): NULL, inside
 *                          the block's granule, or a granule some layer owns
 *                          (safety/link_check.h). A bad one — an overflow
 *                          into a cached block, a write after free — is
 *                          reported (corrupted-metadata at the cached block)
 *                          and the list ends there. Cost: a compare and a
 *                          page-map lookup per link followed, on the hit's
 *                          path too.
 *   err_handle=POLICY    → MT_ERR_HANDLE (default): what a failed link check
 *                          does after its report (policy/err).
 *   Tuning (not model slots): MT_THREAD_CACHE_BATCH (32), the most blocks one
 *   miss takes from the layer below, or MT_THREAD_CACHE_BATCH_BYTES (4096)
 *   bytes' worth where that is more (small classes: 128 blocks of 32
 *   bytes), at most half the class bound, asked in one alloc_batch
 *   request (core/ctx.h; slab_lk serves it under one lock acquisition, so
 *   a program allocating a population of small blocks pays the refill's
 *   fixed part once per page rather than once per 32 blocks; a chain
 *   without such a trunk answers one block, and the rest, at most
 *   MT_THREAD_CACHE_BATCH, are taken one alloc at a time); blocks going
 *   below (a full list without hand-off, purge, thread exit) go as
 *   free_batch requests the same way;
 *   MT_THREAD_CACHE_HANDOFF (4): hand-off slots per class; a list that
 *   overflows hands the half it sheds to the next thread that misses on
 *   the class (below, "Hand-off"), 0 sends it block by block below;
 *   MT_THREAD_CACHE_BINS (the policy's class count, at most 256), the size of
 *   the per-thread table; classes above it are not cached
 *   (layers/cache/classes.h).
 * Needs from below: getmeta answering the usable size of every block it owns
 *   (MT_BELOW(getmeta); every trunk layer has it) and class-sized allocs.
 *   A freed block is filed under the largest class not above its usable size,
 *   so blocks of any layer below are safe to reuse whatever its classes; an
 *   owner with the same size-class policy reports the class itself (getmeta's
 *   class hint, core/ctx.h) and the cache takes it as is.
 * Hand-off (layers/cache/handoff.h): producer/consumer patterns (blocks malloc'd by one thread, freed
 *   by another) otherwise cost every block one class-lock round trip below on
 *   each side. Per class, MT_THREAD_CACHE_HANDOFF process-wide slots hold
 *   one chain of blocks each (a transfer cache, as tcmalloc's between its
 *   thread caches and central lists): a full list on free moves its newer
 *   half into the first empty slot with one compare-and-swap from NULL
 *   (when all are full no thread is taking them: the half goes below,
 *   freed in runs straight from the list), and a miss first takes the
 *   chain of the first full slot with one exchange (no lock below; blocks
 *   beyond the thread's room go below). The chain becomes an empty list
 *   unwalked: its length rides in its first block's second word. Several
 *   slots absorb a burst of frees that a consumer sheds faster than the
 *   producers take: with one slot a producer that finds it full sends its
 *   blocks below one by one.
 *   Swaps from NULL and exchanges only, so no ABA, no lock, nothing to do
 *   at fork (a chain in a slot is valid in the child). The blocks stay
 *   allocated for the layer below, like cached ones; the slots hold at
 *   most one half-bound per slot and class (slots × cache_size / 2 in
 *   all); a thread's exit and purge empty them.
 * Time: hit: alloc = class index + pop (no atomic, no lock; an aligned
 *   request adds the search for its class, a few steps; a quick request's
 *   miss, core/ctx.h's MT_ALLOC_QUICK, answers NULL for the asker to
 *   repeat); free = the
 *   owner's getmeta (one compare and one load for segfit_lk, which reports
 *   the class) + push. Miss: a load per slot and one exchange, then (slot
 *   empty) one batch request of O(batch) below (or up to
 *   MT_THREAD_CACHE_BATCH allocs), or (a chain) O(1) into an empty list
 *   within its room, else O(chain) reads; full
 *   list on free: a load per slot, then O(half the list) to cut it and a
 *   compare-and-swap per slot until one is empty or, all full, O(half the
 *   list) frees below. thread_exit and purge: O(cached blocks).
 *   coreaware_cachesize=1: a core check costs one sched_getcpu() per
 *   MT_COREAWARE_INTERVAL slow-path events; a move to another core
 *   O(classes + blocks above the new bounds); the sizes are read once per
 *   process (a few small sysfs files per CPU).
 * Space: MT_THREAD_CACHE_BINS × 16 + 24 bytes of TLS per thread plus the
 *   cached blocks (bounded as above); MT_THREAD_CACHE_BINS ×
 *   MT_THREAD_CACHE_HANDOFF × 8 bytes of hand-off slots per process.
 * Thread safety: all state is per thread (initial-exec TLS) but the
 *   hand-off slots (atomic exchanges); no locks, so nothing to take at fork:
 *   the child keeps the forking thread's cache and the slots and, like every
 *   allocator, loses the blocks cached by the other threads.
 *   A thread's first miss or free runs mt_thread_attach(); at its exit
 *   (thread_exit) every cached block is freed below and the thread caches
 *   nothing any more (frees during later TLS destructors go straight below).
 * Fails: only when the layer below fails (ctx->err from it).
 * Example:
 *   mmap_heap
 *     :: segfit_lk(sizeclass=log2b, size_handle=[0, 262144])
 *     :: thread_cache(sizeclass=log2b, size_handle=[0, 32768], cache_size=2MB,
 *                     coreaware_cachesize=1)
 *     :: malloc_socket
 */
/* The layer's descriptor (core/describe.h): the data tools/describe_layers.py
 * reads and core/layer_end.h checks the slots against. */
#define MT_DESCRIPTOR_thread_cache(LAYER, SLOT)                            \
    LAYER(thread_cache, addon, 0, (), ())                                  \
    MT_OPS(SLOT, create, alloc, free, thread_exit, purge)                  \
    MT_SLOT_SIZE_HANDLE(SLOT, 0, 32768)                                    \
    MT_SLOT_SIZECLASS(SLOT, log2b)                                         \
    SLOT(cache_size, MT_CACHE_SIZE, BYTES, 2 << 20, (1, SIZE_MAX), ())     \
    SLOT(coreaware_cachesize, MT_COREAWARE_CACHESIZE, BOOL, 0, (0, 1), ()) \
    SLOT(min_blocks, MT_CACHE_MIN_BLOCKS, N, 1, (1, 65536), ())            \
    MT_SLOTS_LINK_CHECK(SLOT)
#ifndef MT_DESCRIBE /* describe mode reads the descriptor alone */
#include "../core/layer.h"
#include "cache/core_cache.h"
#include "../policy/sizeclass/sizeclass.h"
#include "cache/magazine.h"

#ifdef MT_NAME /* another instance name: the names below become its own */
#include "../names/thread_cache.h"
#else
#define MT_NAME thread_cache
#endif
#ifndef MT_SIZE_HANDLE
#define MT_SIZE_HANDLE 0, 32768
#endif
#ifndef MT_CACHE_SIZE
#define MT_CACHE_SIZE ((size_t)2 << 20)
#endif
#ifndef MT_COREAWARE_CACHESIZE
#define MT_COREAWARE_CACHESIZE 0
#endif
#ifndef MT_CACHE_MIN_BLOCKS
#define MT_CACHE_MIN_BLOCKS 1
#endif
#ifndef MT_COREAWARE_INTERVAL
#define MT_COREAWARE_INTERVAL 64
#endif
#ifndef MT_THREAD_CACHE_BATCH
#define MT_THREAD_CACHE_BATCH 32
#endif
#ifndef MT_THREAD_CACHE_BATCH_BYTES
#define MT_THREAD_CACHE_BATCH_BYTES 4096
#endif
#ifndef MT_THREAD_CACHE_HANDOFF
#define MT_THREAD_CACHE_HANDOFF 4
#endif
#ifdef MT_THREAD_CACHE_BINS
#define MT_CACHE_BINS MT_THREAD_CACHE_BINS
#endif

MT_DECLARE_BELOW(getmeta);
MT_DECLARE_BELOW(free);
MT_DECLARE_BELOW(alloc_batch);
MT_DECLARE_BELOW(free_batch);

#include "../written/thread_cache/policy_sizeclass_slot.inl"
#include "../written/thread_cache/cache_classes.inl"     /* which classes are cached, class_of, share */
#include "../written/thread_cache/safety_link_check.inl" /* link_check, err_handle */

/* link_check: the link in cached block p failed its check: the list ends
 * at p (the blocks after it are dropped; their room is not given back, so
 * the class caches that many fewer blocks). */
MT_SLOW void *thread_cache_link_cut(void *p)
{
    *(void **)p = NULL;
    thread_cache_link_broken(p, "alloc");
    return NULL;
}

/* The block after p on a list or chain of cached blocks: checked before
 * anyone follows it with link_check=1 (owned by some layer below: cached
 * blocks are theirs), read as is without. */
MT_INLINE void *thread_cache_next_of(void *p)
{
    void *link = *(void **)p;
    if (MT_LINK_CHECK && MT_UNLIKELY(!mt_link_ok(p, link, 0)))
        return thread_cache_link_cut(p);
    return link;
}

/* Per class c: head[c], the LIFO of cached blocks (next pointer in the
 * first word), and room[c], the blocks the list may still take (0 until the
 * thread starts, and always 0 for the classes of the table the cache does
 * not cover: free's hit tests room alone). Two arrays of words rather than
 * an array of pairs: a class index scales by 8 inside the address, so the
 * hits need no shift to find their entry. */
static MT_TLS struct {
    void *head[thread_cache_bins];
    size_t room[thread_cache_bins];
    int state;       /* cache/thread_state.h */
    int cpu;         /* coreaware: the CPU the budget was last fitted to */
    unsigned events; /* coreaware: slow-path events since the last look */
    size_t budget;   /* coreaware: cache_size fitted to that CPU's cache */
} thread_cache_tl;

#include "../written/thread_cache/cache_thread_state.inl" /* ready(); create, thread_exit, purge, ... */

/* The thread's budget in bytes: cache_size, or its share on this core. */
MT_INLINE size_t thread_cache_budget(void)
{
    return MT_COREAWARE_CACHESIZE ? thread_cache_tl.budget : (size_t)MT_CACHE_SIZE;
}

/* Class index's bound under a budget: its share, at least min_blocks. */
MT_INLINE size_t thread_cache_bound(size_t budget, size_t index)
{
    size_t share = thread_cache_share(budget, index);
    return share > (size_t)MT_CACHE_MIN_BLOCKS ? share : (size_t)MT_CACHE_MIN_BLOCKS;
}

MT_INLINE size_t thread_cache_capacity(size_t index)
{
    return thread_cache_bound(thread_cache_budget(), index);
}

/* The thread's first use: every class may take its capacity. */
MT_SLOW void thread_cache_start(void)
{
    if (MT_COREAWARE_CACHESIZE) {
        thread_cache_tl.cpu = mt_cpu_current();
        thread_cache_tl.budget = mt_cpu_cache_scaled(MT_CACHE_SIZE, thread_cache_tl.cpu);
    }
    for (size_t c = thread_cache_first(); c < thread_cache_end(); c++)
        thread_cache_tl.room[c] = thread_cache_capacity(c);
    thread_cache_tl.state = mt_cache_on;
}

/* Free the first (at most) n blocks of the chain at p below; returns the
 * blocks after them, *freed how many went. Each request frees one block
 * and offers the rest of the run with it (free_batch): a trunk that frees
 * a run of one class under one lock (slab_lk) takes what it can, any other
 * chain just the one block. A bounded run needs no walk to cut it off
 * first: a full list's half goes below straight from the list. */
MT_NOINLINE_HOT void *thread_cache_free_run(void *p, size_t n, size_t *freed)
{
    size_t k = 0;
    /* link_check: a trunk's free_batch follows the run's links itself
     * (slab_lk), with its own tests only; so every link of the run is
     * checked here first (a bad one cuts the run there) */
    if (MT_LINK_CHECK) {
        size_t i = 0;
        for (void *q = p; q && i < n; q = thread_cache_next_of(q))
            i++;
    }
    while (p && k < n) {
        mt_ctx sub = mt_ctx_for_alloc(0, 1);
        mt_ctx_route(&sub, p);
        void *rest = thread_cache_next_of(p);
        sub.chain = rest;
        sub.count = n - k - 1;
        MT_BELOW(free_batch)(&sub);
        k += 1 + (sub.chain != rest ? sub.count : 0); /* chain as it was: none taken */
        p = sub.chain;
    }
    *freed = k;
    return p;
}

/* Free a NULL-terminated chain of blocks below; returns how many. */
MT_INLINE size_t thread_cache_free_chain(void *p)
{
    size_t n;
    thread_cache_free_run(p, SIZE_MAX, &n);
    return n;
}

/* The newest (at most) n blocks of class c off its list, as a chain;
 * *cut is how many. */
MT_INLINE void *thread_cache_cut(size_t c, size_t n, size_t *cut)
{
    void *chain = thread_cache_tl.head[c], *last = NULL;
    size_t k = 0;
    for (void *p = chain; p && k < n; p = thread_cache_next_of(p), k++)
        last = p;
    *cut = k;
    if (!last)
        return NULL;
    thread_cache_tl.head[c] = thread_cache_next_of(last);
    *(void **)last = NULL;
    thread_cache_tl.room[c] += k;
    return chain;
}

/* Free the newest (at most) n blocks of class c below; returns how many. */
static size_t thread_cache_flush(size_t c, size_t n)
{
    size_t k;
    thread_cache_tl.head[c] = thread_cache_free_run(thread_cache_tl.head[c], n, &k);
    thread_cache_tl.room[c] += k;
    return k;
}

#include "../written/thread_cache/cache_handoff.inl" /* shed, take_handoff, empty_handoff: the transfer cache */

MT_SLOW const char *thread_cache_check_bin(size_t c); /* debug level 2, after a slow path */

/* coreaware: the thread is on another CPU now. Fit every class's bound to
 * that CPU's budget; blocks above a smaller bound go back below. */
MT_SLOW void thread_cache_refit(int cpu)
{
    size_t old_budget = thread_cache_tl.budget;
    thread_cache_tl.cpu = cpu;
    thread_cache_tl.budget = mt_cpu_cache_scaled(MT_CACHE_SIZE, cpu);
    for (size_t c = thread_cache_first(); c < thread_cache_end(); c++) {
        size_t held = thread_cache_bound(old_budget, c) - thread_cache_tl.room[c];
        size_t cap = thread_cache_capacity(c);
        if (held > cap)
            held -= thread_cache_flush(c, held - cap);
        thread_cache_tl.room[c] = cap - held;
    }
}

/* coreaware: one slow-path event; every MT_COREAWARE_INTERVAL of them, look
 * at the CPU (the socket's hint when it gives one). Nothing without the slot. */
MT_INLINE void thread_cache_core_event(int hint)
{
    if (MT_COREAWARE_CACHESIZE && ++thread_cache_tl.events >= MT_COREAWARE_INTERVAL) {
        thread_cache_tl.events = 0;
        int cpu = hint >= 0 ? hint : mt_cpu_current();
        if (cpu != thread_cache_tl.cpu)
            thread_cache_refit(cpu);
    }
}

MT_NOINLINE_HOT void *thread_cache_alloc_slow(mt_ctx *ctx, mt_lfunc *next);
MT_NOINLINE_HOT void thread_cache_free_slow(void *p, size_t c, int cpu, mt_lfunc *next);

/* An aligned request (align > MT_MIN_ALIGN): the head of the smallest cached
 * class that is a multiple of the alignment (aligned_class), if its address
 * is aligned — checked here, as the layer below may not align its blocks.
 * A miss refills that class as an unaligned miss does (a class-sized
 * request) and returns the first block if aligned; else the block is cached
 * and the request goes below as it is. */
MT_SLOW void *thread_cache_alloc_aligned(mt_ctx *ctx, mt_lfunc *next)
{
    size_t align = ctx->align, c = thread_cache_aligned_class(ctx->size, align);
    if (c == SIZE_MAX || !thread_cache_ready())
        return next(ctx);
    void *p = thread_cache_tl.head[c];
    if (p) {
        if ((uintptr_t)p & (align - 1))
            return next(ctx);
        thread_cache_tl.head[c] = thread_cache_next_of(p);
        thread_cache_tl.room[c]++;
        return p;
    }
    mt_ctx sub = *ctx;
    sub.size = thread_cache_class_size(c);
    sub.align = MT_MIN_ALIGN;
    p = thread_cache_alloc_slow(&sub, next);
    if (p && !((uintptr_t)p & (align - 1)))
        return p;
    if (p)
        thread_cache_free_slow(p, c, ctx->cpu, next);
    return next(ctx);
}

/* Alloc's slow path, one block for everything the hit does not serve (so the
 * hit needs no stack frame: the compiler places the prologue here): requests
 * the cache does not take go below; a miss serves the request from below and
 * takes up to a batch more blocks of the class for the next ones. */
MT_NOINLINE_HOT void *thread_cache_alloc_slow(mt_ctx *ctx, mt_lfunc *next)
{
    size_t size = ctx->size;
    if (!thread_cache_takes(size, ctx->align)) {
        if (ctx->align > MT_MIN_ALIGN)
            return thread_cache_alloc_aligned(ctx, next);
        return next(ctx);
    }
    if (!thread_cache_ready())
        return next(ctx);
    thread_cache_core_event(ctx->cpu);
    size_t c = thread_cache_class_index(size);
    if (MT_LINK_CHECK && thread_cache_tl.head[c]) { /* the hit found a far link: pop it checked */
        void *p = thread_cache_tl.head[c];
        thread_cache_tl.head[c] = thread_cache_next_of(p);
        thread_cache_tl.room[c]++;
        return p;
    }
    size_t csize = thread_cache_class_size(c);
    void *handed = thread_cache_take_handoff(c);
    if (handed)
        return handed;
    size_t half = thread_cache_capacity(c) / 2, batch = MT_THREAD_CACHE_BATCH_BYTES / csize;
    if (batch < MT_THREAD_CACHE_BATCH)
        batch = MT_THREAD_CACHE_BATCH;
    size_t want = half < batch ? half : batch;
    ctx->size = csize; /* a whole class, so the block serves any size of it */
    if (want < 2 || !thread_cache_tl.room[c])
        return next(ctx);
    ctx->chain = thread_cache_tl.head[c];
    ctx->count = want - 1 < thread_cache_tl.room[c] ? want - 1 : thread_cache_tl.room[c];
    void *first = MT_BELOW(alloc_batch)(ctx);
    if (!first)
        return NULL;
    thread_cache_tl.head[c] = ctx->chain;
    thread_cache_tl.room[c] -= ctx->count;
    if (!ctx->count) {
        /* Nothing below serves batches: the rest one alloc at a time, kept
         * in the order they come (ascending from a fresh slab or span), no
         * more than MT_THREAD_CACHE_BATCH (each is a request of its own). */
        void *more = NULL, **link = &more;
        if (want > MT_THREAD_CACHE_BATCH)
            want = MT_THREAD_CACHE_BATCH;
        for (size_t i = 1; i < want && thread_cache_tl.room[c]; i++) {
            mt_ctx sub = mt_ctx_for_alloc(csize, 1);
            void *p = next(&sub);
            if (!p)
                break;
            *link = p;
            link = (void **)p;
            thread_cache_tl.room[c]--;
        }
        *link = thread_cache_tl.head[c];
        thread_cache_tl.head[c] = more;
    }
    MT_ASSERT_HOLDS(thread_cache_check_bin(c));
    return first;
}

/* Free's slow path: a block of a class the cache does not keep, a full list
 * (half of it goes below first), or a thread that does not cache (any more). */
MT_NOINLINE_HOT void thread_cache_free_slow(void *p, size_t c, int cpu, mt_lfunc *next)
{
    if (thread_cache_covers(c) && thread_cache_ready()) {
        thread_cache_core_event(cpu);
        if (!thread_cache_tl.room[c]) {
            size_t half = (thread_cache_capacity(c) + 1) / 2;
            if (MT_THREAD_CACHE_HANDOFF)
                thread_cache_shed(c, half);
            else
                thread_cache_flush(c, half);
        }
        MT_ASSERT(thread_cache_tl.room[c] > 0); /* the flush above made room */
        *(void **)p = thread_cache_tl.head[c];
        thread_cache_tl.head[c] = p;
        thread_cache_tl.room[c]--;
        MT_ASSERT_HOLDS(thread_cache_check_bin(c));
        return;
    }
    mt_cache_free_block(p, next);
}

/* An aligned request's hit (posix_memalign and its kin; malloc's alignment
 * is the constant 1, so alloc drops this call): the head of its
 * aligned_class when that head is aligned, else the slow path
 * (alloc_aligned), so a warm aligned request costs a class search more than
 * malloc instead of a call out of line. */
MT_INLINE void *thread_cache_alloc_aligned_hit(mt_ctx *ctx, mt_lfunc *next)
{
    size_t c = thread_cache_aligned_class(ctx->size, ctx->align);
    void *p = c != SIZE_MAX ? thread_cache_tl.head[c] : NULL;
    if (MT_UNLIKELY(!p || ((uintptr_t)p & (ctx->align - 1)) ||
                    (MT_LINK_CHECK && !mt_link_ok(p, *(void **)p, 0))))
        return MT_COLD_ALLOC(ctx, copy, thread_cache_alloc_slow(&copy, next));
    thread_cache_tl.head[c] = *(void **)p;
    thread_cache_tl.room[c]++;
    return p;
}

/* Hit: a compare for the range, the class index, a pop. */
#define MT_IMPLEMENTS_alloc
MT_INLINE void *thread_cache_alloc(mt_ctx *ctx, mt_lfunc *next)
{
    size_t size = ctx->size;
    if (MT_UNLIKELY(ctx->align > MT_MIN_ALIGN))
        return thread_cache_alloc_aligned_hit(ctx, next);
    void *p = NULL;
    size_t c = 0;
    if (thread_cache_takes(size, ctx->align)) {
        c = thread_cache_class_index(size);
        p = thread_cache_tl.head[c];
    }
    /* link_check: checked inline (a page-map lookup when the link leaves
     * the block's granule); a bad link goes to the slow path, which the hit
     * calls anyway (no second call, no stack frame) and which reports it */
    if (MT_UNLIKELY(!p || (MT_LINK_CHECK && !mt_link_ok(p, *(void **)p, 0))))
        return MT_COLD_ALLOC(ctx, copy, thread_cache_alloc_slow(&copy, next));
    thread_cache_tl.head[c] = *(void **)p;
    thread_cache_tl.room[c]++;
    return p;
}

/* Hit: the owner's getmeta, the class index, a push. */
#define MT_IMPLEMENTS_free
MT_INLINE void *thread_cache_free(mt_ctx *ctx, mt_lfunc *next)
{
    size_t c = MT_BELOW(getmeta)(ctx) ? thread_cache_class_of(ctx) : SIZE_MAX;
    /* The table check first: room[c] beyond the table (SIZE_MAX for a block
     * nobody owns) is not an element to take the address of. Classes of
     * the table the cache does not cover have no room (start, refit and
     * stop set room only in [first, end)), so the room test sends them to
     * the slow path and the hit needs no range check of its own; for an
     * owner's class hint of our policy (class_of) with a table of every
     * class, the table check folds away too. */
    if (MT_UNLIKELY(c >= (size_t)thread_cache_bins || !thread_cache_tl.room[c])) {
        thread_cache_free_slow(ctx->ptr, c, ctx->cpu, next);
        return NULL;
    }
    *(void **)ctx->ptr = thread_cache_tl.head[c];
    thread_cache_tl.head[c] = ctx->ptr;
    thread_cache_tl.room[c]--;
    return NULL;
}

/* Give every cached block back below, and the hand-off slots' chains. True
 * if there was any. */
MT_SLOW bool thread_cache_flush_all(void)
{
    size_t any = 0;
    for (size_t c = thread_cache_first(); c < thread_cache_end(); c++) {
        any += thread_cache_flush(c, SIZE_MAX);
        any += thread_cache_empty_handoff(c);
    }
    return any != 0;
}

/* The thread ends: its blocks go back, and it caches nothing any more. */
MT_SLOW void thread_cache_stop(void)
{
    thread_cache_flush_all();
    thread_cache_tl.state = mt_cache_off;
    for (size_t c = thread_cache_first(); c < thread_cache_end(); c++)
        thread_cache_tl.room[c] = 0;
}

#include "../written/thread_cache/cache_check.inl" /* cached_in, check_magazine */

/* Class c of the calling thread's cache: its list holds at most the
 * class's capacity (no cycle), blocks owned below in this class, and blocks
 * + room == capacity while the thread caches (nothing, no room, when it
 * does not). */
MT_SLOW const char *thread_cache_check_bin(size_t c)
{
    size_t cap = thread_cache_tl.state == mt_cache_on ? thread_cache_capacity(c) : 0, n = 0;
    for (void *p = thread_cache_tl.head[c]; p; p = *(void **)p) {
        if (++n > cap)
            return MT_STR(MT_NAME) ": list longer than its capacity (a cycle or a lost count)";
        if (!thread_cache_cached_in(p, c))
            return MT_STR(MT_NAME) ": cached block not owned below or of another class";
    }
    return n + thread_cache_tl.room[c] == cap ? NULL : MT_STR(MT_NAME) ": cached blocks + room != capacity";
}

/* The calling thread's cache (other threads' lists are theirs: they check
 * them themselves). */
#define MT_HAS_INVARIANTS /* check: these, then the layers below (core/ops.h) */
MT_SLOW MT_UNUSED const char *thread_cache_invariants(void)
{
    const char *broken = NULL;
    for (size_t c = thread_cache_first(); c < thread_cache_end() && !broken; c++)
        broken = thread_cache_check_bin(c);
    /* free's hit tests room alone: a class of the table outside the cached
     * ones must never have any */
    /* clang-format off */
    for (size_t c = 0; c < (size_t)thread_cache_bins && !broken; c++)
        if (!thread_cache_covers(c) && (thread_cache_tl.room[c] || thread_cache_tl.head[c]))
            broken = MT_STR(MT_NAME) ": room or blocks in a class the cache does not cover";
    /* clang-format on */
    return broken;
}

#define MT_DESCRIPTOR MT_DESCRIPTOR_thread_cache
#include "../core/layer_end.h"
/* Forget this instance's slots: the next instance starts from the defaults. */
#undef MT_SIZE_HANDLE
#undef MT_SIZECLASS
#undef MT_SIZECLASS_STEP
#undef MT_CACHE_SIZE
#undef MT_COREAWARE_CACHESIZE
#undef MT_CACHE_MIN_BLOCKS
#undef MT_ERR_HANDLE
#undef MT_LINK_CHECK
#undef MT_THREAD_CACHE_BATCH
#undef MT_THREAD_CACHE_BATCH_BYTES
#undef MT_THREAD_CACHE_HANDOFF
#undef MT_THREAD_CACHE_BINS
#undef MT_COREAWARE_INTERVAL
#ifdef MT_NAMES_thread_cache
#include "../names/thread_cache.h" /* forget them */
#endif
#endif /* MT_DESCRIBE */

/* carrcache_lk — per-CPU array magazines, a lock per CPU.
 *
 * Serves: alloc requests in size_handle with alignment <= 16 from the
 *   magazine of the request's class on the CPU the request is for: the
 *   socket's CPU hint (ctx->cpu, cmalloc_socket) when it gives one, else the
 *   CPU the thread runs on (layers/cache/core_cache.h: rseq's cpu_id, sched_getcpu()).
 *   Frees of blocks whose class it covers go to that CPU's magazine. Threads
 *   that share a CPU share its cache, so the cache's memory follows the
 *   cores, not the threads (a program with 1000 threads on 8 cores keeps 8
 *   caches), and a block freed on a CPU is reused there, still in that
 *   core's hardware cache. Blocks stay owned by the layer below; each
 *   magazine is an array of block pointers (layers/cache/magazine.h). A
 *   miss takes half a magazine from below, a full magazine gives its older
 *   half back below. Everything else — aligned requests, sizes outside
 *   size_handle, blocks of other classes, getmeta, resize — goes below.
 * Slots (model language → macro, default):
 *   size_handle=[lo, hi] → MT_SIZE_HANDLE (0, 32768): hi must be finite.
 *   sizeclass=POLICY     → MT_SIZECLASS (log2b); best the policy below.
 *   sync=POLICY          → MT_SYNC (spinlock): the lock of each CPU's cache.
 *                          Held only for a pop or a push (and moving half a
 *                          magazine), never across a call below.
 *   cache_size=BYTES     → MT_CACHE_SIZE (1 MiB): each CPU's budget, shared
 *                          evenly by the classes of size_handle.
 *   Tuning (not model slots): MT_CARRCACHE_CPUS (64, a power of two): CPU
 *   records; CPU k uses record k mod MT_CARRCACHE_CPUS (more CPUs share
 *   records, still correct under the record's lock). MT_CARRCACHE_SLOTS
 *   (64): a magazine's most slots. Class c holds at most cap(c) =
 *   min(MT_CARRCACHE_SLOTS, max(1, cache_size / classes / size(c))) blocks
 *   per CPU. MT_CACHE_BINS: layers/cache/classes.h.
 * Needs from below: getmeta with the usable size (the class hint when the
 *   policy is the same), class-sized allocs, and one allocation of
 *   sum(cap(c)) pointers per CPU record, on that CPU's first miss.
 * Time: hit: alloc = the CPU number (one %fs load with rseq) + lock + pop +
 *   unlock; free = the owner's getmeta + the same with a push. Miss: up to
 *   cap(c) / 2 allocs below (outside the lock) and one more lock round;
 *   full magazine: cap(c) / 2 frees below (outside the lock). purge:
 *   O(cached blocks), one CPU record and class at a time.
 * Space: MT_CARRCACHE_CPUS × (MT_CACHE_BINS × 16 + 64) bytes of static
 *   state (zero pages until a CPU is used), the slot arrays of the CPUs in
 *   use and at most sum(cap(c) × size(c)) <= cache_size + one block per
 *   class of cached blocks per CPU record.
 * Thread safety: every operation; a CPU record's lock guards its magazines
 *   (a thread may move to another CPU between reading the CPU number and
 *   taking the lock: it then uses the record of the CPU it was on, which is
 *   only slower). Lock order: this layer's locks are leaves — nothing is
 *   called below while one is held — so requests never nest them.
 *   fork_prepare takes every CPU record's lock in index order, then passes
 *   on; fork_parent/fork_child pass on, then release/re-initialise them, so
 *   the child finds every magazine consistent. thread_exit has nothing to
 *   give back (the caches belong to CPUs); purge (malloc_trim) empties every
 *   CPU's magazines.
 * Fails: only when the layer below fails (ctx->err from it). A CPU whose
 *   slot arrays cannot be allocated does not cache — never an error.
 * Example:
 *   mmap_heap
 *     :: segfit_lk(sync=spinlock)
 *     :: carrcache_lk(sync=spinlock, size_handle=[0, 32768], cache_size=1MB)
 *     :: cmalloc_socket
 */
/* The layer's descriptor (core/describe.h): the data tools/describe_layers.py
 * reads and core/layer_end.h checks the slots against. */
#define MT_DESCRIPTOR_carrcache_lk(LAYER, SLOT)                             \
    LAYER(carrcache_lk, addon, 0, (), ())                                   \
    MT_OPS(SLOT, alloc, free, fork_prepare, fork_parent, fork_child, purge) \
    MT_SLOT_SIZE_HANDLE(SLOT, 0, 32768)                                     \
    MT_SLOT_SIZECLASS(SLOT, log2b)                                          \
    MT_SLOT_SYNC(SLOT, spinlock)                                            \
    SLOT(cache_size, MT_CACHE_SIZE, BYTES, 1 << 20, (1, SIZE_MAX), ())
#ifndef MT_DESCRIBE /* describe mode reads the descriptor alone */
#include "../core/layer.h"
#include "cache/core_cache.h"
#include "../policy/sync/sync.h"
#include "../policy/sizeclass/sizeclass.h"
#include "cache/magazine.h"

#ifdef MT_NAME /* another instance name: the names below become its own */
#include "../names/carrcache_lk.h"
#else
#define MT_NAME carrcache_lk
#endif
#ifndef MT_SIZE_HANDLE
#define MT_SIZE_HANDLE 0, 32768
#endif
#ifndef MT_SYNC
#define MT_SYNC spinlock
#endif
#ifndef MT_CACHE_SIZE
#define MT_CACHE_SIZE ((size_t)1 << 20)
#endif
#ifndef MT_CARRCACHE_CPUS
#define MT_CARRCACHE_CPUS 64
#endif
#ifndef MT_CARRCACHE_SLOTS
#define MT_CARRCACHE_SLOTS 64
#endif
_Static_assert(mt_is_pow2_const(MT_CARRCACHE_CPUS), "carrcache_lk: MT_CARRCACHE_CPUS must be a power of two");
_Static_assert(MT_CARRCACHE_SLOTS >= 1 && MT_CARRCACHE_SLOTS <= 4096,
               "carrcache_lk: MT_CARRCACHE_SLOTS out of range");

MT_DECLARE_BELOW(alloc); /* slot arrays */
MT_DECLARE_BELOW(getmeta);
MT_DECLARE_BELOW(free);

#include "../written/carrcache_lk/policy_sizeclass_slot.inl"
#include "../written/carrcache_lk/cache_classes.inl"

typedef struct MT_CACHE_ALIGNED {
    MT_SYNC_T(MT_SYNC) lock;
    _Atomic(void **) store; /* slot arrays; NULL until the first miss */
    mt_magazine mag[carrcache_lk_bins];
} carrcache_lk_record;

static carrcache_lk_record carrcache_lk_cpus[MT_CARRCACHE_CPUS];

/* The record of the CPU a request is for: the socket's hint, else where the
 * thread runs (-1, unknown, is as good a number as any). */
MT_INLINE carrcache_lk_record *carrcache_lk_record_for(int hint)
{
    int cpu = hint >= 0 ? hint : mt_cpu_current();
    return &carrcache_lk_cpus[(unsigned)cpu & (MT_CARRCACHE_CPUS - 1)];
}

/* A record's first miss: its slot arrays, from below, outside the lock (a
 * racing thread may install its own first: then ours goes back). */
MT_SLOW bool carrcache_lk_equip(carrcache_lk_record *r)
{
    uint32_t caps[carrcache_lk_bins];
    void **store =
        mt_magazine_store(carrcache_lk_caps(caps, MT_CACHE_SIZE, MT_CARRCACHE_SLOTS), MT_BELOW(alloc));
    if (!store)
        return false;
    MT_SYNC_FN(MT_SYNC, lock)(&r->lock);
    bool mine = !mt_load_relaxed(&r->store);
    if (mine) {
        mt_magazine_carve(&r->mag[carrcache_lk_first()], &caps[carrcache_lk_first()],
                          carrcache_lk_end() - carrcache_lk_first(), store);
        mt_store_relaxed(&r->store, store); /* read outside the lock only as a hint */
    }
    MT_SYNC_FN(MT_SYNC, unlock)(&r->lock);
    if (!mine)
        mt_cache_free_block(store, MT_BELOW(free));
    return true;
}

/* Alloc's slow path: requests it does not take go below; a miss serves the
 * request from below and puts up to half a magazine more in the CPU's
 * magazine (blocks another thread put there meanwhile stay; what does not
 * fit goes back). */
MT_SLOW void *carrcache_lk_alloc_slow(mt_ctx *ctx, mt_lfunc *next)
{
    if (!carrcache_lk_takes(ctx->size, ctx->align))
        return next(ctx);
    carrcache_lk_record *r = carrcache_lk_record_for(ctx->cpu);
    if (!mt_load_relaxed(&r->store) && !carrcache_lk_equip(r))
        return next(ctx);
    size_t c = carrcache_lk_class_index(ctx->size), csize = carrcache_lk_class_size(c);
    ctx->size = csize; /* a whole class, so the block serves any size of it */
    void *first = next(ctx);
    void *batch[MT_CARRCACHE_SLOTS];
    size_t got = first ? mt_cache_take(batch, carrcache_lk_cap(MT_CACHE_SIZE, c, MT_CARRCACHE_SLOTS) / 2,
                                       csize, next)
                       : 0,
           put = 0;
    if (!got)
        return first;
    MT_SYNC_FN(MT_SYNC, lock)(&r->lock);
    mt_magazine *m = &r->mag[c];
    while (put < got && m->n < m->cap)
        m->slot[m->n++] = batch[put++];
    MT_SYNC_FN(MT_SYNC, unlock)(&r->lock);
    mt_cache_give(batch + put, got - put, MT_BELOW(free));
    return first;
}

/* Free's slow path: a block of a class it does not keep, a CPU without slot
 * arrays yet (its first miss equips it), or a full magazine (its older half
 * goes below, after the lock is dropped). */
MT_SLOW void carrcache_lk_free_slow(void *p, size_t c, int hint, mt_lfunc *next)
{
    if (carrcache_lk_covers(c)) {
        carrcache_lk_record *r = carrcache_lk_record_for(hint);
        void *out[MT_CARRCACHE_SLOTS];
        size_t n = 0;
        MT_SYNC_FN(MT_SYNC, lock)(&r->lock);
        mt_magazine *m = &r->mag[c];
        bool kept = m->cap != 0;
        if (kept) {
            if (m->n >= m->cap)
                n = mt_magazine_unload(m, (m->cap + 1) / 2, out);
            m->slot[m->n++] = p;
        }
        MT_SYNC_FN(MT_SYNC, unlock)(&r->lock);
        if (kept) {
            mt_cache_give(out, n, next);
            return;
        }
    }
    mt_cache_free_block(p, next);
}

/* Hit: the CPU's record, lock, pop, unlock. */
#define MT_IMPLEMENTS_alloc
MT_INLINE void *carrcache_lk_alloc(mt_ctx *ctx, mt_lfunc *next)
{
    size_t size = ctx->size;
    void *p = NULL;
    if (carrcache_lk_takes(size, ctx->align)) {
        carrcache_lk_record *r = carrcache_lk_record_for(ctx->cpu);
        mt_magazine *m = &r->mag[carrcache_lk_class_index(size)];
        MT_SYNC_FN(MT_SYNC, lock)(&r->lock);
        uint32_t n = m->n;
        if (MT_LIKELY(n))
            p = mt_magazine_pop(m, n);
        MT_SYNC_FN(MT_SYNC, unlock)(&r->lock);
    }
    if (MT_UNLIKELY(!p))
        return MT_COLD_CALL(ctx, copy, carrcache_lk_alloc_slow(&copy, next));
    return p;
}

/* Hit: the owner's getmeta, the CPU's record, lock, push, unlock. */
#define MT_IMPLEMENTS_free
MT_INLINE void *carrcache_lk_free(mt_ctx *ctx, mt_lfunc *next)
{
    size_t c = MT_BELOW(getmeta)(ctx) ? carrcache_lk_class_of(ctx) : SIZE_MAX;
    bool kept = false;
    if (MT_LIKELY(carrcache_lk_covers(c))) {
        carrcache_lk_record *r = carrcache_lk_record_for(ctx->cpu);
        mt_magazine *m = &r->mag[c];
        MT_SYNC_FN(MT_SYNC, lock)(&r->lock);
        uint32_t n = m->n;
        if (MT_LIKELY(n < m->cap)) {
            mt_magazine_push(m, n, ctx->ptr);
            kept = true;
        }
        MT_SYNC_FN(MT_SYNC, unlock)(&r->lock);
    }
    if (MT_UNLIKELY(!kept))
        carrcache_lk_free_slow(ctx->ptr, c, ctx->cpu, next);
    return NULL;
}

/* Every CPU's magazines go back below, one class at a time (the blocks are
 * freed after the record's lock is dropped). True if there were any. */
MT_SLOW bool carrcache_lk_flush_all(void)
{
    void *out[MT_CARRCACHE_SLOTS];
    bool any = false;
    for (size_t k = 0; k < MT_CARRCACHE_CPUS; k++) {
        carrcache_lk_record *r = &carrcache_lk_cpus[k];
        if (!mt_load_relaxed(&r->store))
            continue;
        for (size_t c = carrcache_lk_first(); c < carrcache_lk_end(); c++) {
            MT_SYNC_FN(MT_SYNC, lock)(&r->lock);
            size_t n = mt_magazine_unload(&r->mag[c], SIZE_MAX, out);
            MT_SYNC_FN(MT_SYNC, unlock)(&r->lock);
            mt_cache_give(out, n, MT_BELOW(free));
            any |= n != 0;
        }
    }
    return any;
}

#define MT_IMPLEMENTS_purge
MT_INLINE void *carrcache_lk_purge(mt_ctx *ctx, mt_lfunc *next)
{
    bool any = carrcache_lk_flush_all();
    return (next(ctx) || any) ? (void *)1 : NULL;
}

#define MT_IMPLEMENTS_fork_prepare
MT_INLINE void *carrcache_lk_fork_prepare(mt_ctx *ctx, mt_lfunc *next)
{
    for (size_t k = 0; k < MT_CARRCACHE_CPUS; k++)
        MT_SYNC_FN(MT_SYNC, lock)(&carrcache_lk_cpus[k].lock);
    return next(ctx);
}
#define MT_IMPLEMENTS_fork_parent
MT_INLINE void *carrcache_lk_fork_parent(mt_ctx *ctx, mt_lfunc *next)
{
    next(ctx);
    for (size_t k = 0; k < MT_CARRCACHE_CPUS; k++)
        MT_SYNC_FN(MT_SYNC, unlock)(&carrcache_lk_cpus[k].lock);
    return NULL;
}
#define MT_IMPLEMENTS_fork_child
MT_INLINE void *carrcache_lk_fork_child(mt_ctx *ctx, mt_lfunc *next)
{
    next(ctx);
    for (size_t k = 0; k < MT_CARRCACHE_CPUS; k++)
        MT_SYNC_FN(MT_SYNC, init)(&carrcache_lk_cpus[k].lock);
    return NULL;
}

#include "../written/carrcache_lk/cache_check.inl" /* cached_in, check_magazine */

/* Every CPU record's magazines, each under its record's lock. */
#define MT_HAS_INVARIANTS /* check: these, then the layers below (core/ops.h) */
MT_SLOW MT_UNUSED const char *carrcache_lk_invariants(void)
{
    const char *broken = NULL;
    for (size_t k = 0; k < MT_CARRCACHE_CPUS && !broken; k++) {
        carrcache_lk_record *r = &carrcache_lk_cpus[k];
        MT_SYNC_FN(MT_SYNC, lock)(&r->lock);
        for (size_t c = carrcache_lk_first(); c < carrcache_lk_end() && !broken; c++)
            broken = carrcache_lk_check_magazine(&r->mag[c], c);
        MT_SYNC_FN(MT_SYNC, unlock)(&r->lock);
    }
    return broken;
}

#define MT_DESCRIPTOR MT_DESCRIPTOR_carrcache_lk
#include "../core/layer_end.h"
/* Forget this instance's slots: the next instance starts from the defaults. */
#undef MT_SIZE_HANDLE
#undef MT_SYNC
#undef MT_SIZECLASS
#undef MT_SIZECLASS_STEP
#undef MT_CACHE_SIZE
#undef MT_LOCK_STAT
#undef MT_CARRCACHE_CPUS
#undef MT_CARRCACHE_SLOTS
#ifdef MT_NAMES_carrcache_lk
#include "../names/carrcache_lk.h" /* forget them */
#endif
#endif /* MT_DESCRIBE */

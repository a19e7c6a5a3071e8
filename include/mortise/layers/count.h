/* count — count allocations and frees per size range.
 *
 * The worked example of docs/writing-a-layer.md (the main paper's Figure 4
 * counts requests of one size; this one keeps a histogram).
 * Serves: nothing; counts, then forwards every operation. A block is counted
 *   under its usable size as the layers below report it (MT_BELOW(getmeta)),
 *   so an alloc and the free of the same block land in the same bucket and
 *   allocs - frees is the number of live blocks per bucket. Bucket k holds
 *   usable sizes in [2^k, 2^(k+1)), k < MT_COUNT_BUCKETS (48).
 *   A resize that changes the usable size counts as a free and an alloc.
 * Slots: size_handle=[lo, hi] → MT_SIZE_HANDLE (0, SIZE_MAX): only blocks
 *   whose usable size is in [lo, hi) are counted (the others pass uncounted).
 * Reading: NAME_bucket(k) and NAME_total() return {allocs, frees}; the
 *   counters are process-wide (one relaxed atomic add per counted request).
 * Needs from below: getmeta for every block it hands out.
 * Time: one getmeta below per alloc and free, one atomic add. Space: 768
 *   bytes of counters per instance. Thread safety: all operations; no lock.
 * Fails: never itself.
 * Example: mmap_heap::segfit_lk::count(size_handle=[0, 1024])::malloc_socket
 */
/* The layer's descriptor (core/describe.h): the data tools/describe_layers.py
 * reads and core/layer_end.h checks the slots against. */
#define MT_DESCRIPTOR_count(LAYER, SLOT) \
    LAYER(count, addon, 0, (), ())       \
    MT_OPS(SLOT, alloc, free, resize)    \
    MT_SLOT_SIZE_HANDLE(SLOT, 0, SIZE_MAX)
#ifndef MT_DESCRIBE /* describe mode reads the descriptor alone */
#include "../core/layer.h"

#ifdef MT_NAME /* another instance name: the names below become its own */
#include "../names/count.h"
#else
#define MT_NAME count
#endif
#ifndef MT_SIZE_HANDLE
#define MT_SIZE_HANDLE 0, SIZE_MAX
#endif

#ifndef MORTISE_LAYERS_COUNT_TYPES
#define MORTISE_LAYERS_COUNT_TYPES
#define MT_COUNT_BUCKETS 48
typedef struct {
    uint64_t allocs, frees;
} mt_count_pair;
#endif

MT_DECLARE_BELOW(getmeta);

static struct {
    _Atomic(uint64_t) allocs[MT_COUNT_BUCKETS], frees[MT_COUNT_BUCKETS];
} count_counters;

/* The usable size of block p according to the layers below; 0 if none owns it. */
MT_INLINE size_t count_usable(void *p)
{
    mt_ctx q = mt_ctx_for_alloc(0, 1);
    mt_ctx_route(&q, p);
    return MT_BELOW(getmeta)(&q) ? q.usable : 0;
}

/* Count one block of `usable` bytes in `counter` if size_handle takes it. */
MT_INLINE void count_tally(_Atomic(uint64_t) *counter, size_t usable)
{
    if (!usable || !mt_size_in(usable, MT_SIZE_HANDLE_LO(MT_SIZE_HANDLE), MT_SIZE_HANDLE_HI(MT_SIZE_HANDLE)))
        return;
    unsigned k = mt_log2_floor(usable);
    atomic_fetch_add_explicit(&counter[k < MT_COUNT_BUCKETS ? k : MT_COUNT_BUCKETS - 1], 1,
                              memory_order_relaxed);
}

#define MT_IMPLEMENTS_alloc
MT_INLINE void *count_alloc(mt_ctx *ctx, mt_lfunc *next)
{
    void *p = next(ctx);
    if (p)
        count_tally(count_counters.allocs, count_usable(p));
    return p;
}

#define MT_IMPLEMENTS_free
MT_INLINE void *count_free(mt_ctx *ctx, mt_lfunc *next)
{
    mt_ctx q = *ctx; /* getmeta writes q.usable; the free goes on unchanged */
    if (MT_BELOW(getmeta)(&q))
        count_tally(count_counters.frees, q.usable);
    return next(ctx);
}

#define MT_IMPLEMENTS_resize
MT_INLINE void *count_resize(mt_ctx *ctx, mt_lfunc *next)
{
    size_t before = count_usable(ctx->ptr);
    void *q = next(ctx);
    size_t after = q ? count_usable(q) : before;
    if (after != before) {
        count_tally(count_counters.frees, before);
        count_tally(count_counters.allocs, after);
    }
    return q;
}

/* Allocs and frees counted in bucket k: usable sizes in [2^k, 2^(k+1)). */
MT_UNUSED static mt_count_pair count_bucket(unsigned k)
{
    mt_count_pair r = {0, 0};
    if (k < MT_COUNT_BUCKETS) {
        r.allocs = atomic_load_explicit(&count_counters.allocs[k], memory_order_relaxed);
        r.frees = atomic_load_explicit(&count_counters.frees[k], memory_order_relaxed);
    }
    return r;
}

MT_UNUSED static mt_count_pair count_total(void)
{
    mt_count_pair r = {0, 0};
    for (unsigned k = 0; k < MT_COUNT_BUCKETS; k++) {
        mt_count_pair b = count_bucket(k);
        r.allocs += b.allocs;
        r.frees += b.frees;
    }
    return r;
}

#define MT_DESCRIPTOR MT_DESCRIPTOR_count
#include "../core/layer_end.h"
/* Forget this instance's slots: the next instance starts from the defaults. */
#undef MT_SIZE_HANDLE
#ifdef MT_NAMES_count
#include "../names/count.h" /* forget them */
#endif
#endif /* MT_DESCRIBE */

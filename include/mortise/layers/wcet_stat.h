/* wcet_stat — latency distribution of the requests below it.
 *
 * The paper's worst-case measurement layer (section 4.3): times alloc, free
 * and resize through the layers below it with the cycle counter, one
 * request in sample_every per thread and kind (timing every request would
 * slow the allocator and ease the contention being measured), into a
 * log-linear histogram (32 buckets per power of two: a percentile is at most
 * 1/32 above the truth) that reaches the 99.9999th percentile, plus the
 * exact maximum. Every request is counted, timed or not.
 * Slots: sample_every=N → MT_SAMPLE_EVERY (8): time the thread's N-th, 2N-th
 *   ... request of each kind.
 *   pin_threads=0|1 → MT_PIN_THREADS (0): pin each thread, on its first
 *   request, to the next CPU of the process's affinity mask, round robin,
 *   so the scheduler does not move threads while they are measured.
 * Reports: docs/stats.md (MORTISE_STATS=1, MORTISE_STATS=json:PATH, the
 *   stats API): per kind count, samples, p50 p90 p99 p99.9 p99.99 p99.999
 *   p99.9999 and max, in ns and in cycles.
 * Needs from below: nothing; every operation is forwarded.
 * Time: an untimed request adds a TLS load, a load and a store to the
 *   thread's own counter and a compare; a timed one adds two fenced
 *   counter reads (x86: lfence+rdtsc, rdtscp+lfence; elsewhere
 *   clock_gettime) and a histogram update. A thread's first request claims a
 *   slot (and pins the thread when asked).
 * Space: a slot of 27.7 KiB per thread, MT_STATS_THREADS (128) slots per
 *   instance in BSS (untouched slots cost no memory); more threads share the
 *   last slot with atomic adds.
 * Thread safety: all operations; a thread writes only its own slot. No lock.
 * Fails: never itself. Hosted only (clock_gettime, sched_setaffinity).
 * Example: malloc_heap(passthrough=1)::wcet_stat(pin_threads=1)::malloc_socket
 *   (instances/wcet_stat_malloc.c: measures whichever malloc is loaded next)
 */
/* The layer's descriptor (core/describe.h): the data tools/describe_layers.py
 * reads and core/layer_end.h checks the slots against. */
#define MT_DESCRIPTOR_wcet_stat(LAYER, SLOT)                     \
    LAYER(wcet_stat, addon, MT_TRAIT_NEEDS_OWNER, (), ())        \
    MT_OPS(SLOT, alloc, free, resize, thread_exit, fork_child)   \
    SLOT(sample_every, MT_SAMPLE_EVERY, N, 8, (1, SIZE_MAX), ()) \
    SLOT(pin_threads, MT_PIN_THREADS, BOOL, 0, (0, 1), ())
#ifndef MT_DESCRIBE /* describe mode reads the descriptor alone */
#include "../core/layer.h"
#include "../stats/registry.h"

#ifdef MT_NAME /* another instance name: the names below become its own */
#include "../names/wcet_stat.h"
#else
#define MT_NAME wcet_stat
#endif
#ifndef MT_SAMPLE_EVERY
#define MT_SAMPLE_EVERY 8
#endif
#ifndef MT_PIN_THREADS
#define MT_PIN_THREADS 0
#endif
#ifndef MORTISE_LAYERS_WCET_STAT_TYPES
#define MORTISE_LAYERS_WCET_STAT_TYPES
enum { MT_WCET_ALLOC, MT_WCET_FREE, MT_WCET_RESIZE, MT_WCET_OPS };
static const char *const mt_wcet_op_names[MT_WCET_OPS] = {"alloc", "free", "resize"};

typedef struct {
    _Atomic(uint64_t) count, samples, max;
    _Atomic(uint64_t) hist[MT_HIST_BUCKETS];
} mt_wcet_op;

typedef struct {
    mt_wcet_op op[MT_WCET_OPS];
} MT_CACHE_ALIGNED mt_wcet_slot;

MT_UNUSED static void mt_wcet_record(mt_wcet_op *op, uint64_t ticks, bool shared)
{
    mt_stats_add(&op->samples, 1, shared);
    mt_stats_add(&op->hist[mt_hist_index(ticks)], 1, shared);
    mt_stats_max(&op->max, ticks, shared);
}

/* One kind of request summed over the slots: count, samples, max and the
 * histogram (hist: MT_HIST_BUCKETS words, from the caller). */
MT_UNUSED static void mt_wcet_sum(const mt_wcet_slot *slots, unsigned n, unsigned kind, uint64_t *hist,
                                  uint64_t *count, uint64_t *samples, uint64_t *max)
{
    *count = *samples = *max = 0;
    memset(hist, 0, MT_HIST_BUCKETS * sizeof *hist);
    for (unsigned s = 0; s < n; s++) {
        const mt_wcet_op *op = &slots[s].op[kind];
        *count += mt_load_relaxed(&op->count);
        uint64_t got = mt_load_relaxed(&op->samples);
        if (!got)
            continue;
        uint64_t m = mt_load_relaxed(&op->max);
        *max = m > *max ? m : *max;
        for (unsigned i = 0; i < MT_HIST_BUCKETS; i++)
            hist[i] += mt_load_relaxed(&op->hist[i]);
    }
    /* samples from the histogram itself, so a sample recorded while we read
     * cannot put a rank beyond the buckets */
    for (unsigned i = 0; i < MT_HIST_BUCKETS; i++)
        *samples += hist[i];
}

MT_UNUSED static void mt_wcet_report(mt_stats_out *o, const char *layer, const mt_wcet_slot *slots,
                                     unsigned n, unsigned every, unsigned pinned)
{
    uint64_t hist[MT_HIST_BUCKETS], count, samples, max, q[MT_STATS_QUANTILES];
    mt_so_begin_layer(o, layer, "wcet_stat");
    if (o->json) {
        mt_so_kv_u64(o, "sample_every", every);
        mt_so_kv_u64(o, "pinned_threads", pinned);
        mt_so_kv_u64(o, "timer_overhead_cycles", mt_stats_epoch.overhead);
        mt_so_open(o, "ops", "{");
    } else {
        mt_so_str(o, ": latency in ns, 1 in ");
        mt_so_u64(o, every, 0);
        mt_so_str(o, " requests timed, ");
        mt_so_u64(o, pinned, 0);
        mt_so_str(o, " threads pinned, timer overhead ");
        mt_so_u64(o, mt_stats_epoch.overhead, 0);
        mt_so_str(o, " cycles\n  op              count    samples");
        for (unsigned k = 0; k < MT_STATS_QUANTILES; k++)
            mt_so_pad(o, mt_stats_quantiles[k].name, 10);
        mt_so_str(o, "       max\n");
    }
    for (unsigned kind = 0; kind < MT_WCET_OPS; kind++) {
        mt_wcet_sum(slots, n, kind, hist, &count, &samples, &max);
        for (unsigned k = 0; k < MT_STATS_QUANTILES; k++)
            q[k] = mt_hist_quantile(hist, samples, max, mt_stats_quantiles[k].q);
        if (!o->json) {
            mt_so_str(o, "  ");
            mt_so_pad(o, mt_wcet_op_names[kind], -8);
            mt_so_u64(o, count, 11);
            mt_so_u64(o, samples, 11);
            for (unsigned k = 0; k < MT_STATS_QUANTILES; k++)
                mt_so_u64(o, mt_stats_to_ns(q[k], o->ticks_per_us), 10);
            mt_so_u64(o, mt_stats_to_ns(max, o->ticks_per_us), 10);
            mt_so_str(o, "\n");
            continue;
        }
        mt_so_open(o, mt_wcet_op_names[kind], "{");
        mt_so_kv_u64(o, "count", count);
        mt_so_kv_u64(o, "samples", samples);
        for (int cycles = 0; cycles < 2; cycles++) {
            mt_so_open(o, cycles ? "percentiles_cycles" : "percentiles_ns", "{");
            for (unsigned k = 0; k < MT_STATS_QUANTILES; k++)
                mt_so_kv_u64(o, mt_stats_quantiles[k].name,
                             cycles ? q[k] : mt_stats_to_ns(q[k], o->ticks_per_us));
            mt_so_close(o, "}");
        }
        mt_so_kv_u64(o, "max_ns", mt_stats_to_ns(max, o->ticks_per_us));
        mt_so_kv_u64(o, "max_cycles", max);
        mt_so_close(o, "}");
    }
    if (o->json)
        mt_so_close(o, "}");
    mt_so_end_layer(o);
}
#endif

#define MT_STAT_SLOT_T mt_wcet_slot
#include "../written/wcet_stat/stats_slots.inl"

static void wcet_stat_report(mt_stats_out *o)
{
    mt_wcet_report(o, MT_STR(MT_NAME), wcet_stat_state.slot, MT_STATS_THREADS, MT_SAMPLE_EVERY,
                   mt_load_relaxed(&wcet_stat_state.pinned));
}

/* Count the request; time it if it is the thread's sample_every-th. */
MT_INLINE void *wcet_stat_measure(unsigned kind, mt_ctx *ctx, mt_lfunc *next)
{
    mt_wcet_slot *s = wcet_stat_slot();
    bool shared = wcet_stat_shared(s);
    if (MT_LIKELY(mt_stats_add(&s->op[kind].count, 1, shared) % MT_SAMPLE_EVERY))
        return next(ctx);
    uint64_t t0 = mt_stats_begin();
    void *r = next(ctx);
    uint64_t ticks = mt_stats_end() - t0;
    mt_wcet_record(&s->op[kind], ticks, shared);
    return r;
}

#define MT_STAT_OP MT_WCET_
#include "../written/wcet_stat/stats_measure_ops.inl"

#undef MT_STAT_SLOT_T
/* Every free is counted here before the owner is known: the socket drops
 * pointers no layer owns first, so foreign frees are not counted. */
#define MT_DESCRIPTOR MT_DESCRIPTOR_wcet_stat
#include "../core/layer_end.h"
/* Forget this instance's slots: the next instance starts from the defaults. */
#undef MT_SAMPLE_EVERY
#undef MT_PIN_THREADS
#ifdef MT_NAMES_wcet_stat
#include "../names/wcet_stat.h" /* forget them */
#endif
#endif /* MT_DESCRIBE */

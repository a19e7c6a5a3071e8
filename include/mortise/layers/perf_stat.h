/* perf_stat — count and mean time of the requests below it.
 *
 * The paper's average-time layer: every alloc, free and resize that passes
 * is counted and timed (the layers below it, from this layer's view), and
 * the report gives per kind the count, the total and the mean in cycles
 * and nanoseconds. Where wcet_stat answers "how bad can one request be",
 * this one answers "what does a request cost on average", e.g. to compare
 * two placements of a cache: put one perf_stat above it and one below.
 * Slots: none.
 * Reports: docs/stats.md (MORTISE_STATS=1, MORTISE_STATS=json:PATH, the
 *   stats API). The timer's own cost (timer_overhead_cycles in wcet_stat's
 *   report: the smallest empty interval seen at start) is included, not
 *   subtracted.
 * Needs from below: nothing; every operation is forwarded.
 * Time: two fenced counter reads (x86) or clock_gettime calls (elsewhere),
 *   two loads and stores to the thread's own slot per request.
 * Space: a 64-byte slot per thread, MT_STATS_THREADS (128) per instance;
 *   more threads share the last slot with atomic adds.
 * Thread safety: all operations; a thread writes only its own slot. No lock.
 * Fails: never itself. Hosted only.
 * Example: mmap_heap::segfit_lk::perf_stat::thread_cache::perf_stat(name=top)::malloc_socket
 *   (the cost of the thread cache's misses, and of the whole)
 */
/* The layer's descriptor (core/describe.h): the data tools/describe_layers.py
 * reads and core/layer_end.h checks the slots against. */
#define MT_DESCRIPTOR_perf_stat(LAYER, SLOT)              \
    LAYER(perf_stat, addon, MT_TRAIT_NEEDS_OWNER, (), ()) \
    MT_OPS(SLOT, alloc, free, resize, thread_exit, fork_child)
#ifndef MT_DESCRIBE /* describe mode reads the descriptor alone */
#include "../core/layer.h"
#include "../stats/registry.h"

#ifdef MT_NAME /* another instance name: the names below become its own */
#include "../names/perf_stat.h"
#else
#define MT_NAME perf_stat
#endif

#ifndef MORTISE_LAYERS_PERF_STAT_TYPES
#define MORTISE_LAYERS_PERF_STAT_TYPES
enum { MT_PERF_ALLOC, MT_PERF_FREE, MT_PERF_RESIZE, MT_PERF_OPS };

typedef struct {
    _Atomic(uint64_t) count[MT_PERF_OPS], ticks[MT_PERF_OPS];
} MT_CACHE_ALIGNED mt_perf_slot;

MT_UNUSED static void mt_perf_report(mt_stats_out *o, const char *layer, const mt_perf_slot *slots,
                                     unsigned n)
{
    static const char *const names[MT_PERF_OPS] = {"alloc", "free", "resize"};
    mt_so_begin_layer(o, layer, "perf_stat");
    if (o->json)
        mt_so_open(o, "ops", "{");
    else
        mt_so_str(o, ": every request timed\n  op              count    mean ns  mean cycles\n");
    for (unsigned kind = 0; kind < MT_PERF_OPS; kind++) {
        uint64_t count = 0, ticks = 0;
        for (unsigned s = 0; s < n; s++) {
            count += mt_load_relaxed(&slots[s].count[kind]);
            ticks += mt_load_relaxed(&slots[s].ticks[kind]);
        }
        uint64_t mean10 = mt_stats_mean10(ticks, count);
        uint64_t mean10_ns = mt_stats_to_ns(mean10, o->ticks_per_us);
        if (o->json) {
            mt_so_open(o, names[kind], "{");
            mt_so_kv_u64(o, "count", count);
            mt_so_kv_u64(o, "total_cycles", ticks);
            mt_so_kv_fixed(o, "mean_cycles", mean10, 1);
            mt_so_kv_fixed(o, "mean_ns", mean10_ns, 1);
            mt_so_close(o, "}");
        } else {
            char b[32];
            mt_so_str(o, "  ");
            mt_so_pad(o, names[kind], -8);
            mt_so_u64(o, count, 11);
            mt_so_pad(o, mt_so_fmt(b, mean10_ns, 1), 11);
            mt_so_pad(o, mt_so_fmt(b, mean10, 1), 13);
            mt_so_str(o, "\n");
        }
    }
    if (o->json)
        mt_so_close(o, "}");
    mt_so_end_layer(o);
}
#endif

#define MT_STAT_SLOT_T mt_perf_slot
#include "../written/perf_stat/stats_slots.inl"

static void perf_stat_report(mt_stats_out *o)
{
    mt_perf_report(o, MT_STR(MT_NAME), perf_stat_state.slot, MT_STATS_THREADS);
}

MT_INLINE void *perf_stat_measure(unsigned kind, mt_ctx *ctx, mt_lfunc *next)
{
    mt_perf_slot *s = perf_stat_slot();
    bool shared = perf_stat_shared(s);
    uint64_t t0 = mt_stats_begin();
    void *r = next(ctx);
    uint64_t ticks = mt_stats_end() - t0;
    mt_stats_add(&s->count[kind], 1, shared);
    mt_stats_add(&s->ticks[kind], ticks, shared);
    return r;
}

#define MT_STAT_OP MT_PERF_
#include "../written/perf_stat/stats_measure_ops.inl"

#undef MT_STAT_SLOT_T
/* Every free is counted here before the owner is known: the socket drops
 * pointers no layer owns first, so foreign frees are not counted. */
#define MT_DESCRIPTOR MT_DESCRIPTOR_perf_stat
#include "../core/layer_end.h"
#ifdef MT_NAMES_perf_stat
#include "../names/perf_stat.h" /* forget them */
#endif
#endif /* MT_DESCRIBE */

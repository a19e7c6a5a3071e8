/* szcls_stat — size-class histogram of the requests passing.
 *
 * The paper's size-distribution layer: every alloc request is counted under
 * the class its requested size falls in (the smallest class of the slot's
 * policy holding it), every resize request under the class of its new
 * size, and frees are counted in total (a free carries no size). The report
 * lists the classes that saw a request, with the policy's block size, so
 * the histogram shows which classes a workload needs and which sizes it
 * rounds up (choose a sizeclass policy, a size_handle split or a cache
 * size from it).
 * Slots: sizeclass=NAME → MT_SIZECLASS (log2b): the classes to count in
 *   (log2b, interval, tc, supermalloc, prime; policy/sizeclass/); requests
 *   above the policy's last class are counted as "above".
 * Reports: docs/stats.md (MORTISE_STATS=1, MORTISE_STATS=json:PATH, the
 *   stats API).
 * Needs from below: nothing; every operation is forwarded.
 * Time: the policy's index computation and a load and a store to the
 *   thread's own slot per alloc or resize; one per free.
 * Space: a slot of 16 bytes per class (+ 24) per thread, MT_STATS_THREADS
 *   (128) slots per instance in BSS (log2b: 2.7 KiB a slot; interval:
 *   64 KiB); more threads share the last slot with atomic adds.
 * Thread safety: all operations; a thread writes only its own slot. No lock.
 * Fails: never itself. Hosted only.
 * Example: mmap_heap::segfit_lk::szcls_stat(sizeclass=tc)::malloc_socket
 */
/* The layer's descriptor (core/describe.h): the data tools/describe_layers.py
 * reads and core/layer_end.h checks the slots against. */
#define MT_DESCRIPTOR_szcls_stat(LAYER, SLOT)                  \
    LAYER(szcls_stat, addon, MT_TRAIT_NEEDS_OWNER, (), ())     \
    MT_OPS(SLOT, alloc, free, resize, thread_exit, fork_child) \
    SLOT(sizeclass, MT_SIZECLASS, NAME, log2b, (), ())
#ifndef MT_DESCRIBE /* describe mode reads the descriptor alone */
#include "../core/layer.h"
#include "../stats/registry.h"

#ifdef MT_NAME /* another instance name: the names below become its own */
#include "../names/szcls_stat.h"
#else
#define MT_NAME szcls_stat
#endif
#include "../written/szcls_stat/policy_sizeclass_slot.inl"

#define MT__SZ_CLASSES MT_SZCLS_CLASSES(MT_SIZECLASS)

#ifndef MORTISE_LAYERS_SZCLS_STAT_TYPES
#define MORTISE_LAYERS_SZCLS_STAT_TYPES
MT_UNUSED static void mt_szcls_report_head(mt_stats_out *o, const char *layer, const char *policy,
                                           uint64_t allocs, uint64_t resizes, uint64_t frees)
{
    mt_so_begin_layer(o, layer, "szcls_stat");
    if (o->json) {
        mt_so_kv_str(o, "sizeclass", policy);
        mt_so_kv_u64(o, "allocs", allocs);
        mt_so_kv_u64(o, "resizes", resizes);
        mt_so_kv_u64(o, "frees", frees);
        mt_so_open(o, "classes", "[");
        return;
    }
    mt_so_str(o, " (sizeclass=");
    mt_so_str(o, policy);
    mt_so_str(o, "): ");
    mt_so_u64(o, allocs, 0);
    mt_so_str(o, " allocs, ");
    mt_so_u64(o, resizes, 0);
    mt_so_str(o, " resizes, ");
    mt_so_u64(o, frees, 0);
    mt_so_str(o, " frees\n  class       size     allocs    resizes\n");
}

/* One class's row; class_index < 0: the requests above the last class. */
MT_UNUSED static void mt_szcls_report_row(mt_stats_out *o, long class_index, size_t size, uint64_t allocs,
                                          uint64_t resizes)
{
    if (o->json) {
        if (class_index < 0) {
            mt_so_close(o, "]");
            mt_so_open(o, "above", "{");
        } else {
            mt_so_open(o, NULL, "{");
            mt_so_kv_u64(o, "class", (uint64_t)class_index);
            mt_so_kv_u64(o, "size", size);
        }
        mt_so_kv_u64(o, "allocs", allocs);
        mt_so_kv_u64(o, "resizes", resizes);
        mt_so_close(o, "}");
        return;
    }
    mt_so_str(o, "  ");
    if (class_index < 0) {
        mt_so_pad(o, "above", -5);
        mt_so_pad(o, "", 11);
    } else {
        mt_so_u64(o, (uint64_t)class_index, 5);
        mt_so_u64(o, size, 11);
    }
    mt_so_u64(o, allocs, 11);
    mt_so_u64(o, resizes, 11);
    mt_so_str(o, "\n");
}
#endif

/* One thread's counts: [MT__SZ_CLASSES] counts what is above every class. */
typedef struct {
    _Atomic(uint64_t) allocs[MT__SZ_CLASSES + 1], resizes[MT__SZ_CLASSES + 1], frees;
} MT_CACHE_ALIGNED szcls_stat_slot_t;

#define MT_STAT_SLOT_T MT_SELF(slot_t)
#include "../written/szcls_stat/stats_slots.inl"

static void szcls_stat_report(mt_stats_out *o)
{
    uint64_t allocs = 0, resizes = 0, frees = 0;
    for (unsigned s = 0; s < MT_STATS_THREADS; s++) {
        frees += mt_load_relaxed(&szcls_stat_state.slot[s].frees);
        for (size_t c = 0; c <= MT__SZ_CLASSES; c++) {
            allocs += mt_load_relaxed(&szcls_stat_state.slot[s].allocs[c]);
            resizes += mt_load_relaxed(&szcls_stat_state.slot[s].resizes[c]);
        }
    }
    mt_szcls_report_head(o, MT_STR(MT_NAME), MT_STR(MT_SIZECLASS), allocs, resizes, frees);
    for (size_t c = 0; c <= MT__SZ_CLASSES; c++) {
        uint64_t a = 0, r = 0;
        for (unsigned s = 0; s < MT_STATS_THREADS; s++) {
            a += mt_load_relaxed(&szcls_stat_state.slot[s].allocs[c]);
            r += mt_load_relaxed(&szcls_stat_state.slot[s].resizes[c]);
        }
        if (c == MT__SZ_CLASSES)
            mt_szcls_report_row(o, -1, 0, a, r);
        else if (a || r)
            mt_szcls_report_row(o, (long)c, MT_SZCLS_FN(MT_SIZECLASS, size)(c), a, r);
    }
    mt_so_end_layer(o);
}

/* The class of a request size; MT__SZ_CLASSES above the last class. */
MT_INLINE size_t szcls_stat_class_of(size_t size)
{
    size_t c = MT_SZCLS_FN(MT_SIZECLASS, index)(size);
    return c < MT__SZ_CLASSES ? c : MT__SZ_CLASSES;
}

#define MT_IMPLEMENTS_alloc
MT_INLINE void *szcls_stat_alloc(mt_ctx *ctx, mt_lfunc *next)
{
    szcls_stat_slot_t *s = szcls_stat_slot();
    mt_stats_add(&s->allocs[szcls_stat_class_of(ctx->size)], 1, szcls_stat_shared(s));
    if (ctx->chain == MT_ALLOC_QUICK)
        ctx->chain = NULL; /* counted once: no miss for the asker to repeat (core/ctx.h) */
    return next(ctx);
}

#define MT_IMPLEMENTS_free
MT_INLINE void *szcls_stat_free(mt_ctx *ctx, mt_lfunc *next)
{
    szcls_stat_slot_t *s = szcls_stat_slot();
    mt_stats_add(&s->frees, 1, szcls_stat_shared(s));
    return next(ctx);
}

#define MT_IMPLEMENTS_resize
MT_INLINE void *szcls_stat_resize(mt_ctx *ctx, mt_lfunc *next)
{
    szcls_stat_slot_t *s = szcls_stat_slot();
    mt_stats_add(&s->resizes[szcls_stat_class_of(ctx->size)], 1, szcls_stat_shared(s));
    return next(ctx);
}

#undef MT_STAT_SLOT_T
#undef MT__SZ_CLASSES
/* Every free is counted here before the owner is known: the socket drops
 * pointers no layer owns first, so foreign frees are not counted. */
#define MT_DESCRIPTOR MT_DESCRIPTOR_szcls_stat
#include "../core/layer_end.h"
/* Forget this instance's slots: the next instance starts from the defaults. */
#undef MT_SIZECLASS
#undef MT_SIZECLASS_STEP
#ifdef MT_NAMES_szcls_stat
#include "../names/szcls_stat.h" /* forget them */
#endif
#endif /* MT_DESCRIBE */

/* mortise/written/szcls_stat/stats_slots.inl — stats/slots.h written out for szcls_stat by
 * tools/layer_names.py; do not edit: edit stats/slots.h, then run --write. */
/* mortise/stats/slots.h — the per-thread slots of a statistics layer
 * (wcet_stat, perf_stat, szcls_stat): claimed on a thread's first request,
 * given back by thread_exit, freed in a fork child; and the layer's entry in
 * the stats registry (stats/registry.h).
 *
 * A template fragment, included inside the layer's header (MT_NAME defined)
 * after it has defined MT_STAT_SLOT_T, the slot type (one thread's
 * counters), and, if it pins threads, MT_PIN_THREADS (1). It declares the
 * layer's state, szcls_stat_state: .used (a slot claimed), .pinned (threads
 * pinned) and .slot[MT_STATS_THREADS], and szcls_stat_report(mt_stats_out *),
 * which the layer defines after it. It defines szcls_stat_slot()
 * (the calling thread's slot), szcls_stat_shared(slot) (true for the slot
 * threads share when all others are taken: update it with atomic adds),
 * thread_exit and fork_child, and forwards the operations a statistics
 * layer never acts on (create, getmeta, fork_prepare, fork_parent, purge);
 * the layer defines alloc, free and resize (stats/measure_ops.h where it
 * measures the three alike). The layer #undefs
 * MT_STAT_SLOT_T at its end.
 */

static struct {
    _Atomic(unsigned char) used[MT_STATS_THREADS];
    _Atomic(unsigned) pinned;
    MT_STAT_SLOT_T slot[MT_STATS_THREADS];
} szcls_stat_state;

static void szcls_stat_report(mt_stats_out *o);

static MT_TLS MT_STAT_SLOT_T *szcls_stat_mine;

static mt_stats_entry szcls_stat_entry = {.layer = MT_STR(MT_NAME), .report = szcls_stat_report};

__attribute__((constructor)) static void szcls_stat_register_stats(void) { mt_stats_register(&szcls_stat_entry); }

MT_INLINE mt_stats_slots szcls_stat_slots(void)
{
    return (mt_stats_slots){szcls_stat_state.used, (char *)szcls_stat_state.slot, sizeof(MT_STAT_SLOT_T),
                            MT_STATS_THREADS};
}

/* A thread's first request: its slot, its pinning, its thread_exit. */
MT_SLOW MT_STAT_SLOT_T *szcls_stat_attach(void)
{
    int saved = mt_pal_errno();
    mt_stats_register(&szcls_stat_entry);
    szcls_stat_mine = mt_stats_slot_attach(szcls_stat_slots());
    mt_thread_attach(); /* thread_exit gives the slot back */
#if defined(MT_PIN_THREADS) && MT_PIN_THREADS
    if (mt_stats_pin_thread())
        atomic_fetch_add_explicit(&szcls_stat_state.pinned, 1, memory_order_relaxed);
#endif
    mt_pal_set_errno(saved);
    return szcls_stat_mine;
}

MT_INLINE MT_STAT_SLOT_T *szcls_stat_slot(void)
{
    MT_STAT_SLOT_T *s = szcls_stat_mine;
    return MT_LIKELY(s) ? s : szcls_stat_attach();
}

MT_INLINE bool szcls_stat_shared(const MT_STAT_SLOT_T *s) { return mt_stats_slot_shared(szcls_stat_slots(), s); }

#define MT_IMPLEMENTS_thread_exit
MT_INLINE void *szcls_stat_thread_exit(mt_ctx *ctx, mt_lfunc *next)
{
    mt_stats_slot_release(szcls_stat_slots(), szcls_stat_mine);
    szcls_stat_mine = NULL;
    return next(ctx);
}

#define MT_IMPLEMENTS_fork_child
MT_INLINE void *szcls_stat_fork_child(mt_ctx *ctx, mt_lfunc *next)
{
    void *r = next(ctx);
    mt_stats_slot_fork_child(szcls_stat_slots(), szcls_stat_mine);
    return r;
}

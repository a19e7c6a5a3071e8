/* mortise/stats/slots.h — the per-thread slots of a statistics layer
 * (wcet_stat, perf_stat, szcls_stat): claimed on a thread's first request,
 * given back by thread_exit, freed in a fork child; and the layer's entry in
 * the stats registry (stats/registry.h).
 *
 * A template fragment, included inside the layer's header (MT_NAME defined)
 * after it has defined MT_STAT_SLOT_T, the slot type (one thread's
 * counters), and, if it pins threads, MT_PIN_THREADS (1). It declares the
 * layer's state, MT_SELF(state): .used (a slot claimed), .pinned (threads
 * pinned) and .slot[MT_STATS_THREADS], and MT_SELF(report)(mt_stats_out *),
 * which the layer defines after it. It defines MT_SELF(slot)()
 * (the calling thread's slot), MT_SELF(shared)(slot) (true for the slot
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
} MT_SELF(state);

static void MT_SELF(report)(mt_stats_out *o);

static MT_TLS MT_STAT_SLOT_T *MT_SELF(mine);

static mt_stats_entry MT_SELF(entry) = {.layer = MT_STR(MT_NAME), .report = MT_SELF(report)};

__attribute__((constructor)) static void MT_SELF(register_stats)(void) { mt_stats_register(&MT_SELF(entry)); }

MT_INLINE mt_stats_slots MT_SELF(slots)(void)
{
    return (mt_stats_slots){MT_SELF(state).used, (char *)MT_SELF(state).slot, sizeof(MT_STAT_SLOT_T),
                            MT_STATS_THREADS};
}

/* A thread's first request: its slot, its pinning, its thread_exit. */
MT_SLOW MT_STAT_SLOT_T *MT_SELF(attach)(void)
{
    int saved = mt_pal_errno();
    mt_stats_register(&MT_SELF(entry));
    MT_SELF(mine) = mt_stats_slot_attach(MT_SELF(slots)());
    mt_thread_attach(); /* thread_exit gives the slot back */
#if defined(MT_PIN_THREADS) && MT_PIN_THREADS
    if (mt_stats_pin_thread())
        atomic_fetch_add_explicit(&MT_SELF(state).pinned, 1, memory_order_relaxed);
#endif
    mt_pal_set_errno(saved);
    return MT_SELF(mine);
}

MT_INLINE MT_STAT_SLOT_T *MT_SELF(slot)(void)
{
    MT_STAT_SLOT_T *s = MT_SELF(mine);
    return MT_LIKELY(s) ? s : MT_SELF(attach)();
}

MT_INLINE bool MT_SELF(shared)(const MT_STAT_SLOT_T *s) { return mt_stats_slot_shared(MT_SELF(slots)(), s); }

#define MT_IMPLEMENTS_thread_exit
MT_INLINE void *MT_SELF(thread_exit)(mt_ctx *ctx, mt_lfunc *next)
{
    mt_stats_slot_release(MT_SELF(slots)(), MT_SELF(mine));
    MT_SELF(mine) = NULL;
    return next(ctx);
}

#define MT_IMPLEMENTS_fork_child
MT_INLINE void *MT_SELF(fork_child)(mt_ctx *ctx, mt_lfunc *next)
{
    void *r = next(ctx);
    mt_stats_slot_fork_child(MT_SELF(slots)(), MT_SELF(mine));
    return r;
}

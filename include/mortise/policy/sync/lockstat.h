/* lock_stat=1 — lock-contention statistics for any sync policy, per layer.
 *
 * What plockstat showed for the C library's malloc lock in the article
 * on lock contention in multithreaded allocation, built in: a layer instance with the slot
 *     lock_stat=0|1 → MT_LOCK_STAT (0)
 * set to 1 gets, for each of its locks, the number of acquisitions, of
 * contended acquisitions (another thread held the lock or was waiting for
 * it when this one arrived), and the total and the longest wait of the
 * contended ones (arrival to entering the critical section). The report
 * (docs/stats.md) sums them per layer instance and names the hottest lock.
 *
 * Any layer with a sync slot has it, without a line of its own: layers
 * reach their policy only through MT_SYNC_T(MT_SYNC) and
 * MT_SYNC_FN(MT_SYNC, op) (sync.h), which pick mt_lockstat_POLICY (below)
 * when the instance's MT_LOCK_STAT is 1 and mt_sync_POLICY otherwise.
 * lock_stat=0 (or absent) expands to exactly the tokens it did before: the
 * same machine code (tests/layers/stats checks it with objdump).
 *
 * How: the lock object becomes {the policy's lock, a record}. Arriving, a
 * thread adds 1 to the record's `inside` count (threads holding or waiting);
 * a non-zero old value is a contended arrival, and only then is the clock
 * read. Inside the critical section (exclusion holds, so plain loads and
 * stores do) it counts the acquisition and the wait; leaving, it takes 1
 * off `inside`. exec wraps the critical section, so combining and
 * delegation policies (ccsynch, flatcombine, rcl), which run it on another
 * thread, are measured the same way. A lock's record joins the process's
 * list (lock-free push) on its first acquisition, with its layer's name.
 * Cost when on: two atomic read-modify-writes on the lock's cache line per
 * acquisition, two counter reads per contended one. Space: 56 bytes per
 * lock. init() (the fork child's reset) clears `inside` and keeps counts.
 * Hosted only (the timer of stats/registry.h).
 * Example: mmap_heap::segfit_lk(sync=ticket, lock_stat=1)::malloc_socket
 *     #define MT_SYNC ticket
 *     #define MT_LOCK_STAT 1
 *     #include <mortise/layers/segfit_lk.h>
 */
#ifndef MORTISE_POLICY_SYNC_LOCKSTAT_H
#define MORTISE_POLICY_SYNC_LOCKSTAT_H

#include "../../stats/registry.h"

typedef struct mt_lockstat_rec {
    _Atomic(uint32_t) inside; /* threads holding or waiting */
    const char *layer;        /* set on the first acquisition: in the list */
    const char *sync;
    _Atomic(uint64_t) acquisitions, contended, wait, wait_max;
    struct mt_lockstat_rec *next;
} mt_lockstat_rec;

static _Atomic(mt_lockstat_rec *) mt_lockstat_locks;

typedef struct {
    bool contended;
    uint64_t since;
} mt_lockstat_arrival;

MT_INLINE mt_lockstat_arrival mt_lockstat_arrive(mt_lockstat_rec *r)
{
    mt_lockstat_arrival a = {false, 0};
    if (atomic_fetch_add_explicit(&r->inside, 1, memory_order_relaxed)) {
        a.contended = true;
        a.since = mt_stats_begin();
    }
    return a;
}

MT_SLOW MT_UNUSED void mt_lockstat_join(mt_lockstat_rec *r, const char *layer, const char *sync);

/* In the critical section: one writer at a time. */
MT_INLINE void mt_lockstat_enter(mt_lockstat_rec *r, mt_lockstat_arrival a, const char *layer,
                                 const char *sync)
{
    if (MT_UNLIKELY(!r->layer))
        mt_lockstat_join(r, layer, sync);
    mt_stats_add(&r->acquisitions, 1, false);
    if (MT_UNLIKELY(a.contended)) {
        uint64_t waited = mt_stats_end() - a.since;
        mt_stats_add(&r->contended, 1, false);
        mt_stats_add(&r->wait, waited, false);
        mt_stats_max(&r->wait_max, waited, false);
    }
}

MT_INLINE void mt_lockstat_leave(mt_lockstat_rec *r)
{
    atomic_fetch_sub_explicit(&r->inside, 1, memory_order_relaxed);
}

/* exec's critical section, wrapped to count where it really runs. */
typedef struct {
    void *(*cs)(void *);
    void *arg;
    mt_lockstat_rec *rec;
    const char *layer, *sync;
    mt_lockstat_arrival arrival;
} mt_lockstat_call;

MT_UNUSED static void *mt_lockstat_run(void *p)
{
    mt_lockstat_call *c = p;
    mt_lockstat_enter(c->rec, c->arrival, c->layer, c->sync);
    void *result = c->cs(c->arg);
    mt_lockstat_leave(c->rec);
    return result;
}

/* mt_lockstat_POLICY: the policy's lock with a record, and its four calls
 * taking the layer's name first (sync.h passes MT_NAME). */
#define MT_LOCKSTAT_POLICY(policy)                                                 \
    typedef struct {                                                               \
        mt_sync_##policy lock;                                                     \
        mt_lockstat_rec stat;                                                      \
    } mt_lockstat_##policy;                                                        \
    MT_INLINE void mt_lockstat_##policy##_init(const char *layer, mt_lockstat_##policy *l) \
    {                                                                              \
        (void)layer;                                                               \
        mt_sync_##policy##_init(&l->lock);                                         \
        atomic_store_explicit(&l->stat.inside, 0, memory_order_relaxed);           \
    }                                                                              \
    MT_INLINE void mt_lockstat_##policy##_lock(const char *layer, mt_lockstat_##policy *l) \
    {                                                                              \
        mt_lockstat_arrival a = mt_lockstat_arrive(&l->stat);                      \
        mt_sync_##policy##_lock(&l->lock);                                         \
        mt_lockstat_enter(&l->stat, a, layer, #policy);                            \
    }                                                                              \
    MT_INLINE void mt_lockstat_##policy##_unlock(const char *layer, mt_lockstat_##policy *l) \
    {                                                                              \
        (void)layer;                                                               \
        mt_lockstat_leave(&l->stat);                                               \
        mt_sync_##policy##_unlock(&l->lock);                                       \
    }                                                                              \
    MT_INLINE void *mt_lockstat_##policy##_exec(const char *layer, mt_lockstat_##policy *l, \
                                                void *(*cs)(void *), void *arg)    \
    {                                                                              \
        mt_lockstat_call c = {cs, arg, &l->stat, layer, #policy, mt_lockstat_arrive(&l->stat)}; \
        return mt_sync_##policy##_exec(&l->lock, mt_lockstat_run, &c);             \
    }

MT_LOCKSTAT_POLICY(none)
MT_LOCKSTAT_POLICY(spinlock)
MT_LOCKSTAT_POLICY(ticket)
MT_LOCKSTAT_POLICY(mcslock)
MT_LOCKSTAT_POLICY(posix_mutex)
MT_LOCKSTAT_POLICY(posix_spin)
MT_LOCKSTAT_POLICY(ccsynch)
MT_LOCKSTAT_POLICY(flatcombine)
MT_LOCKSTAT_POLICY(rcl)

/* ---- the report: per layer, the sum over its locks and the hottest ---- */

typedef struct {
    uint64_t locks, acquisitions, contended, wait, wait_max;
} mt_lockstat_sum;

MT_UNUSED static void mt_lockstat_report_lock(mt_stats_out *o, const mt_lockstat_sum *s,
                                              bool with_locks)
{
    uint64_t rate = o->ticks_per_us;
    if (o->json) {
        if (with_locks)
            mt_so_kv_u64(o, "locks", s->locks);
        mt_so_kv_u64(o, "acquisitions", s->acquisitions);
        mt_so_kv_u64(o, "contended", s->contended);
        mt_so_kv_u64(o, "wait_ns_total", mt_stats_to_ns(s->wait, rate));
        mt_so_kv_u64(o, "wait_ns_max", mt_stats_to_ns(s->wait_max, rate));
        return;
    }
    if (with_locks) {
        mt_so_u64(o, s->locks, 0);
        mt_so_str(o, " locks, ");
    }
    mt_so_u64(o, s->acquisitions, 0);
    mt_so_str(o, " acquisitions, ");
    mt_so_u64(o, s->contended, 0);
    mt_so_str(o, " contended (");
    char b[32];
    mt_so_str(o, mt_so_fmt(b, s->acquisitions ? s->contended * 10000 / s->acquisitions : 0, 2));
    mt_so_str(o, " %), wait ");
    mt_so_u64(o, mt_stats_to_ns(s->wait, rate), 0);
    mt_so_str(o, " ns total, ");
    mt_so_u64(o, mt_stats_to_ns(s->wait_max, rate), 0);
    mt_so_str(o, " ns max\n");
}

MT_INLINE void mt_lockstat_read(const mt_lockstat_rec *r, mt_lockstat_sum *one)
{
    one->locks = 1;
    one->acquisitions = mt_load_relaxed(&r->acquisitions);
    one->contended = mt_load_relaxed(&r->contended);
    one->wait = mt_load_relaxed(&r->wait);
    one->wait_max = mt_load_relaxed(&r->wait_max);
}

/* Hotter: more contended acquisitions, then more wait, then more
 * acquisitions. */
MT_INLINE bool mt_lockstat_hotter(const mt_lockstat_sum *a, const mt_lockstat_sum *b)
{
    if (a->contended != b->contended)
        return a->contended > b->contended;
    if (a->wait != b->wait)
        return a->wait > b->wait;
    return a->acquisitions > b->acquisitions;
}

MT_UNUSED static void mt_lockstat_report(mt_stats_out *o)
{
    /* the layers, in the order their first lock was taken (the list is
     * newest first) */
    const char *layers[MT_STATS_MAX_ENTRIES];
    unsigned count = 0;
    mt_lockstat_rec *head = mt_load_acquire(&mt_lockstat_locks);
    for (mt_lockstat_rec *r = head; r; r = r->next) {
        unsigned i = 0;
        while (i < count && strcmp(layers[i], r->layer))
            i++;
        if (i == count && count == MT_STATS_MAX_ENTRIES)
            continue;
        for (count -= i < count; i < count; i++) /* an older lock: to the end */
            layers[i] = layers[i + 1];
        layers[count++] = r->layer;
    }
    while (count--) {
        const char *layer = layers[count];
        mt_lockstat_sum sum = {0, 0, 0, 0, 0}, hot = {0, 0, 0, 0, 0}, one;
        const mt_lockstat_rec *hottest = NULL;
        const char *sync = "";
        for (mt_lockstat_rec *r = head; r; r = r->next) {
            if (strcmp(r->layer, layer))
                continue;
            mt_lockstat_read(r, &one);
            sum.locks++;
            sum.acquisitions += one.acquisitions;
            sum.contended += one.contended;
            sum.wait += one.wait;
            sum.wait_max = one.wait_max > sum.wait_max ? one.wait_max : sum.wait_max;
            if (!hottest || mt_lockstat_hotter(&one, &hot)) {
                hot = one;
                hottest = r;
                sync = r->sync;
            }
        }
        mt_so_begin_layer(o, layer, "lock_stat");
        if (o->json) {
            mt_so_kv_str(o, "sync", sync);
            mt_lockstat_report_lock(o, &sum, true);
            mt_so_open(o, "hottest", "{");
            mt_so_key(o, "lock");
            mt_so_str(o, "\"");
            mt_so_hex(o, (uintptr_t)hottest);
            mt_so_str(o, "\"");
            mt_lockstat_report_lock(o, &hot, false);
            mt_so_close(o, "}");
        } else {
            mt_so_str(o, " (sync=");
            mt_so_str(o, sync);
            mt_so_str(o, "): ");
            mt_lockstat_report_lock(o, &sum, true);
            mt_so_str(o, "  hottest lock ");
            mt_so_hex(o, (uintptr_t)hottest);
            mt_so_str(o, ": ");
            mt_lockstat_report_lock(o, &hot, false);
        }
        mt_so_end_layer(o);
    }
}

MT_UNUSED static mt_stats_entry mt_lockstat_entry = {.layer = "lock_stat", .report = mt_lockstat_report};

MT_SLOW MT_UNUSED void mt_lockstat_join(mt_lockstat_rec *r, const char *layer, const char *sync)
{
    r->layer = layer;
    r->sync = sync;
    mt_lockstat_rec *head = mt_load_relaxed(&mt_lockstat_locks);
    do
        r->next = head;
    while (!atomic_compare_exchange_weak_explicit(&mt_lockstat_locks, &head, r,
                                                  memory_order_release, memory_order_relaxed));
    mt_stats_register(&mt_lockstat_entry);
}

#endif

/* lock_stat=1 — lock-contention statistics for any sync policy, per layer,
 * per caller and per thread.
 *
 * What plockstat and prstat showed for the C library's malloc lock in the
 * articles on lock contention in multithreaded allocation, built in: a
 * layer instance with the slot
 *     lock_stat=0|1 → MT_LOCK_STAT (0)
 * set to 1 gets, for each of its locks, the number of acquisitions, of
 * contended acquisitions (another thread held the lock or was waiting for
 * it when this one arrived), and the total and the longest wait of the
 * contended ones (arrival to entering the critical section). The same four
 * counts are kept per lock and per caller: the program's call site whose
 * request led to the lock (`plockstat -C`), and per thread: its
 * acquisitions, contended ones and wait, with its lifetime, whose ratio is
 * prstat -mL's LCK column. The report (docs/stats.md) sums the locks per
 * layer instance, names the hottest, and prints the callers by total wait
 * and the threads by their share of time waiting.
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
 * stores do) it counts the acquisition and the wait, on the lock and on the
 * caller's row of the lock; leaving, it takes 1 off `inside`. exec wraps the
 * critical section, so combining and delegation policies (ccsynch,
 * flatcombine, rcl), which run it on another thread, are measured the same
 * way: the caller is taken on arrival, on the requesting thread, and the
 * wait is added to that thread's row when exec returns. A lock's record
 * joins the process's list (lock-free push) on its first acquisition, with
 * its layer's name.
 *
 * The caller. A lock call carries no request context (most are made from
 * helpers of the layers' that have none), so the socket leaves the
 * request's call site where the lock can read it: each entry point of a
 * composition with a lock_stat=1 layer (MT_TRAIT_LOCK_STAT, core/ctx.h)
 * stores __builtin_return_address(0) — the program's
 * instruction after its call to malloc, free, ... — in the calling thread's
 * mt_lockstat_self.site (MT_SOCKET_NOTE_CALLER, sockets/socket_core.h);
 * without such a layer the hook is empty and the socket's code is what it
 * was. Locks taken outside a request (a thread's exit, fork handlers) have
 * no call site (0). Per lock, MT_LOCKSTAT_CALLERS (8) call sites get a row
 * (an open-addressing table keyed by the address, written in the critical
 * section); later ones share the "other callers" row.
 *
 * The threads. A thread's first request claims a row of a table of
 * MT_LOCKSTAT_THREADS (256) in BSS (an atomic counter, no lock), stamped
 * with its id and the time; the thread alone writes it. Its exit (the
 * socket's thread-exit hook, core/thread.h) stamps the end and keeps the
 * row, so threads that ended are reported too. Threads beyond the table
 * share the "other threads" row (atomic adds).
 *
 * Cost when on: two atomic read-modify-writes on the lock's cache line per
 * acquisition, a thread-local load and the caller's row (a call and a probe
 * of a table of 8, in the critical section), two counter reads per
 * contended one; a thread-local store per request. Space: 424 bytes per
 * lock, 16 KiB per process for the threads. init() (the fork child's reset)
 * clears `inside` and keeps counts; in a fork child the parent's other
 * threads' rows are stamped ended (they do not exist there).
 * Hosted only (the timer of stats/registry.h).
 * Example: mmap_heap::segfit_lk(sync=ticket, lock_stat=1)::malloc_socket
 *     #define MT_SYNC ticket
 *     #define MT_LOCK_STAT 1
 *     #include <mortise/layers/segfit_lk.h>
 */
/* The policy's descriptor (core/describe.h): the data tools/describe_layers.py
 * reads; describe mode (MT_DESCRIBE) skips the rest. */
#define MT_POLICY_DESCRIPTOR_sync_lockstat(POLICY, SLOT) \
    POLICY(sync, lockstat, extension)                    \
    SLOT(lock_stat, MT_LOCK_STAT, BOOL, 0, (0, 1), ())
#if !defined(MORTISE_POLICY_SYNC_LOCKSTAT_H) && !defined(MT_DESCRIBE)
#define MORTISE_POLICY_SYNC_LOCKSTAT_H

#include "../../stats/registry.h"
#include "../../pal/symbol.h"

#ifndef MT_LOCKSTAT_CALLERS
#define MT_LOCKSTAT_CALLERS 8 /* call sites with a row of their own, per lock */
#endif
#ifndef MT_LOCKSTAT_THREADS
#define MT_LOCKSTAT_THREADS 256 /* threads with a row of their own, per process */
#endif
#ifndef MT_LOCKSTAT_TOP
#define MT_LOCKSTAT_TOP 32 /* rows of the callers' and the threads' tables printed */
#endif

/* One caller's counts on one lock. */
typedef struct {
    _Atomic(uintptr_t) site; /* the program's call site; 0: none (thread exit, fork) */
    _Atomic(uint64_t) acquisitions, contended, wait, wait_max;
} mt_lockstat_counts;

typedef struct mt_lockstat_rec {
    _Atomic(uint32_t) inside; /* threads holding or waiting */
    const char *layer;        /* set on the first acquisition: in the list */
    const char *sync;
    _Atomic(uint64_t) acquisitions, contended, wait, wait_max;
    struct mt_lockstat_rec *next;
    /* by call site; the last row: every caller beyond the others */
    mt_lockstat_counts callers[MT_LOCKSTAT_CALLERS + 1];
} mt_lockstat_rec;

static _Atomic(mt_lockstat_rec *) mt_lockstat_locks;

/* One thread's row. Written by its thread only, except the shared rows. */
typedef struct {
    _Atomic(uint64_t) tid;
    _Atomic(uint64_t) start_ns; /* 0 until the row is ready */
    _Atomic(uint64_t) end_ns;   /* 0 while the thread lives */
    _Atomic(uint64_t) acquisitions, contended, wait;
    _Atomic(uint64_t) threads, lifetime_ns; /* the shared "other threads" row only */
} mt_lockstat_thread;

/* rows[MT_LOCKSTAT_THREADS]: other threads; rows[MT_LOCKSTAT_THREADS + 1]:
 * requests a thread makes after its exit hook ran (other libraries' exit
 * hooks), counted nowhere. */
static struct {
    _Atomic(unsigned) claimed;
    mt_lockstat_thread rows[MT_LOCKSTAT_THREADS + 2];
} mt_lockstat_threads;

/* What the socket leaves for the locks of the calling thread's request. */
static MT_TLS struct {
    uintptr_t site;          /* the current request's call site */
    mt_lockstat_thread *row; /* NULL until the thread's first request */
    uint64_t start_ns;
} mt_lockstat_self;

MT_SLOW MT_UNUSED void mt_lockstat_thread_begin(void)
{
    unsigned i = MT_LOCKSTAT_THREADS;
    if (mt_load_relaxed(&mt_lockstat_threads.claimed) < MT_LOCKSTAT_THREADS)
        i = atomic_fetch_add_explicit(&mt_lockstat_threads.claimed, 1, memory_order_relaxed);
    mt_lockstat_thread *row = &mt_lockstat_threads.rows[i < MT_LOCKSTAT_THREADS ? i : MT_LOCKSTAT_THREADS];
    uint64_t now = mt_stats_ns_now();
    mt_lockstat_self.start_ns = now;
    mt_lockstat_self.row = row; /* before the socket attaches the thread: a request made then finds it */
    if (row == &mt_lockstat_threads.rows[MT_LOCKSTAT_THREADS]) {
        atomic_fetch_add_explicit(&row->threads, 1, memory_order_relaxed);
        uint64_t none = 0;
        atomic_compare_exchange_strong(&row->start_ns, &none, now);
    } else {
        mt_store_relaxed(&row->tid, (uint64_t)mt_pal_tid());
        mt_store_release(&row->start_ns, now);
    }
}

/* The socket's entry points, first thing (MT_SOCKET_NOTE_CALLER). True on
 * the thread's first request: the socket then attaches the thread, whose
 * exit hook runs mt_lockstat_thread_end (core/thread.h). */
MT_INLINE bool mt_lockstat_note_caller(uintptr_t site)
{
    mt_lockstat_self.site = site;
    if (MT_LIKELY(mt_lockstat_self.row != NULL))
        return false;
    mt_lockstat_thread_begin();
    return true;
}

MT_INLINE bool mt_lockstat_row_shared(const mt_lockstat_thread *row)
{
    return row >= &mt_lockstat_threads.rows[MT_LOCKSTAT_THREADS];
}

/* The thread's exit hook, after the layers' thread_exit. */
MT_UNUSED static void mt_lockstat_thread_end(void)
{
    mt_lockstat_thread *row = mt_lockstat_self.row;
    if (!row || row == &mt_lockstat_threads.rows[MT_LOCKSTAT_THREADS + 1])
        return;
    uint64_t now = mt_stats_ns_now();
    if (mt_lockstat_row_shared(row))
        atomic_fetch_add_explicit(&row->lifetime_ns, now - mt_lockstat_self.start_ns, memory_order_relaxed);
    else
        mt_store_release(&row->end_ns, now);
    mt_lockstat_self.row = &mt_lockstat_threads.rows[MT_LOCKSTAT_THREADS + 1];
}

/* Locks taken by a thread's exit or by fork handlers have no call site. */
MT_UNUSED static void mt_lockstat_no_caller(void) { mt_lockstat_self.site = 0; }

/* A fork child has one thread: the parent's others are stamped ended. */
MT_UNUSED static void mt_lockstat_fork_child(void)
{
    uint64_t now = mt_stats_ns_now();
    unsigned n = mt_load_relaxed(&mt_lockstat_threads.claimed);
    for (unsigned i = 0; i < n && i < MT_LOCKSTAT_THREADS; i++) {
        mt_lockstat_thread *row = &mt_lockstat_threads.rows[i];
        if (row != mt_lockstat_self.row && mt_load_relaxed(&row->start_ns) && !mt_load_relaxed(&row->end_ns))
            mt_store_relaxed(&row->end_ns, now);
    }
}

/* The socket's hooks in a chain with lock statistics
 * (mt_chain_lock_stat_event, core/ctx.h). The report names call sites with
 * dladdr, so the port layer's fork gate closes before any allocator lock is
 * taken (docs/fork.md), and the fork child stamps the threads it lost; the
 * locks of fork handlers and of a thread's exit have no call site; an
 * exiting thread's row is kept, with its end. Each may run more than once
 * for one event (one call per lock_stat=1 layer): all are idempotent. */
MT_INLINE void mt_lockstat_event(int event)
{
    switch (event) {
    case MT_LOCK_STAT_FORK_PREPARE:
        mt_pal_callchain_fork_prepare();
        mt_lockstat_no_caller();
        break;
    case MT_LOCK_STAT_FORK_PARENT: mt_pal_callchain_fork_parent(); break;
    case MT_LOCK_STAT_FORK_CHILD:
        mt_lockstat_fork_child();
        mt_pal_callchain_fork_child();
        break;
    case MT_LOCK_STAT_EXIT_BEGIN: mt_lockstat_no_caller(); break;
    default: mt_lockstat_thread_end(); break;
    }
}

typedef struct {
    bool contended;
    uint64_t since;
    uintptr_t site;
} mt_lockstat_arrival;

MT_INLINE mt_lockstat_arrival mt_lockstat_arrive(mt_lockstat_rec *r)
{
    mt_lockstat_arrival a = {false, 0, mt_lockstat_self.site};
    if (atomic_fetch_add_explicit(&r->inside, 1, memory_order_relaxed)) {
        a.contended = true;
        a.since = mt_stats_begin();
    }
    return a;
}

MT_SLOW MT_UNUSED void mt_lockstat_join(mt_lockstat_rec *r, const char *layer, const char *sync);

/* The four counts of one acquisition (in the critical section). */
MT_INLINE void mt_lockstat_count(_Atomic(uint64_t) *acquisitions, _Atomic(uint64_t) *contended,
                                 _Atomic(uint64_t) *wait, _Atomic(uint64_t) *wait_max, bool was_contended,
                                 uint64_t waited)
{
    mt_stats_add(acquisitions, 1, false);
    if (MT_UNLIKELY(was_contended)) {
        mt_stats_add(contended, 1, false);
        mt_stats_add(wait, waited, false);
        mt_stats_max(wait_max, waited, false);
    }
}

/* The caller's row of lock r: the site's own, a free one, or the last. */
MT_UNUSED static mt_lockstat_counts *mt_lockstat_caller_row(mt_lockstat_rec *r, uintptr_t site)
{
    unsigned home = (unsigned)((site >> 2) * 0x9E3779B1u >> 7);
    for (unsigned k = 0; k < MT_LOCKSTAT_CALLERS; k++) {
        mt_lockstat_counts *c = &r->callers[(home + k) % MT_LOCKSTAT_CALLERS];
        if (!mt_load_relaxed(&c->acquisitions)) {
            mt_store_relaxed(&c->site, site);
            return c;
        }
        if (mt_load_relaxed(&c->site) == site)
            return c;
    }
    return &r->callers[MT_LOCKSTAT_CALLERS];
}

MT_UNUSED static void mt_lockstat_count_caller(mt_lockstat_rec *r, mt_lockstat_arrival a, uint64_t waited)
{
    mt_lockstat_counts *c = mt_lockstat_caller_row(r, a.site);
    mt_lockstat_count(&c->acquisitions, &c->contended, &c->wait, &c->wait_max, a.contended, waited);
}

/* In the critical section: one writer at a time. Returns the wait. */
MT_INLINE uint64_t mt_lockstat_enter(mt_lockstat_rec *r, mt_lockstat_arrival a, const char *layer,
                                     const char *sync)
{
    if (MT_UNLIKELY(!r->layer))
        mt_lockstat_join(r, layer, sync);
    uint64_t waited = MT_UNLIKELY(a.contended) ? mt_stats_end() - a.since : 0;
    mt_lockstat_count(&r->acquisitions, &r->contended, &r->wait, &r->wait_max, a.contended, waited);
    mt_lockstat_count_caller(r, a, waited);
    return waited;
}

/* On the thread that asked for the lock, once it has run its section. */
MT_INLINE void mt_lockstat_count_thread(bool contended, uint64_t waited)
{
    mt_lockstat_thread *t = mt_lockstat_self.row;
    if (!t) /* a lock taken before the thread's first request */
        return;
    bool shared = mt_lockstat_row_shared(t);
    mt_stats_add(&t->acquisitions, 1, shared);
    if (MT_UNLIKELY(contended)) {
        mt_stats_add(&t->contended, 1, shared);
        mt_stats_add(&t->wait, waited, shared);
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
    uint64_t waited;
} mt_lockstat_call;

MT_UNUSED static void *mt_lockstat_run(void *p)
{
    mt_lockstat_call *c = p;
    c->waited = mt_lockstat_enter(c->rec, c->arrival, c->layer, c->sync);
    void *result = c->cs(c->arg);
    mt_lockstat_leave(c->rec);
    return result;
}

/* mt_lockstat_POLICY: the policy's lock with a record, and its four calls
 * taking the layer's name first (sync.h passes MT_NAME). */
#define MT_LOCKSTAT_POLICY(policy)                                                                 \
    typedef struct {                                                                               \
        mt_sync_##policy lock;                                                                     \
        mt_lockstat_rec stat;                                                                      \
    } mt_lockstat_##policy;                                                                        \
    MT_INLINE void mt_lockstat_##policy##_init(const char *layer, mt_lockstat_##policy *l)         \
    {                                                                                              \
        (void)layer;                                                                               \
        mt_sync_##policy##_init(&l->lock);                                                         \
        atomic_store_explicit(&l->stat.inside, 0, memory_order_relaxed);                           \
    }                                                                                              \
    MT_INLINE void mt_lockstat_##policy##_lock(const char *layer, mt_lockstat_##policy *l)         \
    {                                                                                              \
        mt_lockstat_arrival a = mt_lockstat_arrive(&l->stat);                                      \
        mt_sync_##policy##_lock(&l->lock);                                                         \
        mt_lockstat_count_thread(a.contended, mt_lockstat_enter(&l->stat, a, layer, #policy));     \
    }                                                                                              \
    MT_INLINE void mt_lockstat_##policy##_unlock(const char *layer, mt_lockstat_##policy *l)       \
    {                                                                                              \
        (void)layer;                                                                               \
        mt_lockstat_leave(&l->stat);                                                               \
        mt_sync_##policy##_unlock(&l->lock);                                                       \
    }                                                                                              \
    MT_INLINE void *mt_lockstat_##policy##_exec(const char *layer, mt_lockstat_##policy *l,        \
                                                void *(*cs)(void *), void *arg)                    \
    {                                                                                              \
        mt_lockstat_call c = {cs, arg, &l->stat, layer, #policy, mt_lockstat_arrive(&l->stat), 0}; \
        void *result = mt_sync_##policy##_exec(&l->lock, mt_lockstat_run, &c);                     \
        mt_lockstat_count_thread(c.arrival.contended, c.waited);                                   \
        return result;                                                                             \
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

MT_UNUSED static void mt_lockstat_report_lock(mt_stats_out *o, const mt_lockstat_sum *s, bool with_locks)
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

/* ---- per lock and caller, by total wait (plockstat -C) ---- */

typedef struct {
    const mt_lockstat_rec *lock;
    uintptr_t site;
    bool other; /* the lock's "other callers" row */
    mt_lockstat_sum counts;
} mt_lockstat_pair;

MT_INLINE bool mt_lockstat_waited_longer(const mt_lockstat_sum *a, const mt_lockstat_sum *b)
{
    if (a->wait != b->wait)
        return a->wait > b->wait;
    if (a->contended != b->contended)
        return a->contended > b->contended;
    return a->acquisitions > b->acquisitions;
}

/* Keep line among the `kept` longest waits of top[] (at most MT_LOCKSTAT_TOP),
 * longest first. */
MT_UNUSED static unsigned mt_lockstat_keep_pair(mt_lockstat_pair *top, unsigned kept,
                                                const mt_lockstat_pair *line)
{
    unsigned at = kept;
    while (at > 0 && mt_lockstat_waited_longer(&line->counts, &top[at - 1].counts))
        at--;
    if (at == MT_LOCKSTAT_TOP)
        return kept;
    if (kept < MT_LOCKSTAT_TOP)
        kept++;
    for (unsigned i = kept - 1; i > at; i--)
        top[i] = top[i - 1];
    top[at] = *line;
    return kept;
}

/* A call site as the program names it: "function+0xoffset" in the object,
 * or the object's name and the offset in it; NULL when dladdr knows
 * neither (the caller then prints the address). */
MT_UNUSED static const char *mt_lockstat_site_name(uintptr_t site, char *buf, size_t cap, const char **object)
{
    mt_pal_symbol_info info;
    *object = "";
    if (!site || !mt_pal_symbol((const void *)site, &info))
        return NULL;
    *object = info.object ? info.object : "";
    const char *base = info.function;
    uintptr_t from = (uintptr_t)info.function_start;
    if (!base) {
        const char *slash = info.object ? strrchr(info.object, '/') : NULL;
        base = slash ? slash + 1 : info.object;
        from = (uintptr_t)info.object_base;
    }
    if (!base)
        return NULL;
    char off[2 + 2 * sizeof(uintptr_t) + 1];
    size_t n = strlen(base);
    n = n < cap - sizeof off - 2 ? n : cap - sizeof off - 2;
    memcpy(buf, base, n);
    buf[n++] = '+';
    strcpy(buf + n, mt_so_fmt_hex(off, site - from));
    return buf;
}

MT_UNUSED static void mt_lockstat_write_pair(mt_stats_out *o, const mt_lockstat_pair *p)
{
    char name[256];
    const char *object = "";
    const char *symbol = p->other ? NULL : mt_lockstat_site_name(p->site, name, sizeof name, &object);
    uint64_t rate = o->ticks_per_us;
    if (o->json) {
        mt_so_open(o, NULL, "{");
        mt_so_kv_hex(o, "lock", (uintptr_t)p->lock);
        mt_so_kv_str(o, "layer", p->lock->layer);
        mt_so_kv_str(o, "sync", p->lock->sync);
        if (p->other)
            mt_so_kv_str(o, "caller", "other");
        else
            mt_so_kv_hex(o, "caller", p->site);
        mt_so_kv_quoted(o, "symbol", symbol ? symbol : "");
        mt_so_kv_quoted(o, "object", object);
        mt_lockstat_report_lock(o, &p->counts, false);
        mt_so_close(o, "}");
        return;
    }
    char hex[2 + 2 * sizeof(uintptr_t) + 1];
    mt_so_u64(o, mt_stats_to_ns(p->counts.wait, rate), 15);
    mt_so_u64(o, mt_stats_to_ns(p->counts.wait_max, rate), 13);
    mt_so_u64(o, p->counts.contended, 11);
    mt_so_u64(o, p->counts.acquisitions, 14);
    mt_so_str(o, "  ");
    mt_so_pad(o, mt_so_fmt_hex(hex, (uintptr_t)p->lock), -2 - 2 * (int)sizeof(uintptr_t));
    mt_so_str(o, "  ");
    mt_so_pad(o, p->lock->layer, -14);
    mt_so_str(o, "  ");
    if (p->other) {
        mt_so_str(o, "(other callers)");
    } else if (!p->site) {
        mt_so_str(o, "(no call site: thread exit, fork)");
    } else if (symbol) {
        const char *slash = strrchr(object, '/');
        mt_so_str(o, symbol);
        if (*object && strncmp(symbol, slash ? slash + 1 : object, strlen(slash ? slash + 1 : object))) {
            mt_so_str(o, " (");
            mt_so_str(o, slash ? slash + 1 : object);
            mt_so_str(o, ")");
        }
    } else {
        mt_so_hex(o, p->site);
    }
    mt_so_str(o, "\n");
}

MT_UNUSED static void mt_lockstat_report_callers(mt_stats_out *o, mt_lockstat_rec *head)
{
    mt_lockstat_pair top[MT_LOCKSTAT_TOP], line;
    unsigned kept = 0;
    uint64_t pairs = 0;
    for (mt_lockstat_rec *r = head; r; r = r->next) {
        for (unsigned k = 0; k <= MT_LOCKSTAT_CALLERS; k++) {
            const mt_lockstat_counts *c = &r->callers[k];
            line.lock = r;
            line.site = mt_load_relaxed(&c->site);
            line.other = k == MT_LOCKSTAT_CALLERS;
            line.counts.locks = 1;
            line.counts.acquisitions = mt_load_relaxed(&c->acquisitions);
            line.counts.contended = mt_load_relaxed(&c->contended);
            line.counts.wait = mt_load_relaxed(&c->wait);
            line.counts.wait_max = mt_load_relaxed(&c->wait_max);
            if (!line.counts.acquisitions)
                continue;
            pairs++;
            kept = mt_lockstat_keep_pair(top, kept, &line);
        }
    }
    if (o->json) {
        mt_so_begin_layer(o, "lock_stat", "lock_callers");
        mt_so_kv_u64(o, "pairs", pairs);
        mt_so_open(o, "callers", "[");
    } else {
        mt_so_str(o, "lock_stat callers (plockstat -C): per lock and program call site, by total wait, ");
        mt_so_u64(o, kept, 0);
        mt_so_str(o, " of ");
        mt_so_u64(o, pairs, 0);
        mt_so_str(o, "\n  total wait ns  max wait ns  contended  acquisitions  lock");
        mt_so_pad(o, "", 2 * (int)sizeof(uintptr_t));
        mt_so_str(o, "layer           caller\n");
    }
    for (unsigned i = 0; i < kept; i++)
        mt_lockstat_write_pair(o, &top[i]);
    if (o->json)
        mt_so_close(o, "]");
    mt_so_end_layer(o);
}

/* ---- per thread: the share of its life spent waiting (prstat -mL LCK) ---- */

typedef struct {
    const mt_lockstat_thread *row;
    uint64_t wait_ns, lifetime_ns, share; /* share: 1/100 of a per cent */
} mt_lockstat_thread_line;

/* wait over lifetime, in 1/100 of a per cent, at most 100 %. */
MT_INLINE uint64_t mt_lockstat_share(uint64_t wait_ns, uint64_t lifetime_ns)
{
    if (!lifetime_ns)
        return 0;
    uint64_t share = mt_muldiv_u64(wait_ns, 10000u, lifetime_ns, false);
    return share < 10000 ? share : 10000;
}

MT_UNUSED static void mt_lockstat_write_thread(mt_stats_out *o, const mt_lockstat_thread_line *t,
                                               uint64_t threads)
{
    const mt_lockstat_thread *row = t->row;
    char b[32];
    bool other = mt_lockstat_row_shared(row);
    bool ended = other || mt_load_relaxed(&row->end_ns);
    if (o->json) {
        if (other) {
            mt_so_open(o, "other", "{");
            mt_so_kv_u64(o, "threads", threads);
        } else {
            mt_so_open(o, NULL, "{");
            mt_so_kv_u64(o, "tid", mt_load_relaxed(&row->tid));
            mt_so_kv_str(o, "state", ended ? "exited" : "live");
        }
        mt_so_kv_fixed(o, "lck_percent", t->share, 2);
        mt_so_kv_u64(o, "wait_ns", t->wait_ns);
        mt_so_kv_u64(o, "lifetime_ns", t->lifetime_ns);
        mt_so_kv_u64(o, "contended", mt_load_relaxed(&row->contended));
        mt_so_kv_u64(o, "acquisitions", mt_load_relaxed(&row->acquisitions));
        mt_so_close(o, "}");
        return;
    }
    if (other) {
        mt_so_str(o, "  other ");
        mt_so_u64(o, threads, 0);
        mt_so_str(o, " threads:");
    } else {
        mt_so_u64(o, mt_load_relaxed(&row->tid), 10);
    }
    mt_so_pad(o, mt_so_fmt(b, t->share, 2), 8);
    mt_so_u64(o, t->wait_ns, 15);
    mt_so_u64(o, t->lifetime_ns, 15);
    mt_so_u64(o, mt_load_relaxed(&row->contended), 11);
    mt_so_u64(o, mt_load_relaxed(&row->acquisitions), 14);
    mt_so_str(o, other ? "  (lifetimes of the exited ones)\n" : ended ? "  exited\n" : "  live\n");
}

MT_UNUSED static void mt_lockstat_report_threads(mt_stats_out *o)
{
    mt_lockstat_thread_line lines[MT_LOCKSTAT_THREADS], line;
    unsigned n = 0;
    unsigned claimed = mt_load_acquire(&mt_lockstat_threads.claimed);
    uint64_t now = mt_stats_ns_now(), rate = o->ticks_per_us;
    for (unsigned i = 0; i < claimed && i < MT_LOCKSTAT_THREADS; i++) {
        const mt_lockstat_thread *row = &mt_lockstat_threads.rows[i];
        uint64_t start = mt_load_acquire(&row->start_ns), end = mt_load_acquire(&row->end_ns);
        if (!start)
            continue;
        line.row = row;
        line.wait_ns = mt_stats_to_ns(mt_load_relaxed(&row->wait), rate);
        line.lifetime_ns = (end ? end : now) - start;
        line.share = mt_lockstat_share(line.wait_ns, line.lifetime_ns);
        /* longest share first, then longest wait */
        unsigned at = n++;
        while (at > 0 && (line.share > lines[at - 1].share ||
                          (line.share == lines[at - 1].share && line.wait_ns > lines[at - 1].wait_ns))) {
            lines[at] = lines[at - 1];
            at--;
        }
        lines[at] = line;
    }
    const mt_lockstat_thread *other = &mt_lockstat_threads.rows[MT_LOCKSTAT_THREADS];
    uint64_t others = mt_load_relaxed(&other->threads);
    mt_lockstat_thread_line rest = {other, mt_stats_to_ns(mt_load_relaxed(&other->wait), rate),
                                    mt_load_relaxed(&other->lifetime_ns), 0};
    rest.share = mt_lockstat_share(rest.wait_ns, rest.lifetime_ns);
    if (o->json) {
        mt_so_begin_layer(o, "lock_stat", "lock_threads");
        mt_so_open(o, "threads", "[");
    } else {
        mt_so_str(o, "lock_stat threads (prstat -mL LCK): time waiting for allocator locks, by share, ");
        mt_so_u64(o, n < MT_LOCKSTAT_TOP ? n : MT_LOCKSTAT_TOP, 0);
        mt_so_str(o, " of ");
        mt_so_u64(o, n, 0);
        mt_so_str(o, "\n       tid   LCK %        wait ns    lifetime ns  contended  acquisitions\n");
    }
    for (unsigned i = 0; i < n && (o->json || i < MT_LOCKSTAT_TOP); i++)
        mt_lockstat_write_thread(o, &lines[i], 1);
    if (o->json)
        mt_so_close(o, "]");
    if (o->json || others)
        mt_lockstat_write_thread(o, &rest, others);
    mt_so_end_layer(o);
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
            mt_so_kv_hex(o, "lock", (uintptr_t)hottest);
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
    mt_lockstat_report_callers(o, head);
    mt_lockstat_report_threads(o);
}

MT_UNUSED static mt_stats_entry mt_lockstat_entry = {.layer = "lock_stat", .report = mt_lockstat_report};

MT_SLOW MT_UNUSED void mt_lockstat_join(mt_lockstat_rec *r, const char *layer, const char *sync)
{
    r->layer = layer;
    r->sync = sync;
    mt_lockstat_rec *head = mt_load_relaxed(&mt_lockstat_locks);
    do
        r->next = head;
    while (!atomic_compare_exchange_weak_explicit(&mt_lockstat_locks, &head, r, memory_order_release,
                                                  memory_order_relaxed));
    mt_stats_register(&mt_lockstat_entry);
}

#endif

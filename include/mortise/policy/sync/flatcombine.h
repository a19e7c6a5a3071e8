/* sync=flatcombine — flat combining (Hendler, Incze, Shavit & Tzafrir,
 * SPAA 2010).                                             [model: flatcombine]
 *
 * Purpose: combining with a plain lock as the combiner token: threads publish
 *   requests, whoever holds the combiner lock runs everybody's; the paper's
 *   hslab puts buddy_glk under it.
 * Algorithm: each thread owns one publication record (records.h; the
 *   publication list is every record of the process-wide pool, scanned by
 *   index). exec first tries the combiner lock: if it is free, the caller
 *   runs its cs and combines what others published meanwhile. Otherwise it
 *   writes (lock, cs, arg) into its record, marks it pending, and repeatedly:
 *   if the combiner lock is free and its try-lock succeeds, it is the
 *   combiner; otherwise it waits for its record to be answered.
 *   A combiner first runs its own request (unless an earlier combiner already
 *   did), then, if some waiter that published is awake, makes up to
 *   MT_FLATCOMBINE_PASSES passes over the records, claiming (CAS) and running
 *   every pending request for this lock whose owner is not parked, stopping
 *   early after a pass that found none; then it releases the lock. A record
 *   serves one request at a time, and every exec is synchronous, so one
 *   record per thread serves all flatcombine locks.
 * lock/unlock: take and release the combiner lock itself (a futex mutex,
 *   wait.h): the holder excludes every combiner, needs no record, and may
 *   hold any number of locks (fork_prepare). When awake exec requests are
 *   waiting, unlock first combines them (the same bounded passes), so
 *   threads that take the lock with lock() again and again cannot starve
 *   exec; then it hands off as every release does (below).
 * Waiting: a waiter polls its record and the lock for MT_SYNC_SPIN rounds
 *   (one round with fewer than MT_FLATCOMBINE_SPIN_MIN_CORES, 2, cores:
 *   wait.h), then
 *   parks on its record (futex) after announcing itself in the lock's
 *   sleeper count. Combiners skip parked records: answering one costs a
 *   wake-up, and on a machine with fewer cores than threads the woken
 *   thread then competes for a core while the lock is busy. A polling waiter
 *   also takes the lock itself whenever it finds it free, so it combines
 *   instead of waiting for a combiner; it polls with 2 cores too, because
 *   parking at once turns every contended operation into a futex wake and
 *   two context switches (ccsynch's waiters, which can only wait, poll from
 *   3: wait.h). Instead a release that
 *   finds sleepers *hands off*: it wakes one parked waiter whose request
 *   nobody ran, searching the records round-robin, and only when no earlier
 *   hand-off is in flight (a per-lock flag, cleared when the woken waiter
 *   runs). The woken waiter tries the lock like a mutex's woken sleeper: it
 *   becomes combiner, or finds the lock taken again and parks again. After
 *   MT_FLATCOMBINE_PATIENCE such lost tries it stays awake (yielding) and
 *   keeps the hand-off, so the next pass runs its request. So while threads
 *   keep the lock busy, parked waiters cost one wake-up at a time, as the
 *   sleepers of posix_mutex do, and no request strands: a parker re-checks
 *   the lock after counting itself, a releaser reads the count after its
 *   release, and a hand-off that ends with the lock free starts the next.
 * Slots: none in the model language. Tuning: MT_FLATCOMBINE_PASSES (3),
 *   MT_FLATCOMBINE_PATIENCE (4), MT_FLATCOMBINE_SPIN_MIN_CORES (2).
 * Needs: POSIX threads, mmap (records.h). Not freestanding.
 * Time: uncontended exec = try-lock + cs + release (the passes run only
 *   while an awake exec found the lock taken and waits; the hand-off only
 *   while a waiter is parked). A combiner runs at most 1 + PASSES x threads
 *   critical sections. Fairness: not FIFO, and not fair to parked waiters
 *   while the lock is busy (like posix_mutex), but starvation-free while
 *   releases go on: hand-offs go round the parked waiters, and each is
 *   answered by at most PATIENCE of its own hand-offs, so after at most
 *   PATIENCE x (parked waiters) hand-offs. A waiter that keeps a hand-off
 *   yields until a combiner runs its request: it spins through sched_yield
 *   for as long as a lock() holder keeps the lock.
 * Space: 20 bytes per lock; one 64-byte record per thread (pool).
 * Thread safety / lock order: non-recursive. Critical sections of others run
 *   on the combiner's thread: cs must touch only what arg reaches and shared
 *   state, and must not allocate; it may take locks further down the order
 *   (including other flatcombine locks). Zero-filled = unlocked. Fork: init()
 *   in the child, which also retires the requests for this lock that the
 *   parent's other threads had pending (their records are copied into the
 *   child, their threads are not: running them would replay the parent's
 *   work). init() scans the records in use: O(threads). Calling init() on a
 *   lock that threads are using is a bug for every policy.
 * Fails: never; with no record (the pool cannot grow) exec runs cs under the
 *   combiner lock itself.
 * Example:
 *     // mmap_heap::buddy_glk(sync=flatcombine, sizeclass=tc)::malloc_socket
 *     #define MT_SYNC flatcombine
 *     #define MT_SIZECLASS tc
 *     #include <mortise/layers/buddy_glk.h>
 */
/* The policy's descriptor (core/describe.h): the data tools/describe_layers.py
 * reads; describe mode (MT_DESCRIBE) skips the rest. */
#define MT_POLICY_DESCRIPTOR_sync_flatcombine(POLICY, SLOT) POLICY(sync, flatcombine, policy)
#if !defined(MORTISE_POLICY_SYNC_FLATCOMBINE_H) && !defined(MT_DESCRIBE)
#define MORTISE_POLICY_SYNC_FLATCOMBINE_H
#include "records.h"

#ifndef MT_FLATCOMBINE_PASSES
#define MT_FLATCOMBINE_PASSES 3
#endif
#ifndef MT_FLATCOMBINE_PATIENCE
#define MT_FLATCOMBINE_PATIENCE 4
#endif
#ifndef MT_FLATCOMBINE_SPIN_MIN_CORES
#define MT_FLATCOMBINE_SPIN_MIN_CORES 2
#endif

typedef struct {
    mt_sync_futex_lock combiner; /* the combiner token; lock()/unlock() */
    _Atomic(uint32_t) waiting;   /* exec requests that found the lock taken */
    _Atomic(uint32_t) sleepers;  /* ... of which parked on their records */
    _Atomic(uint32_t) handoff;   /* 1 from a hand-off's wake-up until the woken waiter runs */
    _Atomic(uint32_t) next_wake; /* record index where the next hand-off search starts */
} mt_sync_flatcombine;

/* Record states (the record's futex word). FC_SLEEP is or-ed in by a parked
 * owner; FC_HANDOFF by a releaser that woke the owner to take over (it
 * stays through the answer, so the owner always sees that it was chosen). */
enum {
    MT_FC_IDLE = 0,
    MT_FC_PENDING = 1,
    MT_FC_CLAIMED = 2,
    MT_FC_DONE = 3,
    MT_FC_SLEEP = 4,
    MT_FC_HANDOFF = 8
};
#define MT_FC_PHASE(s) ((s)&3u)

static mt_sync_pool mt_fc_pool;
static MT_TLS mt_sync_rec *mt_fc_mine;

/* Requests for l published by threads that no longer exist (a fork child
 * inherits the records of the parent's waiting threads): never run them. */
MT_SLOW void mt_fc_forget(mt_sync_flatcombine *l)
{
    uint32_t n = mt_sync_pool_count(&mt_fc_pool);
    for (uint32_t i = 0; i < n; i++) {
        mt_sync_rec *r = mt_sync_pool_at(&mt_fc_pool, i);
        if (r && r != mt_fc_mine && mt_load_relaxed(&r->lock) == l) {
            mt_store_relaxed(&r->lock, NULL);
            mt_store_relaxed(&r->state, MT_FC_IDLE);
        }
    }
}

MT_INLINE void mt_sync_flatcombine_init(mt_sync_flatcombine *l)
{
    atomic_init(&l->combiner.state, 0);
    atomic_init(&l->waiting, 0);
    atomic_init(&l->sleepers, 0);
    atomic_init(&l->handoff, 0);
    atomic_init(&l->next_wake, 0);
    mt_fc_forget(l);
}

MT_INLINE void mt_sync_flatcombine_lock(mt_sync_flatcombine *l) { mt_sync_futex_lock_acquire(&l->combiner); }

/* After a release, with parked waiters and no hand-off under way: wake one
 * parked waiter whose request nobody has run; it tries the lock (mt_fc_wait).
 * Only one such wake-up is in flight at a time (`handoff`, cleared by the
 * woken owner when it runs): a parked waiter's request is run only after it
 * was chosen here (combiners skip parked records), so while threads keep
 * the lock busy, parked waiters stay parked and cost nothing, as sleepers
 * of a mutex do. The search starts where the last one stopped: every
 * parked waiter is chosen in turn. */
MT_SLOW void mt_fc_hand_off(mt_sync_flatcombine *l)
{
    uint32_t idle = 0;
    if (!mt_cas(&l->handoff, &idle, 1))
        return; /* a woken waiter is on its way: it checks again when it runs */
    uint32_t n = mt_sync_pool_count(&mt_fc_pool);
    uint32_t start = mt_load_relaxed(&l->next_wake);
    for (uint32_t k = 0; k < n; k++) {
        uint32_t i = (start + k) % n;
        mt_sync_rec *r = mt_sync_pool_at(&mt_fc_pool, i);
        if (!r || mt_load_relaxed(&r->lock) != l)
            continue;
        uint32_t s = MT_FC_PENDING | MT_FC_SLEEP;
        if (!mt_cas(&r->state, &s, s | MT_FC_HANDOFF))
            continue;
        /* The CAS read the state of the request now published, so this read
         * of its lock is definitive: the record may have been reused for
         * another lock since the first look. Then take the mark back (if
         * its owner saw it first, it ends that lock's hand-off, which costs
         * that lock at most one extra wake-up) and look further. */
        if (mt_load_relaxed(&r->lock) != l) {
            s |= MT_FC_HANDOFF;
            mt_cas(&r->state, &s, MT_FC_PENDING | MT_FC_SLEEP);
            continue;
        }
        mt_store_relaxed(&l->next_wake, i + 1);
        mt_sync_futex_wake(&r->state, 1); /* the change of state ends its futex wait */
        return;
    }
    /* Every counted sleeper is awake or being answered (a counted sleeper's
     * bit is visible here: it set it before counting itself). */
    atomic_store(&l->handoff, 0);
}

MT_INLINE void mt_fc_release(mt_sync_flatcombine *l)
{
    mt_sync_futex_lock_release(&l->combiner); /* seq_cst: the sleeper count cannot pass it */
    if (MT_UNLIKELY(atomic_load(&l->sleepers) != 0) && atomic_load(&l->handoff) == 0)
        mt_fc_hand_off(l);
}

/* The owner of a record chosen by mt_fc_hand_off runs: the hand-off is over.
 * Cleared before the caller looks at the lock (sequentially consistent), so
 * a releaser that still saw it set released before that look. */
MT_INLINE void mt_fc_handoff_done(mt_sync_flatcombine *l, uint32_t s)
{
    if (MT_UNLIKELY(s & MT_FC_HANDOFF))
        atomic_store(&l->handoff, 0);
}

/* Combiner, holding the lock: claim and run pending requests for l. */
MT_SLOW unsigned mt_fc_pass(mt_sync_flatcombine *l, mt_sync_rec *mine)
{
    unsigned served = 0;
    uint32_t n = mt_sync_pool_count(&mt_fc_pool);
    for (uint32_t i = 0; i < n; i++) {
        mt_sync_rec *r = mt_sync_pool_at(&mt_fc_pool, i);
        if (!r || r == mine)
            continue;
        uint32_t s = mt_load_acquire(&r->state);
        /* A parked owner waits for mt_fc_hand_off: answering it here would
         * cost a wake-up per request while the lock stays busy. */
        if ((s & (3u | MT_FC_SLEEP)) != MT_FC_PENDING || mt_load_relaxed(&r->lock) != l)
            continue;
        if (!mt_cas(&r->state, &s, MT_FC_CLAIMED | (s & MT_FC_HANDOFF)))
            continue;
        /* The claim read the state of the request now published, so this
         * read of its lock is definitive (a record reused since our first
         * look may be for another lock: give it back). */
        if (mt_load_relaxed(&r->lock) != l) {
            atomic_fetch_sub(&r->state, MT_FC_CLAIMED - MT_FC_PENDING);
            continue;
        }
        r->ret = mt_load_relaxed(&r->cs)(mt_load_relaxed(&r->arg));
        if (atomic_exchange(&r->state, MT_FC_DONE | (s & MT_FC_HANDOFF)) & MT_FC_SLEEP)
            mt_sync_futex_wake(&r->state, 1); /* it began to park while we ran it */
        served++;
    }
    return served;
}

MT_SLOW void mt_fc_passes(mt_sync_flatcombine *l, mt_sync_rec *mine)
{
    for (unsigned pass = 0; pass < MT_FLATCOMBINE_PASSES; pass++)
        if (!mt_fc_pass(l, mine))
            break;
}

/* Whether a pass can find work: a published request whose owner is awake.
 * Parked owners are counted apart and their records skipped, so while the
 * lock is busy and its waiters sleep, a release scans nothing. Racy reads:
 * a request missed here is its owner's to run, it tries the lock before it
 * parks. */
MT_INLINE bool mt_fc_servable(mt_sync_flatcombine *l)
{
    return mt_load_relaxed(&l->waiting) > mt_load_relaxed(&l->sleepers);
}

/* We hold the combiner lock: our own request first, then the passes. */
MT_SLOW void *mt_fc_combine(mt_sync_flatcombine *l, mt_sync_rec *mine)
{
    void *own;
    mt_sync_backoff b = MT_SYNC_BACKOFF_INIT;
    for (;;) {
        uint32_t s = mt_load_acquire(&mine->state);
        if (MT_FC_PHASE(s) == MT_FC_DONE) { /* a combiner before us answered it */
            own = mine->ret;
            mt_store_relaxed(&mine->state, MT_FC_IDLE);
            mt_fc_handoff_done(l, s);
            break;
        }
        if (MT_FC_PHASE(s) == MT_FC_PENDING && mt_cas(&mine->state, &s, MT_FC_IDLE)) {
            mt_fc_handoff_done(l, s);
            /* idle before running: cs may nest an exec on another lock with it */
            own = mt_load_relaxed(&mine->cs)(mt_load_relaxed(&mine->arg));
            break;
        }
        mt_sync_backoff_wait(&b); /* momentarily claimed by a combiner of another lock */
    }
    /* Nobody found the lock taken: nothing can be pending that its owner
     * would not run itself (it tries the lock before it counts as waiting). */
    if (mt_fc_servable(l))
        mt_fc_passes(l, mine);
    mt_fc_release(l);
    return own;
}

/* A lock() holder combines too before it lets go, when requests wait: so
 * holders that come back for the lock again and again cannot starve exec. */
MT_INLINE void mt_sync_flatcombine_unlock(mt_sync_flatcombine *l)
{
    if (MT_UNLIKELY(mt_fc_servable(l)))
        mt_fc_passes(l, mt_fc_mine);
    mt_fc_release(l);
}

static void mt_fc_thread_done(void *unused)
{
    (void)unused;
    mt_sync_pool_put_mine(&mt_fc_pool, &mt_fc_mine);
}

MT_SLOW mt_sync_rec *mt_fc_adopt(void)
{
    mt_sync_rec *r = mt_sync_pool_get(&mt_fc_pool);
    if (!r)
        return NULL;
    mt_store_relaxed(&r->lock, NULL);
    mt_store_relaxed(&r->state, MT_FC_IDLE);
    mt_fc_mine = r;
    mt_sync_pool_bind(&mt_fc_pool, mt_fc_thread_done);
    return mt_fc_mine;
}

/* Our request, chosen by a hand-off, was answered by another combiner: the
 * hand-off ends here, and if the lock is free with waiters still parked,
 * the next one is chosen now (a releaser that saw ours under way left it). */
MT_SLOW void mt_fc_handoff_answered(mt_sync_flatcombine *l)
{
    atomic_store(&l->handoff, 0);
    if (atomic_load(&l->sleepers) != 0 && !mt_sync_futex_lock_held(&l->combiner))
        mt_fc_hand_off(l);
}

/* Wait for the answer, or for a chance to combine. */
MT_SLOW void *mt_fc_wait(mt_sync_flatcombine *l, mt_sync_rec *mine)
{
    unsigned rounds = mt_sync_spin_rounds_from(MT_FLATCOMBINE_SPIN_MIN_CORES), lost = 0;
    for (unsigned spins = 0;; spins++) {
        if (!mt_sync_futex_lock_held(&l->combiner) && mt_sync_futex_trylock(&l->combiner))
            return mt_fc_combine(l, mine);
        uint32_t s = mt_load_acquire(&mine->state);
        if (MT_FC_PHASE(s) == MT_FC_DONE) {
            void *r = mine->ret;
            mt_store_relaxed(&mine->state, MT_FC_IDLE);
            if (s & MT_FC_HANDOFF)
                mt_fc_handoff_answered(l);
            return r;
        }
        if (s & MT_FC_HANDOFF) {
            if (!(s & MT_FC_SLEEP)) { /* waited long enough: the next pass runs it */
                mt_yield();
                continue;
            }
            /* Woken by a hand-off, and the lock is taken again. */
            uint32_t next = ++lost < MT_FLATCOMBINE_PATIENCE ? MT_FC_PENDING | MT_FC_SLEEP
                                                             : MT_FC_PENDING | MT_FC_HANDOFF;
            if (!mt_cas(&mine->state, &s, next))
                continue;
            if (next & MT_FC_HANDOFF)
                continue;                 /* keeps the hand-off until a combiner answers it */
            atomic_store(&l->handoff, 0); /* park again; the holder's release hands off anew */
        }
        if (spins < rounds || MT_FC_PHASE(s) != MT_FC_PENDING) {
            if (spins < rounds)
                mt_cpu_relax();
            else
                mt_yield(); /* being run by a combiner right now */
            continue;
        }
        /* Park: mark the record, count ourselves, and re-check the lock;
         * a releaser decrements nothing but reads the count after its
         * release (both sequentially consistent), so one of us sees the
         * other. */
        s = atomic_fetch_or(&mine->state, MT_FC_SLEEP) | MT_FC_SLEEP;
        if (MT_FC_PHASE(s) != MT_FC_PENDING || (s & MT_FC_HANDOFF))
            continue;
        atomic_fetch_add(&l->sleepers, 1);
        if (!mt_sync_futex_lock_held(&l->combiner)) {
            atomic_fetch_sub(&l->sleepers, 1);
            continue;
        }
        mt_sync_futex_wait(&mine->state, s);
        atomic_fetch_sub(&l->sleepers, 1);
    }
}

/* The lock was taken: publish the request and wait for it to be run. */
MT_SLOW void *mt_fc_publish(mt_sync_flatcombine *l, mt_sync_cs *cs, void *arg)
{
    mt_sync_rec *mine = mt_fc_mine;
    if (!mine && !(mine = mt_fc_adopt())) {
        mt_sync_flatcombine_lock(l); /* no record: run it under the combiner lock */
        void *r = cs(arg);
        mt_sync_flatcombine_unlock(l);
        return r;
    }
    mt_store_relaxed(&mine->lock, (void *)l);
    mt_store_relaxed(&mine->cs, cs);
    mt_store_relaxed(&mine->arg, arg);
    mt_store_release(&mine->state, MT_FC_PENDING);
    atomic_fetch_add_explicit(&l->waiting, 1, memory_order_relaxed);
    void *r = mt_fc_wait(l, mine);
    atomic_fetch_sub_explicit(&l->waiting, 1, memory_order_relaxed);
    return r;
}

MT_INLINE void *mt_sync_flatcombine_exec(mt_sync_flatcombine *l, mt_sync_cs *cs, void *arg)
{
    if (MT_LIKELY(mt_sync_futex_trylock(&l->combiner))) { /* free: no need to publish */
        void *r = cs(arg);
        mt_sync_flatcombine_unlock(l); /* combines what others published meanwhile */
        return r;
    }
    return mt_fc_publish(l, cs, arg);
}
#endif

/* sync=ccsynch — CC-Synch combining (Fatourou & Kallimanis, PPoPP 2012).
 *                                                             [model: ccsynch]
 * Purpose: under contention one thread, the combiner, runs the critical
 *   sections of the others back to back while their data stays in its cache;
 *   the paper's tlsfcc takes its global lock this way.
 * Algorithm: the lock is the tail of a queue of request nodes; NULL when no
 *   thread holds the lock or waits for it. A thread swaps its spare node in
 *   as the new tail. If it got NULL back, the lock was idle: it runs its own
 *   request at once (nothing to publish) and is the combiner. Otherwise it
 *   writes its request (cs, arg) into the node it got back (the old tail),
 *   links it to the new tail and waits on that node. A node's wait word is
 *   released either with `completed` set (a combiner ran the request and left
 *   the result) or without (the thread is the new combiner). A combiner runs
 *   its own request first, then walks the queue running up to
 *   MT_CCSYNCH_BOUND - 1 further requests, releasing each owner, and finally
 *   lets go of the node it stopped at: if that node is still the tail and
 *   nobody linked behind it, one compare-and-swap empties the queue (the lock
 *   is idle again and the node is kept as a spare); otherwise the node is
 *   released without `completed` and its owner combines next. The node a
 *   thread got back becomes its spare, so nodes travel between threads.
 *   Futex wake-ups of waiters that went to sleep are made after the combiner
 *   has let go, so a sleeper costs the queue no system call.
 * lock/unlock: lock() enqueues a request with no cs. A combiner stops there
 *   and hands the combiner role over instead of running it: the caller then
 *   holds the lock, exclusive of every combiner, and remembers the node it
 *   linked behind its request. unlock() lets go of that node as a combiner
 *   does. So exec and lock/unlock share one FIFO queue, the caller needs no
 *   node after lock() returns, and nesting is unlimited (fork_prepare holding
 *   every class lock of a layer is one pool record per lock, not per thread).
 * Slots: none in the model language. Tuning: MT_CCSYNCH_BOUND (64) requests a
 *   combiner runs, its own included, before it passes the role on;
 *   MT_SYNC_SPIN (wait.h, 200) pause rounds a waiter polls before it sleeps
 *   on its node (futex), when the process has MT_SYNC_SPIN_MIN_CORES (3)
 *   cores or more; with fewer it polls once (wait.h, mt_sync_spin_rounds).
 * Needs: POSIX threads (a key to give a thread's spare node back when it
 *   exits), mmap for node chunks (records.h). Not freestanding.
 * Time: uncontended exec = one exchange and one compare-and-swap on the
 *   lock's word (the cost of a plain lock's acquire and release); lock and
 *   unlock the same. FIFO: a thread takes the idle path only when no request
 *   is queued, and queued requests are served in the order of the tail swaps,
 *   so a waiter is overtaken by at most the requests queued before it
 *   (bypass < threads). A combiner runs at most MT_CCSYNCH_BOUND critical
 *   sections per exec, so its own latency is bounded too. Worst case for a
 *   waiter: (threads - 1) critical sections plus one hand-over per
 *   MT_CCSYNCH_BOUND of them.
 * Space: 8+8 bytes per lock; one 64-byte node per thread, plus one per lock
 *   while it is held or contended (the queue's tail), from the pool in records.h.
 * Thread safety / lock order: non-recursive (exec or lock on a lock the
 *   thread holds deadlocks, as for any lock). Critical sections of others run
 *   on the combiner's thread: cs must touch only what arg reaches and shared
 *   state, never the caller's thread-local state, and must not allocate. cs
 *   may itself take locks further down the lock order (including other
 *   ccsynch locks). Zero-filled = unlocked. Fork: init() in the child; nodes
 *   queued by the parent's other threads are forgotten.
 * Fails: never; if the pool cannot map a chunk for a new thread's first node,
 *   the thread waits (yielding) until another thread's node is given back.
 * Example:
 *     // brk_heap::tlsf_glk(sync=ccsynch, size_handle=[0, SIZE_MAX])::malloc_socket
 *     #define MT_SYNC ccsynch
 *     #define MT_SIZE_HANDLE 0, SIZE_MAX
 *     #include <mortise/layers/tlsf_glk.h>
 */
/* The policy's descriptor (core/describe.h): the data tools/describe_layers.py
 * reads; describe mode (MT_DESCRIBE) skips the rest. */
#define MT_POLICY_DESCRIPTOR_sync_ccsynch(POLICY, SLOT) POLICY(sync, ccsynch, policy)
#if !defined(MORTISE_POLICY_SYNC_CCSYNCH_H) && !defined(MT_DESCRIBE)
#define MORTISE_POLICY_SYNC_CCSYNCH_H
#include "records.h"

#ifndef MT_CCSYNCH_BOUND
#define MT_CCSYNCH_BOUND 64
#endif
_Static_assert(MT_CCSYNCH_BOUND >= 1, "ccsynch: a combiner runs at least its own request");

typedef struct {
    _Atomic(mt_sync_rec *) tail; /* the queue's last node; NULL: idle */
    mt_sync_rec *resume;         /* lock() holder: the node unlock() lets go of */
} mt_sync_ccsynch;

static mt_sync_pool mt_ccsynch_pool;
static MT_TLS mt_sync_rec *mt_ccsynch_spare; /* this thread's node for its next request */
static MT_TLS bool mt_ccsynch_bound;         /* the exit hook is set */

MT_INLINE void mt_sync_ccsynch_init(mt_sync_ccsynch *l)
{
    atomic_init(&l->tail, NULL);
    l->resume = NULL;
}

static void mt_ccsynch_thread_done(void *unused)
{
    (void)unused;
    mt_sync_pool_put_mine(&mt_ccsynch_pool, &mt_ccsynch_spare);
}

/* A spare node from the pool (the thread has none: its first request, or its
 * node stayed in a queue), waiting (yielding) while the pool cannot grow. The
 * exit hook may allocate (see records.h) and so re-enter: the spare is set
 * before it. */
MT_SLOW mt_sync_rec *mt_ccsynch_new_spare(void)
{
    mt_sync_rec *r;
    mt_sync_backoff b = MT_SYNC_BACKOFF_INIT;
    while (!(r = mt_sync_pool_get(&mt_ccsynch_pool)))
        mt_sync_backoff_wait(&b);
    mt_ccsynch_spare = r;
    if (!mt_ccsynch_bound) {
        mt_ccsynch_bound = true;
        mt_sync_pool_bind(&mt_ccsynch_pool, mt_ccsynch_thread_done);
    }
    return r;
}

/* A node that left every queue: the thread's spare if it has none. */
MT_SLOW void mt_ccsynch_keep_slow(mt_sync_rec *r) { mt_sync_pool_put(&mt_ccsynch_pool, r); }
MT_INLINE void mt_ccsynch_keep(mt_sync_rec *r)
{
    if (MT_LIKELY(!mt_ccsynch_spare))
        mt_ccsynch_spare = r;
    else
        mt_ccsynch_keep_slow(r);
}

/* Let go of node `last`, reached by a combiner or a lock() holder: if it is
 * the tail with nobody linked behind, the queue becomes empty (the lock is
 * idle); otherwise its owner, the thread that swapped it out of the tail,
 * combines next. Release semantics either way. */
MT_INLINE void mt_ccsynch_let_go(mt_sync_ccsynch *l, mt_sync_rec *last)
{
    mt_sync_rec *expect = last;
    if (!mt_load_acquire(&last->next) && mt_cas(&l->tail, &expect, NULL))
        mt_ccsynch_keep(last);
    else
        mt_sync_signal(&last->state, 0);
}

/* Enqueue a request (cs == NULL: a lock request). NULL: the lock was idle
 * and the caller holds it, its spare `*linked` now the tail. Otherwise waits
 * for the node it wrote the request into to be released, and returns it; the
 * caller's spare is linked behind it (*linked). */
MT_INLINE mt_sync_rec *mt_ccsynch_enqueue(mt_sync_ccsynch *l, mt_sync_cs *cs, void *arg, mt_sync_rec **linked)
{
    mt_sync_rec *n = mt_ccsynch_spare;
    if (MT_UNLIKELY(!n))
        n = mt_ccsynch_new_spare();
    mt_store_relaxed(&n->next, NULL);
    n->completed = 0;
    mt_store_relaxed(&n->state, MT_SYNC_WAITING);
    mt_sync_rec *cur = mt_fas(&l->tail, n);
    *linked = n;
    if (MT_LIKELY(!cur)) {
        mt_ccsynch_spare = NULL; /* n is in the queue: a nested request takes another node */
        return NULL;
    }
    mt_store_relaxed(&cur->cs, cs);
    mt_store_relaxed(&cur->arg, arg);
    mt_store_release(&cur->next, n);
    mt_ccsynch_spare = cur; /* ours again once released; n belongs to the queue */
    if (MT_UNLIKELY(mt_load_acquire(&cur->state) != 0))
        mt_sync_await_for(&cur->state, mt_sync_spin_rounds());
    return cur;
}

/* Combiner: run the requests from node `tmp` on, at most `budget` of them,
 * stopping at a lock request; then let go of the node reached. Owners that
 * went to sleep are woken last (wait.h, mt_sync_wakes). */
MT_SLOW void mt_ccsynch_combine(mt_sync_ccsynch *l, mt_sync_rec *tmp, unsigned budget)
{
    mt_sync_wakes sleepers = {.count = 0};
    mt_sync_rec *next;
    while (budget && (next = mt_load_acquire(&tmp->next))) {
        mt_sync_cs *cs = mt_load_relaxed(&tmp->cs);
        if (!cs)
            break; /* lock(): its caller takes the lock from here */
        tmp->ret = cs(mt_load_relaxed(&tmp->arg));
        tmp->completed = 1;
        if (atomic_exchange_explicit(&tmp->state, 0, memory_order_acq_rel) == MT_SYNC_SLEEPING)
            mt_sync_wake_later(&sleepers, &tmp->state);
        tmp = next;
        budget--;
    }
    mt_ccsynch_let_go(l, tmp);
    mt_sync_wake_now(&sleepers);
}

MT_INLINE void *mt_sync_ccsynch_exec(mt_sync_ccsynch *l, mt_sync_cs *cs, void *arg)
{
    mt_sync_rec *linked;
    mt_sync_rec *cur = mt_ccsynch_enqueue(l, cs, arg, &linked);
    if (MT_UNLIKELY(cur && cur->completed))
        return cur->ret;
    /* Combiner. Our own request first (no starvation of the combiner), run
     * from locals: our spare is not in this queue, and cs may nest another
     * exec with it. */
    void *r = cs(arg);
    if (MT_LIKELY(!mt_load_acquire(&linked->next)))
        mt_ccsynch_let_go(l, linked); /* nobody queued: nothing to combine */
    else
        mt_ccsynch_combine(l, linked, MT_CCSYNCH_BOUND - 1);
    return r;
}

MT_INLINE void mt_sync_ccsynch_lock(mt_sync_ccsynch *l)
{
    mt_sync_rec *linked;
    mt_ccsynch_enqueue(l, NULL, NULL, &linked);
    l->resume = linked;
}

MT_INLINE void mt_sync_ccsynch_unlock(mt_sync_ccsynch *l) { mt_ccsynch_let_go(l, l->resume); }
#endif

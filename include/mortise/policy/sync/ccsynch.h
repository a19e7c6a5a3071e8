/* sync=ccsynch — CC-Synch combining (Fatourou & Kallimanis, PPoPP 2012).
 *                                                             [model: ccsynch]
 * Purpose: under contention one thread, the combiner, runs the critical
 *   sections of the others back to back while their data stays in its cache;
 *   the paper's tlsfcc takes its global lock this way.
 * Algorithm: the lock is the tail of a queue of request nodes. A thread swaps
 *   its spare node in as the new tail, writes its request (cs, arg) into the
 *   node it got back (the old tail), links it to the new tail and waits on
 *   that node. A node's wait word is released either with `completed` set
 *   (a combiner ran the request and left the result) or without (the thread
 *   is the new combiner). A combiner runs its own request first, then walks
 *   the queue running up to MT_CCSYNCH_BOUND - 1 further requests, releasing
 *   each owner, and finally releases the next node without `completed`: its
 *   owner combines next, or, when it is the tail, whoever arrives next. The
 *   node a thread got back becomes its spare, so nodes travel between threads.
 * lock/unlock: lock() enqueues a request with no cs. A combiner stops there
 *   and hands the combiner role over instead of running it: the caller then
 *   holds the lock, exclusive of every combiner, and remembers the node it
 *   linked behind its request. unlock() releases that node: its owner combines
 *   next. So exec and lock/unlock share one FIFO queue, the caller needs no
 *   node after lock() returns, and nesting is unlimited (fork_prepare holding
 *   every class lock of a layer is 2 pool records per lock, not per thread).
 * Slots: none in the model language. Tuning: MT_CCSYNCH_BOUND (64) requests a
 *   combiner runs, its own included, before it passes the role on;
 *   MT_SYNC_SPIN (wait.h, 200) pause rounds a waiter polls before it sleeps
 *   on its node (futex).
 * Needs: POSIX threads (a key to give a thread's spare node back when it
 *   exits), mmap for node chunks (records.h). Not freestanding.
 * Time: uncontended exec/lock = one exchange, unlock = one exchange. FIFO:
 *   requests are served in the order of the tail swaps, so a waiter is
 *   overtaken by at most the requests queued before it (bypass < threads).
 *   A combiner runs at most MT_CCSYNCH_BOUND critical sections per exec, so
 *   its own latency is bounded too. Worst case for a waiter: (threads - 1)
 *   critical sections plus one hand-over per MT_CCSYNCH_BOUND of them.
 * Space: 8+8 bytes per lock; one 64-byte node per thread and one per lock
 *   ever used (the queue's tail), from the pool in records.h.
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
#ifndef MORTISE_POLICY_SYNC_CCSYNCH_H
#define MORTISE_POLICY_SYNC_CCSYNCH_H
#include "records.h"

#ifndef MT_CCSYNCH_BOUND
#define MT_CCSYNCH_BOUND 64
#endif
_Static_assert(MT_CCSYNCH_BOUND >= 1, "ccsynch: a combiner runs at least its own request");

typedef struct {
    _Atomic(mt_sync_rec *) tail; /* the queue's last node; NULL: never used */
    mt_sync_rec *resume;         /* lock() holder: the node unlock() releases */
} mt_sync_ccsynch;

static mt_sync_pool mt_ccsynch_pool;
static MT_TLS mt_sync_rec *mt_ccsynch_spare; /* this thread's node for its next request */

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

/* A node from the pool, waiting (yielding) while the pool cannot grow. */
MT_SLOW mt_sync_rec *mt_ccsynch_new_node(void)
{
    mt_sync_rec *r;
    mt_sync_backoff b = MT_SYNC_BACKOFF_INIT;
    while (!(r = mt_sync_pool_get(&mt_ccsynch_pool)))
        mt_sync_backoff_wait(&b);
    return r;
}

/* The thread's first request: a spare node and the exit hook. The hook may
 * allocate (see records.h) and so re-enter; the spare is set before it. */
MT_SLOW mt_sync_rec *mt_ccsynch_adopt(void)
{
    mt_ccsynch_spare = mt_ccsynch_new_node();
    mt_sync_pool_bind(&mt_ccsynch_pool, mt_ccsynch_thread_done);
    return mt_ccsynch_spare;
}

/* The lock was never used (or reset in a fork child): no old tail to take
 * over. A fresh node that says "go" stands in for it: the caller combines. */
MT_SLOW mt_sync_rec *mt_ccsynch_first(void)
{
    mt_sync_rec *r = mt_ccsynch_new_node();
    atomic_store_explicit(&r->state, 0, memory_order_relaxed);
    r->completed = 0;
    return r;
}

/* Enqueue a request (cs == NULL: a lock request) and wait for the node to be
 * released. Returns the node the request was written into; the caller's
 * spare node is now linked behind it (*linked). */
MT_INLINE mt_sync_rec *mt_ccsynch_enqueue(mt_sync_ccsynch *l, mt_sync_cs *cs, void *arg,
                                          mt_sync_rec **linked)
{
    mt_sync_rec *n = mt_ccsynch_spare;
    if (MT_UNLIKELY(!n))
        n = mt_ccsynch_adopt();
    mt_store_relaxed(&n->next, NULL);
    n->completed = 0;
    mt_store_relaxed(&n->state, MT_SYNC_WAITING);
    mt_sync_rec *cur = mt_fas(&l->tail, n);
    if (MT_UNLIKELY(!cur))
        cur = mt_ccsynch_first();
    mt_store_relaxed(&cur->cs, cs);
    mt_store_relaxed(&cur->arg, arg);
    mt_store_release(&cur->next, n);
    mt_ccsynch_spare = cur; /* ours again once released; n belongs to the queue */
    *linked = n;
    if (MT_UNLIKELY(mt_load_acquire(&cur->state) != 0))
        mt_sync_await(&cur->state);
    return cur;
}

/* Combiner: run the requests from node `tmp` on, at most `budget` of them,
 * stopping at a lock request; then release the node reached without
 * `completed`, which makes its owner (or the next arrival) the combiner. */
MT_SLOW void mt_ccsynch_combine(mt_sync_rec *tmp, unsigned budget)
{
    mt_sync_rec *next;
    while (budget && (next = mt_load_acquire(&tmp->next))) {
        mt_sync_cs *cs = mt_load_relaxed(&tmp->cs);
        if (!cs)
            break; /* lock(): its caller takes the lock from here */
        tmp->ret = cs(mt_load_relaxed(&tmp->arg));
        tmp->completed = 1;
        mt_sync_signal(&tmp->state, 0); /* the owner may reuse tmp at once */
        tmp = next;
        budget--;
    }
    mt_sync_signal(&tmp->state, 0);
}

MT_INLINE void *mt_sync_ccsynch_exec(mt_sync_ccsynch *l, mt_sync_cs *cs, void *arg)
{
    mt_sync_rec *linked;
    mt_sync_rec *cur = mt_ccsynch_enqueue(l, cs, arg, &linked);
    if (cur->completed)
        return cur->ret;
    /* Combiner. Our own request first (no starvation of the combiner), run
     * from locals: cur is already our spare, and cs may nest another exec. */
    void *r = cs(arg);
    mt_ccsynch_combine(linked, MT_CCSYNCH_BOUND - 1);
    return r;
}

MT_INLINE void mt_sync_ccsynch_lock(mt_sync_ccsynch *l)
{
    mt_sync_rec *linked;
    mt_ccsynch_enqueue(l, NULL, NULL, &linked);
    l->resume = linked;
}

MT_INLINE void mt_sync_ccsynch_unlock(mt_sync_ccsynch *l)
{
    mt_sync_signal(&l->resume->state, 0); /* its owner combines next */
}
#endif

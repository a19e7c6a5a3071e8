/* sync=mcslock — MCS queue lock (Mellor-Crummey & Scott 1991), in the
 * K42 form that needs no caller-supplied node.                [model: mcslock]
 *
 * Purpose: a fair queue lock on which every waiter polls its own word, so a
 *   hand-over touches one cache line of one waiter.
 * Algorithm: the lock is itself a queue node {tail, next}. A thread that
 *   finds tail == NULL swings it to the lock (held, nobody waiting). Otherwise
 *   it links a node that lives on its own stack behind the tail and waits on
 *   it; when its predecessor hands over, it moves its successor pointer into
 *   lock->next (or swings tail back to the lock) and returns: from then on the
 *   node is not needed, so lock() and unlock() take no node, nesting is
 *   unlimited (fork_prepare may hold every class lock of a layer at once) and
 *   unlock need not run in reverse order. (Auslander et al., IBM K42; Scott,
 *   "Shared-Memory Synchronization", 4.3.) unlock() passes the lock to
 *   lock->next, or swings tail back to NULL when nobody waits.
 * Slots: none in the model language. Tuning: MT_SYNC_SPIN (wait.h, 200) pause
 *   rounds a waiter polls its node before it sleeps on it (futex).
 * Needs: atomics; the futex system call on Linux (else waiters yield).
 *   Compiles freestanding.
 * Time: uncontended lock = one CAS, unlock = one CAS. Fairness: FIFO in the
 *   order of the tail swaps (bypass < threads). Worst case: (threads - 1)
 *   critical sections plus hand-overs; a hand-over to a sleeping waiter costs
 *   a wake-up.
 * Space: 24 bytes per lock; a 24-byte node on the waiter's stack while it
 *   waits; nothing per thread.
 * Thread safety / lock order: plain non-recursive lock; exec runs cs on the
 *   caller. Zero-filled = unlocked. Fork: init() in the child (nodes of the
 *   parent's waiters are forgotten with their threads).
 * Fails: never.
 * Example:
 *     // mmap_heap::segfit_lk(sync=mcslock)::malloc_socket
 *     #define MT_SYNC mcslock
 *     #include <mortise/layers/segfit_lk.h>
 */
/* The policy's descriptor (core/describe.h): the data tools/describe_layers.py
 * reads; describe mode (MT_DESCRIBE) skips the rest. */
#define MT_POLICY_DESCRIPTOR_sync_mcslock(POLICY, SLOT) POLICY(sync, mcslock, policy)
#if !defined(MORTISE_POLICY_SYNC_MCSLOCK_H) && !defined(MT_DESCRIBE)
#define MORTISE_POLICY_SYNC_MCSLOCK_H
#include "wait.h"

typedef struct mt_sync_mcslock {
    _Atomic(struct mt_sync_mcslock *) tail; /* last in line; the lock itself = held, no waiters */
    _Atomic(struct mt_sync_mcslock *) next; /* first waiter (in the lock) / successor (in a node) */
    _Atomic(uint32_t) wait;                 /* nodes only: MT_SYNC_WAITING until granted (0) */
} mt_sync_mcslock;

MT_INLINE void mt_sync_mcslock_init(mt_sync_mcslock *l)
{
    atomic_init(&l->tail, NULL);
    atomic_init(&l->next, NULL);
    atomic_init(&l->wait, 0);
}

MT_INLINE bool mt_sync_mcslock_try(mt_sync_mcslock *l)
{
    mt_sync_mcslock *expect = NULL;
    return atomic_compare_exchange_strong_explicit(&l->tail, &expect, l, memory_order_acquire,
                                                   memory_order_relaxed);
}

MT_SLOW void mt_sync_mcslock_wait(mt_sync_mcslock *l)
{
    for (;;) {
        mt_sync_mcslock *prev = mt_load_acquire(&l->tail);
        if (!prev) {
            if (mt_sync_mcslock_try(l))
                return;
            continue;
        }
        mt_sync_mcslock me;
        atomic_init(&me.tail, NULL);
        atomic_init(&me.next, NULL);
        atomic_init(&me.wait, MT_SYNC_WAITING);
        if (!mt_cas(&l->tail, &prev, &me))
            continue;
        mt_store_release(&prev->next, &me); /* prev == l: we are first behind the holder */
        mt_sync_await(&me.wait);
        /* We hold the lock; move our successor into the lock, then `me` dies. */
        mt_sync_mcslock *succ = mt_load_acquire(&me.next);
        if (!succ) {
            mt_store_relaxed(&l->next, NULL);
            mt_sync_mcslock *expect = &me;
            if (mt_cas(&l->tail, &expect, l))
                return;
            mt_sync_backoff b = MT_SYNC_BACKOFF_INIT;   /* the newcomer is between */
            while (!(succ = mt_load_acquire(&me.next))) /* its swap and its link */
                mt_sync_backoff_wait(&b);
        }
        mt_store_release(&l->next, succ);
        return;
    }
}

MT_INLINE void mt_sync_mcslock_lock(mt_sync_mcslock *l)
{
    if (MT_UNLIKELY(!mt_sync_mcslock_try(l)))
        mt_sync_mcslock_wait(l);
}

MT_SLOW void mt_sync_mcslock_handover(mt_sync_mcslock *l)
{
    mt_sync_mcslock *succ = mt_load_acquire(&l->next);
    if (!succ) {
        mt_sync_mcslock *expect = l;
        if (mt_cas(&l->tail, &expect, NULL))
            return;
        mt_sync_backoff b = MT_SYNC_BACKOFF_INIT;   /* a waiter swapped the tail */
        while (!(succ = mt_load_acquire(&l->next))) /* and is linking itself */
            mt_sync_backoff_wait(&b);
    }
    mt_sync_signal(&succ->wait, 0);
}

MT_INLINE void mt_sync_mcslock_unlock(mt_sync_mcslock *l)
{
    mt_sync_mcslock *expect = l;
    if (MT_UNLIKELY(!atomic_compare_exchange_strong_explicit(&l->tail, &expect, NULL, memory_order_release,
                                                             memory_order_relaxed)))
        mt_sync_mcslock_handover(l);
}

MT_INLINE void *mt_sync_mcslock_exec(mt_sync_mcslock *l, void *(*cs)(void *), void *arg)
{
    MT_SYNC_EXEC_LOCKING(mcslock, l, cs, arg);
}
#endif

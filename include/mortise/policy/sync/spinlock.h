/* sync=spinlock — test-and-test-and-set with exponential backoff, then yield.
 * Unfair; cheapest when contention is spread over many locks. After
 * MT_SPIN_LIMIT rounds of backoff a waiter yields its time slice, so the lock
 * stays usable when threads outnumber cores. Worst case: unbounded (unfair). */
#ifndef MORTISE_POLICY_SYNC_SPINLOCK_H
#define MORTISE_POLICY_SYNC_SPINLOCK_H
#include "wait.h" /* MT_SPIN_LIMIT, the backoff */

typedef struct { _Atomic(int) held; } mt_sync_spinlock;

MT_INLINE void mt_sync_spinlock_init(mt_sync_spinlock *l) { atomic_init(&l->held, 0); }

MT_SLOW void mt_sync_spinlock_wait(mt_sync_spinlock *l)
{
    mt_sync_backoff b = MT_SYNC_BACKOFF_INIT;
    do {
        while (mt_load_relaxed(&l->held))
            mt_sync_backoff_wait(&b);
    } while (atomic_exchange_explicit(&l->held, 1, memory_order_acquire));
}

MT_INLINE void mt_sync_spinlock_lock(mt_sync_spinlock *l)
{
    if (MT_UNLIKELY(atomic_exchange_explicit(&l->held, 1, memory_order_acquire)))
        mt_sync_spinlock_wait(l);
}
MT_INLINE void mt_sync_spinlock_unlock(mt_sync_spinlock *l)
{
    atomic_store_explicit(&l->held, 0, memory_order_release);
}
MT_SYNC_EXEC_BY_LOCKING(spinlock)
#endif

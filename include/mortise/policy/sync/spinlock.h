/* sync=spinlock — test-and-test-and-set with exponential backoff, then yield.
 * Unfair; cheapest when contention is spread over many locks. After
 * MT_SPIN_LIMIT rounds of backoff a waiter yields its time slice, so the lock
 * stays usable when threads outnumber cores. Worst case: unbounded (unfair). */
#ifndef MORTISE_POLICY_SYNC_SPINLOCK_H
#define MORTISE_POLICY_SYNC_SPINLOCK_H
#include "../../core/platform.h"

#ifndef MT_SPIN_LIMIT
#define MT_SPIN_LIMIT 16
#endif

typedef struct { _Atomic(int) held; } mt_sync_spinlock;

MT_INLINE void mt_sync_spinlock_init(mt_sync_spinlock *l) { atomic_init(&l->held, 0); }

MT_SLOW void mt_sync_spinlock_wait(mt_sync_spinlock *l)
{
    unsigned backoff = 1, rounds = 0;
    do {
        while (mt_load_relaxed(&l->held)) {
            if (rounds < MT_SPIN_LIMIT) {
                for (unsigned i = 0; i < backoff; i++)
                    mt_cpu_relax();
                backoff = backoff < 256 ? backoff * 2 : backoff;
                rounds++;
            } else {
                mt_yield();
            }
        }
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
MT_INLINE void *mt_sync_spinlock_exec(mt_sync_spinlock *l, void *(*cs)(void *), void *arg)
{
    mt_sync_spinlock_lock(l);
    void *r = cs(arg);
    mt_sync_spinlock_unlock(l);
    return r;
}
#endif

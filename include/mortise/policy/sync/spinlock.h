/* sync=spinlock — test-and-test-and-set with exponential backoff, then yield.
 *                                                           [model: spinlock]
 * Purpose: the cheapest lock when contention is spread over many locks
 *   (segfit_lk's class locks, the OS layers' one lock).
 * Algorithm: an exchange takes the lock; a waiter reads the word until it is
 *   free, pausing 1, 2, 4 ... 256 times between reads for MT_SPIN_LIMIT
 *   rounds, then yielding its time slice on every round (wait.h), so the lock
 *   stays usable when threads outnumber cores.
 * Slots: none in the model language. Tuning: MT_SPIN_LIMIT (wait.h, 16).
 * Needs: atomics only (freestanding).
 * Time: uncontended lock = one exchange, unlock = one store. Fairness: none;
 *   worst case unbounded (a yielding waiter may lose any number of times).
 * Space: 4 bytes; nothing per thread. Nesting unlimited.
 * Thread safety / lock order: plain non-recursive lock; exec runs cs on the
 *   caller. Zero-filled = unlocked. Fork: init() in the child.
 * Fails: never.
 * Example:
 *     // mmap_heap::segfit_lk(sync=spinlock)::malloc_socket
 *     #define MT_SYNC spinlock
 *     #include <mortise/layers/segfit_lk.h>
 */
/* The policy's descriptor (core/describe.h): the data tools/describe_layers.py
 * reads; describe mode (MT_DESCRIBE) skips the rest. */
#define MT_POLICY_DESCRIPTOR_sync_spinlock(POLICY, SLOT) POLICY(sync, spinlock, policy)
#if !defined(MORTISE_POLICY_SYNC_SPINLOCK_H) && !defined(MT_DESCRIBE)
#define MORTISE_POLICY_SYNC_SPINLOCK_H
#include "wait.h" /* MT_SPIN_LIMIT, the backoff */

typedef struct {
    _Atomic(int) held;
} mt_sync_spinlock;

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
MT_INLINE void *mt_sync_spinlock_exec(mt_sync_spinlock *l, void *(*cs)(void *), void *arg)
{
    MT_SYNC_EXEC_LOCKING(spinlock, l, cs, arg);
}
#endif

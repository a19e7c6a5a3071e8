/* sync=posix_spin — the C library's pthread_spinlock_t.        [model: posix_spin]
 *
 * Purpose: the POSIX spin lock, for code that wants the platform's own lock
 *   word (the paper's hslab puts it in slab_lk). The lock word is a
 *   pthread_spinlock_t and every acquire goes through pthread_spin_trylock;
 *   only the waiting is ours: pthread_spin_lock spins without end, which
 *   starves a preempted holder when threads outnumber cores, so a waiter
 *   backs off exponentially for MT_SPIN_LIMIT rounds and then yields its
 *   time slice on every round (wait.h, as sync=spinlock does).
 * Zero-filled: not a valid pthread spin lock everywhere — glibc on x86-64
 *   writes 1 for "unlocked" (its lock is a decrement to 0), so a zero word
 *   reads as held (tests/policies/sync checks what pthread_spin_init writes). The lock
 *   therefore carries a `ready` word: zero-filled means "not initialised",
 *   and the first lock or exec runs pthread_spin_init once (a CAS elects the
 *   initialiser; the others wait the few instructions it takes). Afterwards
 *   the fast path pays one load of a word in the same cache line.
 * Slots: none in the model language. Tuning: MT_SPIN_LIMIT (wait.h, 16).
 * Needs: POSIX threads (not freestanding).
 * Time: uncontended lock and unlock = one atomic each. Fairness: none —
 *   bypass unbounded, a waiter may be overtaken any number of times.
 * Space: sizeof(pthread_spinlock_t) + 4 bytes (8 on Linux); nothing per thread.
 * Thread safety / lock order: plain non-recursive lock; exec runs cs on the
 *   caller. Nesting unlimited. Fork: init() in the child.
 * Fails: never.
 * Example:
 *     // mmap_heap::segfit_lk(sync=posix_spin)::malloc_socket
 *     #define MT_SYNC posix_spin
 *     #include <mortise/layers/segfit_lk.h>
 */
/* The policy's descriptor (core/describe.h): the data tools/describe_layers.py
 * reads; describe mode (MT_DESCRIBE) skips the rest. */
#define MT_POLICY_DESCRIPTOR_sync_posix_spin(POLICY, SLOT) POLICY(sync, posix_spin, policy)
#if !defined(MORTISE_POLICY_SYNC_POSIX_SPIN_H) && !defined(MT_DESCRIBE)
#define MORTISE_POLICY_SYNC_POSIX_SPIN_H
#include "wait.h"

/* The lock word is the port layer's spin lock (pal.h: pthread_spinlock_t). */
typedef struct {
    mt_pal_spin s;
    _Atomic(uint32_t) ready; /* 0 zero-filled, 1 being initialised, 2 s is valid */
} mt_sync_posix_spin;

MT_INLINE void mt_sync_posix_spin_init(mt_sync_posix_spin *l)
{
    mt_pal_spin_init(&l->s);
    mt_store_release(&l->ready, 2);
}

/* First use of a zero-filled lock: initialise it exactly once. */
MT_SLOW void mt_sync_posix_spin_prepare(mt_sync_posix_spin *l)
{
    uint32_t expect = 0;
    if (mt_cas(&l->ready, &expect, 1)) {
        mt_sync_posix_spin_init(l);
        return;
    }
    mt_sync_backoff b = MT_SYNC_BACKOFF_INIT;
    while (mt_load_acquire(&l->ready) != 2)
        mt_sync_backoff_wait(&b);
}

/* Acquire the slow way; `tried`: the fast path's try-lock already failed. */
MT_SLOW void mt_sync_posix_spin_wait(mt_sync_posix_spin *l, bool tried)
{
    if (mt_load_acquire(&l->ready) != 2)
        mt_sync_posix_spin_prepare(l);
    if (!tried && mt_pal_spin_trylock(&l->s))
        return;
    mt_sync_backoff b = MT_SYNC_BACKOFF_INIT;
    do
        mt_sync_backoff_wait(&b);
    while (!mt_pal_spin_trylock(&l->s));
}

MT_INLINE void mt_sync_posix_spin_lock(mt_sync_posix_spin *l)
{
    if (MT_UNLIKELY(mt_load_acquire(&l->ready) != 2))
        mt_sync_posix_spin_wait(l, false);
    else if (MT_UNLIKELY(!mt_pal_spin_trylock(&l->s)))
        mt_sync_posix_spin_wait(l, true);
}
MT_INLINE void mt_sync_posix_spin_unlock(mt_sync_posix_spin *l) { mt_pal_spin_unlock(&l->s); }
MT_INLINE void *mt_sync_posix_spin_exec(mt_sync_posix_spin *l, void *(*cs)(void *), void *arg)
{
    MT_SYNC_EXEC_LOCKING(posix_spin, l, cs, arg);
}
#endif

/* mortise/policy/sync/wait.h — how every sync policy waits.
 *
 * A waiter must stay usable when threads outnumber cores: it spins a bounded
 * number of rounds and then gives the processor away, so a lock holder or a
 * combiner that was preempted gets the core back. The tools, shared by the
 * policies of this folder:
 *
 *   mt_sync_backoff      exponential pause backoff for MT_SPIN_LIMIT rounds,
 *                        then a yield (mt_pal_yield) every round (spinlock, posix_spin);
 *   mt_sync_futex_wait / _wake
 *                        sleep until a 32-bit word changes (the port layer's
 *                        mt_pal_futex: on Linux the raw system call, no errno,
 *                        no C library; elsewhere a yield, which is correct
 *                        because every caller re-checks its condition in a
 *                        loop);
 *   mt_sync_wakes        futex wake-ups a combiner owes, made after it let go;
 *   mt_sync_spin_rounds  how long a combining or delegating waiter polls: as
 *                        long as MT_SYNC_SPIN only with >= 3 cores
 *                        (mt_sync_spin_rounds_from: a policy's own minimum,
 *                        flatcombine's 2);
 *   mt_sync_futex_lock   a three-state mutex over one futex word (0 free,
 *                        1 held, 2 held with sleepers; Drepper, "Futexes are
 *                        tricky"): zero-filled is unlocked; used by
 *                        flatcombine and rcl as their exclusive path.
 *
 * MT_SYNC_EXEC_LOCKING(name, l, cs, arg) is exec's body from lock and unlock.
 * Tuning (compile time): MT_SPIN_LIMIT (16) backoff rounds before yielding;
 * MT_SYNC_SPIN (200) pause rounds a futex waiter polls before it sleeps;
 * MT_SYNC_SPIN_MIN_CORES (3) cores the process needs for the waiters of the
 * combining and delegating policies to poll that long (mt_sync_spin_rounds;
 * flatcombine's waiters: MT_FLATCOMBINE_SPIN_MIN_CORES, 2).
 * Nothing here allocates or touches errno.
 */
#ifndef MORTISE_POLICY_SYNC_WAIT_H
#define MORTISE_POLICY_SYNC_WAIT_H

#include "../../core/platform.h"

#ifndef MT_SPIN_LIMIT
#define MT_SPIN_LIMIT 16
#endif
#ifndef MT_SYNC_SPIN
#define MT_SYNC_SPIN 200
#endif

/* ---- bounded exponential backoff, then yield ---------------------------- */

typedef struct {
    unsigned pauses, rounds;
} mt_sync_backoff;
#define MT_SYNC_BACKOFF_INIT \
    {                        \
        1, 0                 \
    }

MT_INLINE void mt_sync_backoff_wait(mt_sync_backoff *b)
{
    if (b->rounds < MT_SPIN_LIMIT) {
        for (unsigned i = 0; i < b->pauses; i++)
            mt_cpu_relax();
        b->pauses = b->pauses < 256 ? b->pauses * 2 : b->pauses;
        b->rounds++;
    } else {
        mt_yield();
    }
}

/* ---- futex -------------------------------------------------------------- */

/* The futex itself is the port layer's (pal.h: mt_pal_futex, a raw system
 * call on Linux; where there is none a wait is one yield, a wake nothing). */

/* Sleep while *addr == val (returns at once if it differs; may return
 * spuriously: callers loop). */
MT_INLINE void mt_sync_futex_wait(_Atomic(uint32_t) *addr, uint32_t val)
{
    mt_pal_futex(addr, MT_PAL_FUTEX_WAIT, val, NULL, 0);
}
/* Same, for at most ns nanoseconds; true if the time ran out. */
MT_INLINE bool mt_sync_futex_wait_for(_Atomic(uint32_t) *addr, uint32_t val, long ns)
{
    mt_pal_timeout t = {ns / 1000000000L, ns % 1000000000L};
    return mt_pal_futex(addr, MT_PAL_FUTEX_WAIT, val, &t, 0) == -MT_PAL_ETIMEDOUT;
}
MT_INLINE void mt_sync_futex_wake(_Atomic(uint32_t) *addr, uint32_t count)
{
    mt_pal_futex(addr, MT_PAL_FUTEX_WAKE, count, NULL, 0);
}
/* Bitset forms: a waiter sleeps with a mask, a wake reaches only waiters
 * whose mask intersects (the ticket lock wakes exactly the next ticket). */
MT_INLINE void mt_sync_futex_wait_bits(_Atomic(uint32_t) *addr, uint32_t val, uint32_t bits)
{
    mt_pal_futex(addr, MT_PAL_FUTEX_WAIT_BITSET, val, NULL, bits);
}
MT_INLINE void mt_sync_futex_wake_bits(_Atomic(uint32_t) *addr, uint32_t bits)
{
    mt_pal_futex(addr, MT_PAL_FUTEX_WAKE_BITSET, 0x7fffffff, NULL, bits);
}

/* ---- how long to poll: cores ---------------------------------------------- */

/* Cores the process may run on (its affinity mask, read once; 0 if the port
 * layer cannot tell). */
static _Atomic(unsigned) mt_sync_cores_seen; /* cores + 1; 0: not read yet */
MT_SLOW unsigned mt_sync_cores_read(void)
{
    mt_pal_cpuset set;
    unsigned cores = 0;
    if (mt_pal_affinity_get(&set))
        for (unsigned i = 0; i < sizeof set.words / sizeof set.words[0]; i++)
            cores += (unsigned)__builtin_popcountll(set.words[i]);
    atomic_store_explicit(&mt_sync_cores_seen, cores + 1, memory_order_relaxed);
    return cores;
}
MT_INLINE unsigned mt_sync_cores(void)
{
    unsigned seen = atomic_load_explicit(&mt_sync_cores_seen, memory_order_relaxed);
    return MT_LIKELY(seen) ? seen - 1 : mt_sync_cores_read();
}

/* Polling rounds before a waiter of a combining or delegating lock sleeps.
 * Polling pays only when the thread it waits for runs meanwhile on another
 * core. With two cores or fewer a polling waiter takes the core that the
 * combiner, the server or the next owner needs, so every round it polls
 * delays the thread it waits for: there it polls once and sleeps, as
 * posix_mutex does. A policy whose waiters do not hold up the thread they
 * wait for passes its own minimum (flatcombine: 2). */
#ifndef MT_SYNC_SPIN_MIN_CORES
#define MT_SYNC_SPIN_MIN_CORES 3
#endif
MT_INLINE unsigned mt_sync_spin_rounds_from(unsigned min_cores)
{
    return mt_sync_cores() >= min_cores ? MT_SYNC_SPIN : 1;
}
MT_INLINE unsigned mt_sync_spin_rounds(void) { return mt_sync_spin_rounds_from(MT_SYNC_SPIN_MIN_CORES); }

/* Poll *addr for `rounds` rounds while it equals val; true if it changed. */
MT_INLINE bool mt_sync_spin_while_for(_Atomic(uint32_t) *addr, uint32_t val, unsigned rounds)
{
    for (unsigned i = 0; i < rounds; i++) {
        if (mt_load_acquire(addr) != val)
            return true;
        mt_cpu_relax();
    }
    return mt_load_acquire(addr) != val;
}

/* Poll *addr for MT_SYNC_SPIN rounds while it equals val; true if it changed. */
MT_INLINE bool mt_sync_spin_while(_Atomic(uint32_t) *addr, uint32_t val)
{
    return mt_sync_spin_while_for(addr, val, MT_SYNC_SPIN);
}

/* A one-shot hand-over word: the waiter owns it in state `waiting`, parks
 * after a bounded spin by moving it to `sleeping`, and the signaller's
 * mt_sync_signal stores the final state and wakes only a parked waiter.
 * Used for the per-request words of mcslock, ccsynch and rcl. */
enum { MT_SYNC_WAITING = 1, MT_SYNC_SLEEPING = 2 };

/* Wait until *w leaves MT_SYNC_WAITING/MT_SYNC_SLEEPING, polling `rounds`
 * rounds before sleeping; returns its value. */
MT_SLOW uint32_t mt_sync_await_for(_Atomic(uint32_t) *w, unsigned rounds)
{
    mt_sync_spin_while_for(w, MT_SYNC_WAITING, rounds);
    uint32_t s = mt_load_acquire(w);
    while (s == MT_SYNC_WAITING || s == MT_SYNC_SLEEPING) {
        uint32_t expect = MT_SYNC_WAITING;
        if (s == MT_SYNC_SLEEPING || mt_cas(w, &expect, MT_SYNC_SLEEPING))
            mt_sync_futex_wait(w, MT_SYNC_SLEEPING);
        s = mt_load_acquire(w);
    }
    return s;
}
MT_INLINE uint32_t mt_sync_await(_Atomic(uint32_t) *w) { return mt_sync_await_for(w, MT_SYNC_SPIN); }
/* Store the final state v (not WAITING/SLEEPING) with release semantics and
 * wake the waiter if it parked. The waiter may return and reuse the word's
 * memory as soon as it sees v; the wake then only touches the address, and a
 * spurious wake-up is harmless to every futex user (they all loop). */
MT_INLINE void mt_sync_signal(_Atomic(uint32_t) *w, uint32_t v)
{
    if (atomic_exchange_explicit(w, v, memory_order_acq_rel) == MT_SYNC_SLEEPING)
        mt_sync_futex_wake(w, 1);
}

/* Wake-ups a combiner owes to sleepers it answered, made after it has let
 * go of the lock, so the threads queued behind do not wait for the system
 * calls. A word may be reused as soon as its final state is written: a late
 * wake only touches the address, and every futex waiter loops. When the
 * list is full the wake is made at once. */
#define MT_SYNC_WAKES 64
typedef struct {
    _Atomic(uint32_t) *word[MT_SYNC_WAKES];
    unsigned count;
} mt_sync_wakes;

MT_INLINE void mt_sync_wake_later(mt_sync_wakes *k, _Atomic(uint32_t) *w)
{
    if (k->count < MT_SYNC_WAKES)
        k->word[k->count++] = w;
    else
        mt_sync_futex_wake(w, 1);
}
MT_INLINE void mt_sync_wake_now(mt_sync_wakes *k)
{
    while (k->count)
        mt_sync_futex_wake(k->word[--k->count], 1);
}

/* The body of exec for a policy whose critical sections run on the caller
 * (spinlock, ticket, mcslock, posix_mutex, posix_spin): lock, cs, unlock.
 * Each policy writes its exec out under its own name, around this body. */
#define MT_SYNC_EXEC_LOCKING(name, l, cs, arg) \
    mt_sync_##name##_lock(l);                  \
    void *result = (cs)(arg);                  \
    mt_sync_##name##_unlock(l);                \
    return result

/* ---- the futex mutex ---------------------------------------------------- */

typedef struct {
    _Atomic(uint32_t) state;
} mt_sync_futex_lock; /* 0 free, 1 held, 2 contended */

MT_INLINE bool mt_sync_futex_trylock(mt_sync_futex_lock *l)
{
    uint32_t expect = 0;
    return mt_load_relaxed(&l->state) == 0 &&
           atomic_compare_exchange_strong_explicit(&l->state, &expect, 1, memory_order_acquire,
                                                   memory_order_relaxed);
}
MT_SLOW void mt_sync_futex_lock_wait(mt_sync_futex_lock *l)
{
    for (unsigned i = 0, rounds = mt_sync_spin_rounds(); i < rounds; i++) {
        if (mt_sync_futex_trylock(l))
            return;
        mt_cpu_relax();
    }
    while (atomic_exchange_explicit(&l->state, 2, memory_order_acquire) != 0)
        mt_sync_futex_wait(&l->state, 2);
}
MT_INLINE void mt_sync_futex_lock_acquire(mt_sync_futex_lock *l)
{
    if (MT_UNLIKELY(!mt_sync_futex_trylock(l)))
        mt_sync_futex_lock_wait(l);
}
/* Release; a sequentially consistent exchange, so a caller may follow it
 * with a load that a waiter's store must not pass (Dekker). */
MT_SLOW void mt_sync_futex_lock_wake(mt_sync_futex_lock *l) { mt_sync_futex_wake(&l->state, 1); }
MT_INLINE void mt_sync_futex_lock_release(mt_sync_futex_lock *l)
{
    if (MT_UNLIKELY(atomic_exchange(&l->state, 0) == 2))
        mt_sync_futex_lock_wake(l);
}
MT_INLINE bool mt_sync_futex_lock_held(mt_sync_futex_lock *l) { return atomic_load(&l->state) != 0; }

#endif

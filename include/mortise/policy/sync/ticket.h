/* sync=ticket — FIFO ticket lock (Mellor-Crummey & Scott 1991).   [model: ticket]
 *
 * Purpose: a fair lock in two words. lock() draws a ticket with one
 *   fetch-and-add and waits until `serving` reaches it; unlock() advances
 *   `serving`. Threads enter in the order they drew tickets.
 * Slots: none in the model language. Tuning: MT_SYNC_SPIN (wait.h, 200) pause
 *   rounds of polling before a waiter sleeps.
 * Needs: atomics; on Linux the futex system call (wait.h), elsewhere waiters
 *   poll and yield. Compiles freestanding.
 * Waiting: a waiter polls `serving` for a bounded time, then sleeps on it with
 *   a futex whose bitset is 1 << (ticket % 32); unlock wakes only the bit of
 *   the next ticket, so a hand-over wakes the one thread whose turn it is (or
 *   one per 32 waiters), not the herd. Waiters are counted so that an
 *   uncontended unlock makes no system call.
 * Time: lock/unlock O(1) uncontended: one locked fetch-and-add each (unlock
 *   also reads the sleeper count). Fairness: FIFO — a waiter is overtaken by
 *   at most the threads that drew a ticket before it (bypass < threads).
 *   Worst case: (threads - 1) critical sections plus hand-overs; under
 *   oversubscription each hand-over to a sleeping thread costs a wake-up.
 * Space: 12 bytes; no per-thread state. Nesting: unlimited (no nodes).
 * Thread safety / lock order: a plain non-recursive lock; exec runs cs on the
 *   caller's thread. Zero-filled = unlocked. Fork: init() in the child.
 * Fails: never. 2^32 simultaneous waiters would wrap the ticket.
 * Example:
 *     // mmap_heap::segfit_lk(sync=ticket)::malloc_socket
 *     #define MT_SYNC ticket
 *     #include <mortise/layers/segfit_lk.h>
 */
/* The policy's descriptor (core/describe.h): the data tools/describe_layers.py
 * reads; describe mode (MT_DESCRIBE) skips the rest. */
#define MT_POLICY_DESCRIPTOR_sync_ticket(POLICY, SLOT) POLICY(sync, ticket, policy)
#if !defined(MORTISE_POLICY_SYNC_TICKET_H) && !defined(MT_DESCRIBE)
#define MORTISE_POLICY_SYNC_TICKET_H
#include "wait.h"

typedef struct {
    _Atomic(uint32_t) next;     /* next ticket to draw */
    _Atomic(uint32_t) serving;  /* ticket allowed in; the futex word */
    _Atomic(uint32_t) sleepers; /* waiters parked on the futex */
} mt_sync_ticket;

MT_INLINE void mt_sync_ticket_init(mt_sync_ticket *l)
{
    atomic_init(&l->next, 0);
    atomic_init(&l->serving, 0);
    atomic_init(&l->sleepers, 0);
}

MT_SLOW void mt_sync_ticket_wait(mt_sync_ticket *l, uint32_t ticket)
{
    /* Poll longer the nearer the turn: a thread far back in line would only
     * burn the core the holder needs. */
    uint32_t ahead = ticket - mt_load_relaxed(&l->serving);
    for (unsigned i = 0; ahead <= 2 && i < MT_SYNC_SPIN; i++) {
        if (mt_load_acquire(&l->serving) == ticket)
            return;
        mt_cpu_relax();
    }
    atomic_fetch_add(&l->sleepers, 1); /* seq_cst: paired with unlock's read */
    uint32_t now;
    while ((now = atomic_load(&l->serving)) != ticket)
        mt_sync_futex_wait_bits(&l->serving, now, 1u << (ticket & 31));
    atomic_fetch_sub_explicit(&l->sleepers, 1, memory_order_relaxed);
}

MT_INLINE void mt_sync_ticket_lock(mt_sync_ticket *l)
{
    uint32_t ticket = atomic_fetch_add_explicit(&l->next, 1, memory_order_relaxed);
    if (MT_UNLIKELY(mt_load_acquire(&l->serving) != ticket))
        mt_sync_ticket_wait(l, ticket);
}

MT_SLOW void mt_sync_ticket_wake(mt_sync_ticket *l, uint32_t serving)
{
    mt_sync_futex_wake_bits(&l->serving, 1u << (serving & 31));
}

MT_INLINE void mt_sync_ticket_unlock(mt_sync_ticket *l)
{
    /* Only the holder writes `serving`: the add is a store with a full fence,
     * so the sleeper count read below cannot pass it (a waiter increments the
     * count before it reads `serving`: one of the two sees the other). */
    uint32_t serving = atomic_fetch_add(&l->serving, 1) + 1;
    if (MT_UNLIKELY(atomic_load(&l->sleepers) != 0))
        mt_sync_ticket_wake(l, serving);
}

MT_INLINE void *mt_sync_ticket_exec(mt_sync_ticket *l, void *(*cs)(void *), void *arg)
{
    MT_SYNC_EXEC_LOCKING(ticket, l, cs, arg);
}
#endif

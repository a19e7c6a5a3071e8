/* mortise/pal/callchain.h — the calling thread's return addresses, for the
 * one layer that needs them (layers/affinity_pool.h). Naming code addresses
 * and the fork gate around both are pal/symbol.h (included here); the rest
 * of the port layer is pal.h.
 *
 * int mt_pal_callers(void **out, int max)
 *     the return addresses of the calling thread's frames, innermost first
 *     (the first is in the function that called mt_pal_callers), at most max;
 *     answers how many. Linux: libunwind's local unwinder (unw_backtrace),
 *     which follows the DWARF call-frame information, so frames compiled
 *     without frame pointers unwind correctly; it keeps its per-thread trace
 *     cache in memory it maps itself and takes no lock of malloc's. The
 *     composition is linked with -lunwind (the affinity instance is).
 *     Freestanding: 0, no chain beyond the first return address.
 * int mt_pal_frames(uintptr_t *ips, uintptr_t *sps, int max)
 *     the same frames with each one's stack pointer (the address just above
 *     its callee's return address), for a caller that learns frame sizes;
 *     slower than mt_pal_callers (no trace cache), but keeps no memory per
 *     thread. Freestanding: 0.
 *
 * The process's first call of either runs alone (libunwind sets itself up
 * then, for both); a call made meanwhile answers 0, so a signal handler
 * that interrupts it cannot wait for it.
 *
 * Fork: both run inside the fork gate of pal/symbol.h (libunwind's
 * register-state cache lock is held inside them); the layer that unwinds
 * calls the gate's fork handlers from its own.
 */
#ifndef MORTISE_PAL_CALLCHAIN_H
#define MORTISE_PAL_CALLCHAIN_H

#include "symbol.h"

#if defined(MT_FREESTANDING)
MT_UNUSED static int mt_pal_callers(void **out, int max)
{
    (void)out;
    (void)max;
    return 0;
}
MT_UNUSED static int mt_pal_frames(uintptr_t *ips, uintptr_t *sps, int max)
{
    (void)ips;
    (void)sps;
    (void)max;
    return 0;
}
#else
#define UNW_LOCAL_ONLY
#include <libunwind.h>

MT_INLINE int mt_pal_frames_stepped(uintptr_t *ips, uintptr_t *sps, int max)
{
    unw_context_t uc;
    unw_cursor_t cur;
    if (unw_getcontext(&uc) || unw_init_local(&cur, &uc))
        return 0;
    int n = 0;
    while (n < max && unw_step(&cur) > 0) {
        unw_word_t ip, sp;
        if (unw_get_reg(&cur, UNW_REG_IP, &ip) || unw_get_reg(&cur, UNW_REG_SP, &sp))
            break;
        ips[n] = ip;
        sps[n] = sp;
        n++;
    }
    return n;
}

/* The process's first unwind, by either entry point, runs alone and does
 * both kinds: libunwind sets its globals up then (a signal mask among them,
 * unsynchronised), and unw_backtrace's first call sets its trace cache up
 * under a pthread_once, for which a signal handler unwinding on the same
 * thread would wait forever. A call made meanwhile (on another thread, or
 * in a handler that interrupted the first) answers no frame: callers cope
 * with 0 already. */
static _Atomic(int) mt_pal_unwinder_state; /* 0 unused, 1 first running, 2 ready */

/* Whether the calling thread may unwind now; the process's first call
 * runs libunwind's set-up before it answers yes. */
MT_INLINE bool mt_pal_unwinder_ready(void)
{
    int state = mt_load_acquire(&mt_pal_unwinder_state);
    if (MT_LIKELY(state == 2))
        return true;
    if (state != 0 || !mt_cas(&mt_pal_unwinder_state, &state, 1))
        return false;
    uintptr_t ips[2], sps[2];
    void *callers[2];
    mt_pal_frames_stepped(ips, sps, 2);
    unw_backtrace(callers, 2);
    mt_store_release(&mt_pal_unwinder_state, 2);
    return true;
}

/* The return addresses and stack pointers of the calling thread's frames
 * (ips[0]/sps[0]: the caller of this function); how many. */
MT_UNUSED static int mt_pal_frames(uintptr_t *ips, uintptr_t *sps, int max)
{
    if (!mt_pal_callchain_enter())
        return 0;
    int n = mt_pal_unwinder_ready() ? mt_pal_frames_stepped(ips, sps, max) : 0;
    mt_pal_callchain_leave();
    return n;
}

/* libunwind's local backtrace (declared in libunwind-common.h). */

MT_UNUSED static int mt_pal_callers(void **out, int max)
{
    if (!mt_pal_callchain_enter())
        return 0;
    int n = mt_pal_unwinder_ready() ? unw_backtrace(out, max) : 0;
    mt_pal_callchain_leave();
    return n < 0 ? 0 : n;
}

#endif

#endif

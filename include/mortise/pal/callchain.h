/* mortise/pal/callchain.h — the calling thread's return addresses, for the
 * one layer that needs them (layers/affinity_pool.h). Naming code addresses
 * and the fork gate around both are pal/symbol.h (included here); the rest
 * of the port layer is pal.h.
 *
 * int mt_pal_callers(void **out, int max)
 *     the return addresses of the calling thread's frames, innermost first
 *     (the first is in the function that called mt_pal_callers), at most max;
 *     answers how many.
 * int mt_pal_frames(uintptr_t *ips, uintptr_t *sps, int max)
 *     the same frames with each one's stack pointer (the address just above
 *     its callee's return address) when sps is not NULL, for a caller that
 *     learns frame sizes.
 * int mt_pal_frames_until(uintptr_t *ips, uintptr_t *sps, int max,
 *                         mt_pal_frames_enough *enough, void *arg)
 *     the same, stopping early once enough(arg, ips, n) says the n frames
 *     kept so far are all the caller needs (each frame costs the unwinder
 *     some two thousand instructions); enough must not allocate or lock.
 *
 * Both step with the toolchain's unwinder (_Unwind_Backtrace: libgcc_s,
 * which GCC and Clang link into every program on Linux; libgcc_eh in a
 * static one). It follows the DWARF call-frame information, so frames
 * compiled without frame pointers unwind correctly. It finds each frame's
 * description with glibc's _dl_find_object (2.35 on: no lock, no system
 * call, async-signal-safe) and keeps no cache, so it allocates nothing and
 * takes no lock of malloc's. libunwind's local unwinder, the other choice,
 * masks every signal around each step (its register-state cache is
 * global): two system calls per frame, which cost more than the steps
 * themselves on a program with many call sites.
 * Freestanding: 0, no chain beyond the first return address.
 *
 * The process's first call of either runs alone: the unwinder sets its
 * register-size table up then, under a once-only lock that a signal
 * handler unwinding on the same thread would wait on forever; a call made
 * meanwhile answers 0, so a handler that interrupts it cannot wait for it.
 * Calls made before the program's constructors run (a static program's
 * start-up, while the C library builds the table the unwinder searches)
 * answer 0 too, and so does every call when this code has no unwind
 * tables (the unwinder would abort the process).
 *
 * Fork: both run inside the fork gate of pal/symbol.h (an unwinder without
 * _dl_find_object, or a program that registers frame tables of its own,
 * takes the loader's or the unwinder's locks inside them); the layer that
 * unwinds calls the gate's fork handlers from its own.
 */
#ifndef MORTISE_PAL_CALLCHAIN_H
#define MORTISE_PAL_CALLCHAIN_H

#include "symbol.h"

/* Whether the n frames an unwind has kept so far are enough (see above). */
typedef bool mt_pal_frames_enough(void *arg, const uintptr_t *ips, int n);

#if defined(MT_FREESTANDING)
MT_UNUSED static int mt_pal_frames_until(uintptr_t *ips, uintptr_t *sps, int max,
                                         mt_pal_frames_enough *enough, void *arg)
{
    (void)ips;
    (void)sps;
    (void)max;
    (void)enough;
    (void)arg;
    return 0;
}
MT_UNUSED static int mt_pal_callers(void **out, int max)
{
    (void)out;
    (void)max;
    return 0;
}
#else
#include <unwind.h>

/* One unwind: the return addresses above the frame that asked, into ips
 * (with the stack pointers into sps when it is not NULL) or into addrs. */
typedef struct {
    uintptr_t *ips, *sps;
    void **addrs;
    int max, n;
    bool asker_seen; /* the first frame reported is the asker's own */
    mt_pal_frames_enough *enough;
    void *arg;
} mt_pal_unwind_walk;

static _Unwind_Reason_Code mt_pal_unwind_frame(struct _Unwind_Context *uc, void *arg)
{
    mt_pal_unwind_walk *w = arg;
    if (!w->asker_seen) {
        w->asker_seen = true;
        return _URC_NO_REASON;
    }
    if (w->n >= w->max)
        return _URC_END_OF_STACK;
    int before_insn = 0;
    uintptr_t ip = (uintptr_t)_Unwind_GetIPInfo(uc, &before_insn);
    if (!ip)
        return _URC_END_OF_STACK;
    if (w->addrs)
        w->addrs[w->n] = (void *)ip;
    else
        w->ips[w->n] = ip;
    /* a context's CFA is its callee's: this frame's stack pointer just
     * after the call returned */
    if (w->sps)
        w->sps[w->n] = (uintptr_t)_Unwind_GetCFA(uc);
    w->n++;
    if (w->enough && w->enough(w->arg, w->ips, w->n))
        return _URC_END_OF_STACK;
    return _URC_NO_REASON;
}

/* Inlined into each entry point below, so the asker's frame the walk skips
 * is the entry point's own and the first frame kept is its caller's. */
MT_INLINE int mt_pal_unwind(uintptr_t *ips, uintptr_t *sps, void **addrs, int max,
                            mt_pal_frames_enough *enough, void *arg)
{
    mt_pal_unwind_walk w = {ips, sps, addrs, max, 0, false, enough, arg};
    if (max > 0)
        _Unwind_Backtrace(mt_pal_unwind_frame, &w);
    return w.n;
}

/* 0 unused, 1 the process's first unwind running, 2 ready, 3 unable: the
 * unwinder has no description of this code (built without unwind tables),
 * so it would abort the process. */
static _Atomic(int) mt_pal_unwinder_state;
/* Set once the C library has started the program's constructors: before
 * that (a static program's own start-up mallocs) the loader's table of
 * objects, which the unwinder reads, may not be there yet. */
static _Atomic(bool) mt_pal_unwinder_allowed;

__attribute__((constructor)) static void mt_pal_unwinder_allow(void)
{
    mt_store_release(&mt_pal_unwinder_allowed, true);
}

/* Whether the calling thread may unwind now; the process's first call
 * runs the unwinder's set-up before it answers yes. */
MT_INLINE bool mt_pal_unwinder_ready(void)
{
    int state = mt_load_acquire(&mt_pal_unwinder_state);
    if (MT_LIKELY(state == 2))
        return true;
    if (state != 0 || !mt_load_acquire(&mt_pal_unwinder_allowed) ||
        !mt_cas(&mt_pal_unwinder_state, &state, 1))
        return false;
    /* looks at pc - 1: one byte into the function */
    if (!_Unwind_FindEnclosingFunction((void *)((uintptr_t)mt_pal_unwind_frame + 1))) {
        mt_store_release(&mt_pal_unwinder_state, 3);
        return false;
    }
    uintptr_t ips[2];
    mt_pal_unwind(ips, NULL, NULL, 2, NULL, NULL);
    mt_store_release(&mt_pal_unwinder_state, 2);
    return true;
}

/* The return addresses and stack pointers of the calling thread's frames
 * (ips[0]/sps[0]: the caller of this function); how many. */
MT_UNUSED static int mt_pal_frames_until(uintptr_t *ips, uintptr_t *sps, int max,
                                         mt_pal_frames_enough *enough, void *arg)
{
    if (!mt_pal_callchain_enter())
        return 0;
    int n = mt_pal_unwinder_ready() ? mt_pal_unwind(ips, sps, NULL, max, enough, arg) : 0;
    mt_pal_callchain_leave();
    return n;
}

/* The return addresses alone (out[0]: in the caller of this function). */
MT_UNUSED static int mt_pal_callers(void **out, int max)
{
    if (!mt_pal_callchain_enter())
        return 0;
    int n = mt_pal_unwinder_ready() ? mt_pal_unwind(NULL, NULL, out, max, NULL, NULL) : 0;
    mt_pal_callchain_leave();
    return n;
}

#endif

MT_UNUSED static int mt_pal_frames(uintptr_t *ips, uintptr_t *sps, int max)
{
    return mt_pal_frames_until(ips, sps, max, NULL, NULL);
}

#endif

/* mortise/pal/callchain.h — the calling thread's return addresses and the
 * names of code addresses, for the one layer that needs them
 * (layers/affinity_pool.h). The rest of the port layer is pal.h.
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
 *     thread. The process's first call runs alone (libunwind initialises
 *     itself then); a call made meanwhile answers 0. Freestanding: 0.
 * bool mt_pal_symbol(const void *addr, mt_pal_symbol_info *out)
 *     the exported symbol whose code holds addr and the object file it is
 *     in (dladdr); false when neither is known. Takes the dynamic loader's
 *     recursive lock: call it with no allocator lock held.
 *     Freestanding: false.
 *
 * Fork. The three calls above run inside a gate that no fork crosses:
 * libunwind's register-state cache lock and the dynamic loader's locks are
 * held inside them, and a fork that copied another thread there would leave
 * them held for ever in the child (whose next unwind then hangs). The layer
 * that unwinds calls, from its own fork handlers:
 * void mt_pal_callchain_fork_prepare(void)
 *     waits until no other thread is inside, and keeps new callers out
 *     (they wait) until the fork is over; call it before taking any
 *     allocator lock, since a malloc made from inside the unwinder goes
 *     below;
 * void mt_pal_callchain_fork_parent(void), mt_pal_callchain_fork_child(void)
 *     open the gate again (in the child, only the forking thread is left,
 *     and it is outside).
 * A thread already inside (a signal handler interrupting an unwind) enters
 * again without waiting; the forking thread itself, called back while it
 * forks, gets no frame and no symbol (0, false) instead of waiting on its
 * own fork. Freestanding: no fork, no gate.
 */
#ifndef MORTISE_PAL_CALLCHAIN_H
#define MORTISE_PAL_CALLCHAIN_H

#include "pal.h"

typedef struct {
    const char *function;   /* NULL when no symbol covers addr */
    const void *function_start;
    const char *object;     /* the file name of the object, NULL if unknown */
    const void *object_base;
} mt_pal_symbol_info;

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
MT_UNUSED static bool mt_pal_symbol(const void *addr, mt_pal_symbol_info *out)
{
    (void)addr;
    (void)out;
    return false;
}
MT_UNUSED static void mt_pal_callchain_fork_prepare(void) {}
MT_UNUSED static void mt_pal_callchain_fork_parent(void) {}
MT_UNUSED static void mt_pal_callchain_fork_child(void) {}
#else
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
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

/* The fork gate: `inside` counts the threads between enter and leave (and
 * a thread's nesting is its own depth); `forking` is set by the forking
 * thread. enter raises `inside` before it reads `forking`, prepare sets
 * `forking` before it reads `inside` (both sequentially consistent), so
 * either the fork waits for the caller or the caller sees the fork. */
static _Atomic(int) mt_pal_callchain_inside;
static _Atomic(int) mt_pal_callchain_forking;
static MT_TLS int mt_pal_callchain_depth;
static MT_TLS bool mt_pal_callchain_forker;

/* Tests only: runs inside the gate before every unwind or symbol look-up,
 * so a test can hold a thread there while another forks
 * (tests/layers/affinity_pool/). */
#ifndef MT_PAL_CALLCHAIN_HOOK
#define MT_PAL_CALLCHAIN_HOOK() ((void)0)
#endif

/* false: this thread is forking, the caller answers nothing. */
MT_INLINE bool mt_pal_callchain_enter(void)
{
    if (mt_pal_callchain_depth++)
        return true;
    for (;;) {
        atomic_fetch_add(&mt_pal_callchain_inside, 1);
        if (MT_LIKELY(!atomic_load(&mt_pal_callchain_forking)))
            break;
        atomic_fetch_sub(&mt_pal_callchain_inside, 1);
        if (mt_pal_callchain_forker) {
            mt_pal_callchain_depth--;
            return false;
        }
        while (mt_load_acquire(&mt_pal_callchain_forking))
            mt_pal_yield();
    }
    MT_PAL_CALLCHAIN_HOOK();
    return true;
}

MT_INLINE void mt_pal_callchain_leave(void)
{
    if (!--mt_pal_callchain_depth)
        atomic_fetch_sub(&mt_pal_callchain_inside, 1);
}

MT_UNUSED static void mt_pal_callchain_fork_prepare(void)
{
    mt_pal_callchain_forker = true;
    atomic_store(&mt_pal_callchain_forking, 1);
    while (atomic_load(&mt_pal_callchain_inside))
        mt_pal_yield();
}

MT_UNUSED static void mt_pal_callchain_fork_parent(void)
{
    atomic_store(&mt_pal_callchain_forking, 0);
    mt_pal_callchain_forker = false;
}

MT_UNUSED static void mt_pal_callchain_fork_child(void)
{
    atomic_store(&mt_pal_callchain_inside, 0);
    mt_pal_callchain_depth = 0;
    mt_pal_callchain_fork_parent();
}

/* libunwind sets its globals up (a signal mask among them) on the process's
 * first unwind, unsynchronised: that unwind runs alone, and one asked for
 * meanwhile answers no frame (callers cope with 0 already). */
static _Atomic(int) mt_pal_unwinder_state; /* 0 unused, 1 first running, 2 ready */

/* The return addresses and stack pointers of the calling thread's frames
 * (ips[0]/sps[0]: the caller of this function); how many. */
MT_UNUSED static int mt_pal_frames(uintptr_t *ips, uintptr_t *sps, int max)
{
    if (!mt_pal_callchain_enter())
        return 0;
    int n = 0;
    int state = mt_load_acquire(&mt_pal_unwinder_state);
    if (MT_LIKELY(state == 2)) {
        n = mt_pal_frames_stepped(ips, sps, max);
    } else if (state == 0 && mt_cas(&mt_pal_unwinder_state, &state, 1)) {
        n = mt_pal_frames_stepped(ips, sps, max);
        mt_store_release(&mt_pal_unwinder_state, 2);
    }
    mt_pal_callchain_leave();
    return n;
}

/* libunwind's local backtrace (declared in libunwind-common.h). */

MT_UNUSED static int mt_pal_callers(void **out, int max)
{
    if (!mt_pal_callchain_enter())
        return 0;
    int n = unw_backtrace(out, max);
    mt_pal_callchain_leave();
    return n < 0 ? 0 : n;
}

MT_UNUSED static bool mt_pal_symbol(const void *addr, mt_pal_symbol_info *out)
{
    Dl_info info;
    if (!mt_pal_callchain_enter())
        return false;
    int found = dladdr(addr, &info);
    mt_pal_callchain_leave();
    if (!found)
        return false;
    out->function = info.dli_sname;
    out->function_start = info.dli_saddr;
    out->object = info.dli_fname;
    out->object_base = info.dli_fbase;
    return true;
}
#endif

#endif

/* mortise/pal/symbol.h — the names of code addresses, and the fork gate
 * that every call into the dynamic loader or the unwinder passes, for the
 * layers that name call sites: affinity_pool (with the unwinder of
 * pal/callchain.h) and the lock statistics (policy/sync/lockstat.h, the
 * program call site of each lock's callers). The rest of the port layer is
 * pal.h.
 *
 * bool mt_pal_symbol(const void *addr, mt_pal_symbol_info *out)
 *     the exported symbol whose code holds addr and the object file it is
 *     in (dladdr); false when neither is known. Takes the dynamic loader's
 *     recursive lock: call it with no allocator lock held.
 *     Freestanding and Windows: false.
 *
 * Fork. mt_pal_symbol and the unwinder's calls run inside a gate that no
 * fork crosses: the dynamic loader's locks (and libunwind's register-state
 * cache lock) are held inside them, and a fork that copied another thread
 * there would leave them held for ever in the child (whose next look-up
 * then hangs). A composition whose layers call them calls, from its fork
 * handlers:
 * void mt_pal_callchain_fork_prepare(void)
 *     waits until no other thread is inside, and keeps new callers out
 *     (they wait) until the fork is over; call it before taking any
 *     allocator lock, since a malloc made from inside the unwinder goes
 *     below;
 * void mt_pal_callchain_fork_parent(void), mt_pal_callchain_fork_child(void)
 *     open the gate again (in the child, only the forking thread is left,
 *     and it is outside).
 * Calling prepare twice before parent or child (two users in one
 * composition) is harmless: the second finds the gate shut and nobody
 * inside. A thread already inside (a signal handler interrupting a
 * look-up) enters again without waiting; the forking thread itself, called
 * back while it forks, gets no frame and no symbol (0, false) instead of
 * waiting on its own fork. Freestanding and Windows: no fork, no gate.
 */
#ifndef MORTISE_PAL_SYMBOL_H
#define MORTISE_PAL_SYMBOL_H

#include "pal.h"

typedef struct {
    const char *function; /* NULL when no symbol covers addr */
    const void *function_start;
    const char *object; /* the file name of the object, NULL if unknown */
    const void *object_base;
} mt_pal_symbol_info;

#if defined(MT_FREESTANDING) || defined(_WIN32)
/* Windows (pal_windows.h): no dladdr and no fork, so no gate either; a call
 * site is named by its address alone. */
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

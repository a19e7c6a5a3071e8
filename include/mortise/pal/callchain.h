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

/* libunwind sets its globals up (a signal mask among them) on the process's
 * first unwind, unsynchronised: that unwind runs alone, and one asked for
 * meanwhile answers no frame (callers cope with 0 already). */
static _Atomic(int) mt_pal_unwinder_state; /* 0 unused, 1 first running, 2 ready */

/* The return addresses and stack pointers of the calling thread's frames
 * (ips[0]/sps[0]: the caller of this function); how many. */
MT_UNUSED static int mt_pal_frames(uintptr_t *ips, uintptr_t *sps, int max)
{
    int state = mt_load_acquire(&mt_pal_unwinder_state);
    if (MT_LIKELY(state == 2))
        return mt_pal_frames_stepped(ips, sps, max);
    if (state == 1 || !mt_cas(&mt_pal_unwinder_state, &state, 1))
        return 0;
    int n = mt_pal_frames_stepped(ips, sps, max);
    mt_store_release(&mt_pal_unwinder_state, 2);
    return n;
}

/* libunwind's local backtrace (declared in libunwind-common.h). */

MT_UNUSED static int mt_pal_callers(void **out, int max)
{
    int n = unw_backtrace(out, max);
    return n < 0 ? 0 : n;
}

MT_UNUSED static bool mt_pal_symbol(const void *addr, mt_pal_symbol_info *out)
{
    Dl_info info;
    if (!dladdr(addr, &info))
        return false;
    out->function = info.dli_sname;
    out->function_start = info.dli_saddr;
    out->object = info.dli_fname;
    out->object_base = info.dli_fbase;
    return true;
}
#endif

#endif

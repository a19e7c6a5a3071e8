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
/* libunwind's local backtrace (declared in libunwind-common.h). */
extern int unw_backtrace(void **buffer, int size);

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

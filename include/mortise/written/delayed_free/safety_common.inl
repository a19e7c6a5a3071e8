/* mortise/written/delayed_free/safety_common.inl — layers/safety/common.h written out for delayed_free by
 * tools/layer_names.py; do not edit: edit layers/safety/common.h, then run --write. */
/* mortise/layers/safety/common.h — what the safety layers (tail_chksum,
 * delayed_free) share: unaligned word access, a read that cannot fault, the
 * instance's report function, and its report of a pointer no layer owns
 * (NAME_report_unowned).
 *
 * A template fragment, included inside a safety layer's header after
 * MT_NAME, MT_CHKSUM and MT_ERR_HANDLE are set. The layer has
 * MT_TRAIT_REPORTS_INVALID (core/ctx.h): the socket then reports
 * free/realloc/malloc_usable_size of a pointer no layer owns as invalid-free
 * (layer "pagemap") under the lowest safety layer's err_handle policy, and
 * realloc asks the chain (resize) whenever the size changes, since the
 * chain reports requested sizes as usable.
 */
#ifndef MORTISE_LAYERS_SAFETY_COMMON_ONCE
#define MORTISE_LAYERS_SAFETY_COMMON_ONCE

#include "../../core/layer.h"
#include "../../core/report.h"
#include "../../policy/chksum/chksum.h"
#include "../../policy/err/err.h"

/* The operation a safety layer above is running when it asks the one below
 * for a block's size (free, realloc), so that a bug the lower one finds in
 * its getmeta is reported under the program's operation; NULL: getmeta's
 * own. Set by the upper layer on every entry that asks. */
MT_UNUSED static MT_TLS const char *mt_safety_op_above;

/* MT_SAFETY_QUICK (a getmeta asked on a safety layer's inline path): core/ctx.h. */

/* Check and size words sit at any byte offset (byte-precise checks). */
MT_INLINE uint64_t mt_safety_load(const void *a)
{
    uint64_t v;
    __builtin_memcpy(&v, a, sizeof v);
    return v;
}
MT_INLINE void mt_safety_store(void *a, uint64_t v) { __builtin_memcpy(a, &v, sizeof v); }

/* Is the page holding `a` mapped? A granule some layer owns is mapped in
 * full; otherwise ask the OS (mt_pal_page_mapped; a freestanding build
 * knows only its page map, the port answers false). */
MT_SLOW bool mt_safety_page_mapped(uintptr_t a)
{
    if (mt_entry_owner(mt_pagemap_get((const void *)a)))
        return true;
    return mt_pal_page_mapped((const void *)a);
}

/* Can the 8 bytes at `a` be read, knowing that the granule of `base` is
 * owned (so mapped)? Same granule: yes at once; else the slow look. */
MT_INLINE bool mt_safety_word_readable(const void *base, const void *a)
{
    uintptr_t g = (uintptr_t)base >> MT_GRANULE_SHIFT;
    uintptr_t first = (uintptr_t)a, last = first + 7;
    if (MT_LIKELY((first >> MT_GRANULE_SHIFT) == g && (last >> MT_GRANULE_SHIFT) == g))
        return true;
    return mt_safety_page_mapped(first) && mt_safety_page_mapped(last);
}

#endif /* MORTISE_LAYERS_SAFETY_COMMON_ONCE */

/* ---- per instance ---- */

/* The one slow function of the instance's reports: builds the record and
 * hands it to the err_handle policy (which may not return: fatal). */
MT_SLOW MT_UNUSED void delayed_free_raise(int kind, void *p, size_t size, const char *op)
{
    mortise_error e = {kind, p, size, MT_STR(MT_NAME), op};
    MT_ERR_FN(MT_ERR_HANDLE, raise)(&e);
}

/* A pointer no layer owns, under this instance's policy
 * (mt_chain_report_invalid, core/ctx.h, asks the lowest safety layer). */
#define MT_HAS_REPORT_UNOWNED
MT_SLOW MT_UNUSED void delayed_free_report_unowned(void *p, const char *op)
{
    mortise_error e = {MORTISE_BUG_INVALID_FREE, p, 0, "pagemap", op};
    MT_ERR_FN(MT_ERR_HANDLE, raise)(&e);
}

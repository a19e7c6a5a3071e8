/* mortise/written/segfit_lk/safety_link_check.inl — layers/safety/link_check.h written out for segfit_lk by
 * tools/layer_names.py; do not edit: edit layers/safety/link_check.h, then run --write. */
/* mortise/layers/safety/link_check.h — the link_check slot of the layers
 * that keep free-list links inside free blocks (slab_wf, segfit_lf,
 * slab_lk, thread_cache, tlsf_glk, segfit_lk, buddy_glk).
 *
 * A free block's first words are the program's memory as much as the
 * layer's: an overflow from the block before it or a write through a
 * dangling pointer replaces them, and a layer that follows such a link
 * reads (and later writes) wherever the program's bytes point. With
 * link_check=1 a layer checks every link before it follows it: the link is
 * NULL, or it lies in the same 64 KiB granule as the block that held it,
 * or the page map names an owner for its granule (the layer's own id, or
 * any owner for a cache whose blocks belong to the layer below) — memory
 * the allocator mapped. A layer may check more (slab_wf: the link is a
 * block of the same slab). A link that fails is reported as
 * corrupted-metadata at the block that held it (the address the layer
 * knows: a layer above that adds a header hands out a later one), under the instance's
 * err_handle policy, and the rest of the list is dropped (leaked: nothing
 * in it can be trusted), so nothing is ever read through it.
 *
 * A template fragment, included by a layer header after MT_NAME is set.
 * Slots it reads: MT_LINK_CHECK (0: the fragment adds nothing, the layer's
 * code is that of no slot), MT_ERR_HANDLE (default).
 */
#ifndef MORTISE_LAYERS_SAFETY_LINK_CHECK_ONCE
#define MORTISE_LAYERS_SAFETY_LINK_CHECK_ONCE

#include "../../core/pagemap.h"
#include "../../policy/err/err.h"

/* The link leaves the granule of the block that held it: NULL, or a
 * word-aligned address in a granule owned by `owner` (0: by anyone). Inline:
 * a page-map lookup, no call (a call on a fast path costs its callers a
 * stack frame). */
MT_INLINE MT_UNUSED bool mt_link_far_ok(const void *link, uintptr_t owner)
{
    if (!link)
        return true;
    if ((uintptr_t)link & (sizeof(void *) - 1))
        return false;
    uintptr_t o = mt_entry_owner(mt_pagemap_get(link));
    return o && (!owner || o == owner);
}

/* May `link`, read from the free block `block`, be followed? The common
 * case, a link into the same granule, is an xor and a shift. */
MT_INLINE MT_UNUSED bool mt_link_ok(const void *block, const void *link, uintptr_t owner)
{
    if (MT_LIKELY(!(((uintptr_t)block ^ (uintptr_t)link) >> MT_GRANULE_SHIFT)))
        return true;
    return mt_link_far_ok(link, owner);
}

#endif /* MORTISE_LAYERS_SAFETY_LINK_CHECK_ONCE */

/* ---- per instance ---- */
#ifndef MT_LINK_CHECK
#define MT_LINK_CHECK 0
#endif
#ifndef MT_ERR_HANDLE
#define MT_ERR_HANDLE default
#endif

/* The free block `block` held a link that failed its check in operation
 * `op`. The size is reported as 0: a trunk or cache does not know what the
 * program asked for. */
MT_SLOW MT_UNUSED void segfit_lk_link_broken(void *block, const char *op)
{
    mortise_error e = {MORTISE_BUG_CORRUPTED_METADATA, block, 0, MT_STR(MT_NAME), op};
    MT_ERR_FN(MT_ERR_HANDLE, raise)(&e);
}

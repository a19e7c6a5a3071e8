/* mortise/written/sheap_glk/os_granule_blocks.inl — os/granule_blocks.h written out for sheap_glk by
 * tools/layer_names.py; do not edit: edit os/granule_blocks.h, then run --write. */
/* mortise/os/granule_blocks.h — the layer operations every OS layer that
 * hands out whole granule blocks shares (brk_heap, sheap_glk, malloc_heap).
 *
 * A template fragment, included inside an OS layer's header (MT_NAME and
 * MT_SELF_ID defined), after the layer has defined how it gets and gives back
 * granule ranges:
 *     static char *sheap_glk_obtain(size_t granules, size_t align, bool *zeroed);
 *         a block of `granules` granules aligned to `align` (a power of two
 *         >= MT_GRANULE), or NULL; *zeroed set when it is known zero-filled.
 *     static void sheap_glk_release(char *p, size_t granules);
 *         the granules at p are no longer handed out (a whole block, or the
 *         tail of a block shrunk in place).
 *     static bool sheap_glk_extend(char *end, size_t granules);
 *         take the `granules` granules starting at end, if free (to grow a
 *         block in place); false when they are not.
 *     MT_OS_RESIZE_IN_PLACE  1 if release and extend work on parts of blocks
 *         (split/merge layers), 0 if blocks can only be released whole.
 *     MT_OS_LOCK (optional)  the layer's MT_SYNC lock object, taken around fork.
 * It defines alloc, resize, create and thread_exit, and through
 * granule_owner.h free, getmeta and the fork operations; the layer defines
 * purge.
 */

MT_SLOW void *sheap_glk_alloc_chunk(mt_ctx *ctx)
{
    size_t len = mt_align_up(ctx->size ? ctx->size : 1, MT_GRANULE);
    size_t granules = len >> MT_GRANULE_SHIFT;
    size_t align = ctx->align > MT_GRANULE ? ctx->align : MT_GRANULE;
    bool zeroed = false;
    char *p = sheap_glk_obtain(granules, align, &zeroed);
    if (p && !mt_pagemap_set_checked(p, MT_GRANULE, mt_entry(MT_SELF_ID, granules))) {
        sheap_glk_release(p, granules);
        p = NULL;
    }
    if (!p) {
        ctx->err = MT_ENOMEM;
        return NULL;
    }
    atomic_fetch_add(&mt_os_counters.handed_out, len);
    if (zeroed)
        ctx->zeroed = p;
    return p;
}

MT_SLOW void sheap_glk_free_chunk(char *p, size_t granules)
{
    mt_pagemap_set(p, MT_GRANULE, 0); /* no longer a block: a second free finds nobody */
    atomic_fetch_sub(&mt_os_counters.handed_out, granules << MT_GRANULE_SHIFT);
    sheap_glk_release(p, granules);
}

#include "os_granule_owner.inl"

/* In place only: shrinking releases the tail, growing takes the granules
 * right after the block if they are free. NULL: the socket moves the block. */
MT_SLOW void *sheap_glk_resize_chunk(mt_ctx *ctx)
{
    char *p = ctx->ptr;
    size_t old_granules = ctx->meta;
    size_t granules = mt_align_up(ctx->size ? ctx->size : 1, MT_GRANULE) >> MT_GRANULE_SHIFT;
    if (granules == old_granules)
        return p;
    if (!MT_OS_RESIZE_IN_PLACE)
        return NULL;
    if (granules < old_granules) {
        mt_pagemap_set(p, MT_GRANULE, mt_entry(MT_SELF_ID, granules));
        atomic_fetch_sub(&mt_os_counters.handed_out, (old_granules - granules) << MT_GRANULE_SHIFT);
        sheap_glk_release(p + (granules << MT_GRANULE_SHIFT), old_granules - granules);
        return p;
    }
    if (!sheap_glk_extend(p + (old_granules << MT_GRANULE_SHIFT), granules - old_granules))
        return NULL;
    mt_pagemap_set(p, MT_GRANULE, mt_entry(MT_SELF_ID, granules));
    atomic_fetch_add(&mt_os_counters.handed_out, (granules - old_granules) << MT_GRANULE_SHIFT);
    return p;
}

#define MT_IMPLEMENTS_resize
MT_INLINE void *sheap_glk_resize(mt_ctx *ctx, mt_lfunc *next)
{
    (void)next;
    return sheap_glk_is_block(ctx) ? MT_COLD_CALL(ctx, copy, sheap_glk_resize_chunk(&copy)) : NULL;
}

#undef MT_OS_RESIZE_IN_PLACE

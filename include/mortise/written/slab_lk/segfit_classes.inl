/* mortise/written/slab_lk/segfit_classes.inl — layers/segfit/classes.h written out for slab_lk by
 * tools/layer_names.py; do not edit: edit layers/segfit/classes.h, then run --write. */
/* mortise/layers/segfit/classes.h — the size classes a segregated-fit trunk
 * layer serves (segfit_lk, segfit_lf; slab_lk, whose slabs place blocks
 * the same way).
 *
 * Both keep one free list per class of their sizeclass policy and place
 * blocks at multiples of the class size from a granule-aligned span, so an
 * aligned request is served by the first class whose size is a multiple of
 * the alignment. This template part, included once per instance after
 * policy/sizeclass/slot.h (no include guard), gives both the same answers.
 *
 * Needs: MT_NAME, MT_SELF_ID, MT_SIZE_HANDLE, MT_SIZECLASS (and
 *   slab_lk_szcls_key from slot.h), and MT_SEGFIT_CAP, the largest block
 *   the layer keeps (forgotten at the end).
 * Defines (constant-folded where their arguments are constants):
 *   slab_lk_class_size(c), slab_lk_class_index(size)   the policy
 *   slab_lk_max_block()       the largest request served: the least of
 *                              size_handle's bound, the cap, the largest class
 *   slab_lk_classes_used()    classes that can hold blocks: [0, classes_used)
 *   slab_lk_class_for(size, align)   the class serving a request, or
 *                              SIZE_MAX: not this layer's (size outside
 *                              size_handle or above max_block, alignment above
 *                              a granule or no class fits it)
 *   slab_lk_class_meta(ctx, c)   getmeta's answer for an owned block of
 *                              class c: its usable size and the class hint
 *   slab_lk_resize            the layer operation: blocks keep their class,
 *                              so an owned block is never resized here (the
 *                              socket moves it); others' go on down
 */
MT_INLINE size_t slab_lk_class_size(size_t index) { return MT_SZCLS_FN(MT_SIZECLASS, size)(index); }
MT_INLINE size_t slab_lk_class_index(size_t size) { return MT_SZCLS_FN(MT_SIZECLASS, index)(size); }

MT_INLINE size_t slab_lk_max_block(void)
{
    size_t hi = MT_SIZE_HANDLE_HI(MT_SIZE_HANDLE);
    size_t cap = slab_lk_class_size(MT_SZCLS_CLASSES(MT_SIZECLASS) - 1);
    cap = cap < (size_t)(MT_SEGFIT_CAP) ? cap : (size_t)(MT_SEGFIT_CAP);
    return hi - 1 < cap ? hi - 1 : cap;
}

MT_INLINE size_t slab_lk_classes_used(void) { return slab_lk_class_index(slab_lk_max_block()) + 1; }

MT_INLINE size_t slab_lk_class_for(size_t size, size_t align)
{
    if (!mt_size_in(size, MT_SIZE_HANDLE_LO(MT_SIZE_HANDLE), MT_SIZE_HANDLE_HI(MT_SIZE_HANDLE)) ||
        size > slab_lk_max_block())
        return SIZE_MAX;
    size_t index = slab_lk_class_index(size);
    if (MT_UNLIKELY(align > MT_MIN_ALIGN)) {
        if (align > MT_GRANULE)
            return SIZE_MAX;
        /* bounded by the policy's table: table policies (prime, tc, ...)
         * may have no class that is a multiple of a large alignment */
        while (index < MT_SZCLS_CLASSES(MT_SIZECLASS) && (slab_lk_class_size(index) & (align - 1)))
            index++;
        if (index >= MT_SZCLS_CLASSES(MT_SIZECLASS) || slab_lk_class_size(index) > slab_lk_max_block())
            return SIZE_MAX;
    }
    return index;
}

MT_INLINE void *slab_lk_class_meta(mt_ctx *ctx, size_t cls)
{
    ctx->usable = slab_lk_class_size(cls);
    ctx->szcls = cls;
    ctx->szcls_key = slab_lk_szcls_key;
    return ctx->ptr;
}

#define MT_IMPLEMENTS_resize
MT_INLINE void *slab_lk_resize(mt_ctx *ctx, mt_lfunc *next)
{
    return MT_NOT_MINE(ctx, MT_SELF_ID) ? next(ctx) : NULL;
}

#undef MT_SEGFIT_CAP

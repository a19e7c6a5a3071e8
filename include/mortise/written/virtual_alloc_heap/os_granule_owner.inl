/* mortise/written/virtual_alloc_heap/os_granule_owner.inl — os/granule_owner.h written out for virtual_alloc_heap by
 * tools/layer_names.py; do not edit: edit os/granule_owner.h, then run --write. */
/* mortise/os/granule_owner.h — alloc, free, getmeta and the fork operations
 * of an OS layer whose blocks are whole granules (every OS layer).
 *
 * A template fragment, included inside an OS layer's header (MT_NAME and
 * MT_SELF_ID defined) once the layer has defined its slow paths
 *     MT_SLOW void *virtual_alloc_heap_alloc_chunk(mt_ctx *ctx);
 *     MT_SLOW void virtual_alloc_heap_free_chunk(char *p, size_t granules);
 * and, optionally, MT_OS_LOCK: the layer's MT_SYNC lock object, which the
 * fork operations take (prepare), release (parent) and reset (child).
 * A layer that defines MT_OS_KEEPS too gets the large-block keep
 * (large_keep.h: the slots large_keep and large_decay_ms): alloc and free go
 * through it, and fork_prepare takes its lock before MT_OS_LOCK. A layer
 * whose freed chunks have already given their pages back when the keep did
 * not take them defines MT_OS_PURGE_KEEP too: its purge (malloc_trim) is the
 * keep's.
 *
 * The block convention: the page-map entry of a block's first granule is
 * mt_entry(MT_SELF_ID, granule count). A pointer under our entry that is not
 * granule-aligned is an interior pointer, not a block, and is ignored.
 */

#include "os_large_keep.inl"

#define MT_IMPLEMENTS_alloc
MT_INLINE void *virtual_alloc_heap_alloc(mt_ctx *ctx, mt_lfunc *next)
{
    (void)next;
    void *p = MT_COLD_CALL(ctx, copy, virtual_alloc_heap_alloc_kept(&copy));
    if (mt_chain_wants_fresh_heads && p) /* kept blocks are split and merged: any may start anew */
        mt_fresh_head(p);
    return p;
}

MT_INLINE bool virtual_alloc_heap_is_block(const mt_ctx *ctx)
{
    return !MT_NOT_MINE(ctx, MT_SELF_ID) && ((uintptr_t)ctx->ptr & (MT_GRANULE - 1)) == 0;
}

#define MT_IMPLEMENTS_free
MT_INLINE void *virtual_alloc_heap_free(mt_ctx *ctx, mt_lfunc *next)
{
    (void)next;
    if (virtual_alloc_heap_is_block(ctx))
        virtual_alloc_heap_free_kept(ctx->ptr, ctx->meta);
    return NULL;
}

#define MT_IMPLEMENTS_getmeta
MT_INLINE void *virtual_alloc_heap_getmeta(mt_ctx *ctx, mt_lfunc *next)
{
    (void)next;
    if (!virtual_alloc_heap_is_block(ctx))
        return NULL;
    ctx->usable = ctx->meta << MT_GRANULE_SHIFT;
    return ctx->ptr;
}

#if defined(MT_OS_LOCK)
#define MT_IMPLEMENTS_fork_prepare
MT_INLINE void *virtual_alloc_heap_fork_prepare(mt_ctx *ctx, mt_lfunc *next)
{
    (void)ctx;
    (void)next;
    virtual_alloc_heap_keep_fork(0);
    MT_SYNC_FN(MT_SYNC, lock)(&MT_OS_LOCK);
    return NULL;
}
#define MT_IMPLEMENTS_fork_parent
MT_INLINE void *virtual_alloc_heap_fork_parent(mt_ctx *ctx, mt_lfunc *next)
{
    (void)ctx;
    (void)next;
    virtual_alloc_heap_keep_fork(1);
    MT_SYNC_FN(MT_SYNC, unlock)(&MT_OS_LOCK);
    return NULL;
}
#define MT_IMPLEMENTS_fork_child
MT_INLINE void *virtual_alloc_heap_fork_child(mt_ctx *ctx, mt_lfunc *next)
{
    (void)ctx;
    (void)next;
    virtual_alloc_heap_keep_fork(2);
    MT_SYNC_FN(MT_SYNC, init)(&MT_OS_LOCK);
    return NULL;
}
#endif

#if defined(MT_OS_PURGE_KEEP)
#define MT_IMPLEMENTS_purge
MT_INLINE void *virtual_alloc_heap_purge(mt_ctx *ctx, mt_lfunc *next)
{
    (void)ctx;
    (void)next;
    return virtual_alloc_heap_keep_purge() ? (void *)1 : NULL;
}
#undef MT_OS_PURGE_KEEP
#endif

#undef MT_OS_LOCK

/* mortise/written/tlsf_glk/glk_fork.inl — layers/glk/fork.h written out for tlsf_glk by
 * tools/layer_names.py; do not edit: edit layers/glk/fork.h, then run --write. */
/* mortise/layers/glk/fork.h — fork_prepare, fork_parent and fork_child of a
 * trunk layer whose state one lock of its sync policy guards ("glk": global
 * lock, as buddy_glk and tlsf_glk) and whose records come from a record pool
 * (record_pool.h).
 *
 * A template part (no include guard), included inside the layer's header
 * with MT_NAME, MT_SYNC and
 *   MT_GLK_LOCK     the layer's MT_SYNC lock object
 *   MT_GLK_RECORDS  its mt_record_pool
 * defined; both are forgotten at the end. The lock order is the one requests
 * take: the layer's lock, the pool's, then the layers below. prepare takes
 * them in that order before passing on; parent and child pass on first, then
 * release (child: reset) the pool's and the layer's.
 */
#define MT_IMPLEMENTS_fork_prepare
MT_INLINE void *tlsf_glk_fork_prepare(mt_ctx *ctx, mt_lfunc *next)
{
    MT_SYNC_FN(MT_SYNC, lock)(&MT_GLK_LOCK);
    mt_record_pool_lock(&MT_GLK_RECORDS);
    return next(ctx);
}
#define MT_IMPLEMENTS_fork_parent
MT_INLINE void *tlsf_glk_fork_parent(mt_ctx *ctx, mt_lfunc *next)
{
    next(ctx);
    mt_record_pool_unlock(&MT_GLK_RECORDS);
    MT_SYNC_FN(MT_SYNC, unlock)(&MT_GLK_LOCK);
    return NULL;
}
#define MT_IMPLEMENTS_fork_child
MT_INLINE void *tlsf_glk_fork_child(mt_ctx *ctx, mt_lfunc *next)
{
    next(ctx);
    mt_record_pool_reset(&MT_GLK_RECORDS);
    MT_SYNC_FN(MT_SYNC, init)(&MT_GLK_LOCK);
    return NULL;
}

#undef MT_GLK_LOCK
#undef MT_GLK_RECORDS

/* mortise/written/wcet_stat/stats_measure_ops.inl — stats/measure_ops.h written out for wcet_stat by
 * tools/layer_names.py; do not edit: edit stats/measure_ops.h, then run --write. */
/* mortise/stats/measure_ops.h — alloc, free and resize of a statistics layer
 * that measures the three alike (wcet_stat, perf_stat): each passes its
 * kind to the layer's wcet_stat_measure(kind, ctx, next).
 *
 * A template fragment, included inside the layer's header after
 * wcet_stat_measure, with MT_STAT_OP defined as the prefix of the layer's
 * kinds (MT_STAT_OP ## ALLOC, FREE, RESIZE); it #undefs MT_STAT_OP.
 */

#define MT_IMPLEMENTS_alloc
MT_INLINE void *wcet_stat_alloc(mt_ctx *ctx, mt_lfunc *next)
{
    if (ctx->chain == MT_ALLOC_QUICK)
        ctx->chain = NULL; /* measured once: no miss for the asker to repeat (core/ctx.h) */
    return wcet_stat_measure(MT_CAT(MT_STAT_OP, ALLOC), ctx, next);
}
#define MT_IMPLEMENTS_free
MT_INLINE void *wcet_stat_free(mt_ctx *ctx, mt_lfunc *next)
{
    return wcet_stat_measure(MT_CAT(MT_STAT_OP, FREE), ctx, next);
}
#define MT_IMPLEMENTS_resize
MT_INLINE void *wcet_stat_resize(mt_ctx *ctx, mt_lfunc *next)
{
    return wcet_stat_measure(MT_CAT(MT_STAT_OP, RESIZE), ctx, next);
}

#undef MT_STAT_OP

/* tests/layers/sockets/request_probe.h — a test layer that writes down what the
 * last request of each kind carried when it passed: the CPU id (ctx->cpu)
 * and, with PROBE_READS_GFP, the kernel socket's flags (ctx->gfp). It shows
 * a layer reading the socket's extra request fields; it serves nothing.
 * A layer template like any other, instance name `probe`. */
#define MT_NAME probe

static struct {
    int alloc_cpu, free_cpu, resize_cpu;
    unsigned alloc_gfp;
    int allocs, frees;
} probe_seen;

#define MT_IMPLEMENTS_alloc
MT_INLINE void *probe_alloc(mt_ctx *ctx, mt_lfunc *next)
{
    probe_seen.alloc_cpu = ctx->cpu;
#if defined(PROBE_READS_GFP)
    probe_seen.alloc_gfp = ctx->gfp;
#endif
    probe_seen.allocs++;
    return next(ctx);
}

#define MT_IMPLEMENTS_free
MT_INLINE void *probe_free(mt_ctx *ctx, mt_lfunc *next)
{
    probe_seen.free_cpu = ctx->cpu;
    probe_seen.frees++;
    return next(ctx);
}

#define MT_IMPLEMENTS_resize
MT_INLINE void *probe_resize(mt_ctx *ctx, mt_lfunc *next)
{
    probe_seen.resize_cpu = ctx->cpu;
    return next(ctx);
}

#include <mortise/core/layer_end.h> /* forwards the rest */

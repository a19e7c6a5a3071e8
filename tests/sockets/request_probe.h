/* tests/sockets/request_probe.h — a test layer that writes down what the
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

MT_INLINE void *probe_alloc(mt_ctx *ctx, mt_lfunc *next)
{
    probe_seen.alloc_cpu = ctx->cpu;
#if defined(PROBE_READS_GFP)
    probe_seen.alloc_gfp = ctx->gfp;
#endif
    probe_seen.allocs++;
    return next(ctx);
}

MT_INLINE void *probe_free(mt_ctx *ctx, mt_lfunc *next)
{
    probe_seen.free_cpu = ctx->cpu;
    probe_seen.frees++;
    return next(ctx);
}

MT_INLINE void *probe_resize(mt_ctx *ctx, mt_lfunc *next)
{
    probe_seen.resize_cpu = ctx->cpu;
    return next(ctx);
}

MT_FORWARD_OP(probe, create)
MT_FORWARD_OP(probe, getmeta)
MT_FORWARD_OP(probe, thread_exit)
MT_FORWARD_OP(probe, fork_prepare)
MT_FORWARD_OP(probe, fork_parent)
MT_FORWARD_OP(probe, fork_child)
MT_FORWARD_OP(probe, purge)

#include <mortise/core/layer_end.h>

/* Compiled by CMake, not run. A layer that implements an operation its
 * descriptor's MT_OPS leaves out (core/describe.h) must not compile, and
 * the error names the layer and the operation
 * (tools.descriptor_ops.UNLISTED: probe implements free, lists alloc);
 * the control, which implements what it lists, compiles
 * (tools.descriptor_ops.CONTROL). */
#include <mortise/mortise.h>

#include <mortise/os/mmap_heap.h>

/* the smallest layer with a descriptor: it forwards alloc (and free) */
#define MT_DESCRIPTOR_probe(LAYER, SLOT) \
    LAYER(probe, addon, 0, (), ())       \
    MT_OPS(SLOT, alloc)
#define MT_NAME probe

#define MT_IMPLEMENTS_alloc
MT_INLINE void *probe_alloc(mt_ctx *ctx, mt_lfunc *next) { return next(ctx); }

#if defined(UNLISTED)
#define MT_IMPLEMENTS_free
MT_INLINE void *probe_free(mt_ctx *ctx, mt_lfunc *next) { return next(ctx); }
#endif

#define MT_DESCRIPTOR MT_DESCRIPTOR_probe
#include <mortise/core/layer_end.h>

#define MT_PREFIX z_
#include <mortise/sockets/custom_socket.h>

MT_COMPOSE(mmap_heap, probe, custom_socket)

/* Compiled by CMake, not run: with WRONG_TARGET the cond_bypass target is
 * the layer above it (which would recurse), with MISSING_TARGET a name not
 * in the composition; both must fail to compile. Without either it is a
 * valid composition and must compile (the control). */
#include <mortise/mortise.h>
#include <mortise/os/mmap_heap.h>

#define MT_NAME lower
#define MT_SYNC spinlock
#include <mortise/layers/segfit_lk.h>

static inline bool odd_size(const mt_ctx *ctx) { return ctx->size & 1; }

#define MT_PRED odd_size
#if defined(WRONG_TARGET)
#define MT_TARGET upper
#elif defined(MISSING_TARGET)
#define MT_TARGET nowhere
#else
#define MT_TARGET lower
#endif
#include <mortise/layers/cond_bypass.h>

#define MT_NAME upper
#define MT_SYNC spinlock
#include <mortise/layers/segfit_lk.h>

#define MT_PREFIX z_
#include <mortise/sockets/custom_socket.h>

MT_COMPOSE(mmap_heap, lower, cond_bypass, upper, custom_socket)

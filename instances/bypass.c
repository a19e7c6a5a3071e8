/* bypass — two segfit_lk instances; allocations of odd sizes skip the upper
 * one and are served by the lower one (cond_bypass).
 * model: mmap_heap
 *          ::segfit_lk(name=segfit_lower, sync=posix_mutex, sizeclass=log2b, size_handle=[0, 65536])
 *          ::segfit_lk(name=segfit_upper, sync=spinlock, sizeclass=interval, size_handle=[0, 262144])
 *          ::cond_bypass(pred=odd_size, target=segfit_lower)::malloc_socket
 * (name= names an instance, docs/mortise.md; odd_size is defined below)
 */
/* Forwarders and glue written out: chains/bypass.inl */
#define MT_GLUE_WRITTEN_OUT
#include <mortise/mortise.h>

#include <mortise/os/mmap_heap.h>

#define MT_NAME segfit_lower
#define MT_SYNC posix_mutex
#define MT_SIZECLASS log2b
#define MT_SIZE_HANDLE 0, 65536
#include "chains/bypass/segfit_lower.inl" /* <mortise/layers/segfit_lk.h> as segfit_lower */

#define MT_NAME segfit_upper
#define MT_SYNC spinlock
#define MT_SIZECLASS interval
#define MT_SIZE_HANDLE 0, 262144
#include "chains/bypass/segfit_upper.inl" /* <mortise/layers/segfit_lk.h> as segfit_upper */

static inline bool odd_size(const mt_ctx *ctx) { return ctx->size & 1; }

#define MT_PRED odd_size
#define MT_TARGET segfit_lower
#include <mortise/layers/cond_bypass.h>

#include <mortise/sockets/malloc_socket.h>

/* MT_COMPOSE(mmap_heap, segfit_lower, segfit_upper, cond_bypass, malloc_socket), written out: */
#include "chains/bypass.inl"

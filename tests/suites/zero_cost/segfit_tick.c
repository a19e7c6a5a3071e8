/* Negative self-test of tests/suites/zero_cost: segfit with a layer that adds one
 * instruction to alloc (a plain increment of a counter). The comparison with
 * instances/segfit.c must see malloc change.
 * model: mmap_heap::segfit_lk(...)::tick::malloc_socket
 */
#include "segfit_below.h"

/* tick: counts alloc requests without synchronisation — one `add` to memory. */
#define MT_NAME tick
#include <mortise/core/layer.h>
static unsigned long tick_requests;
#define MT_IMPLEMENTS_alloc
MT_INLINE void *tick_alloc(mt_ctx *ctx, mt_lfunc *next)
{
    tick_requests++;
    return next(ctx);
}
#include <mortise/core/layer_end.h>

#include <mortise/sockets/malloc_socket.h>

MT_COMPOSE(mmap_heap, segfit_lk, tick, malloc_socket)

/* cond_bypass — route allocations past the next layers when a predicate
 * holds.
 *
 * Serves: allocations for which the user's predicate is true go straight to
 *   a named layer further down (the target) and the chain below it, skipping
 *   every layer between; the others go to the next layer as usual. E.g. a
 *   program's short-lived buffers skip a cache, requests of one subsystem
 *   (a cmalloc CPU, a size pattern) are served by their own trunk instance.
 *   Everything else goes to the next layer: free, getmeta and resize are
 *   routed by the page map to the block's owner wherever it is, so a
 *   bypassed block is freed by its owner like any other. (Caveat: a cache
 *   layer between this one and the target caches any block of a class it
 *   covers on free, bypassed or not, and may hand it to a later request
 *   the predicate would not bypass. Put caches above cond_bypass, or accept
 *   that the predicate decides where a block is made, not where it is
 *   reused.)
 * Slots (model language → macro, default):
 *   pred=FUNCTION  → MT_PRED (required): the name of a function the user
 *                    defines before the include,
 *                        static inline bool FUNCTION(const mt_ctx *ctx);
 *                    it sees the whole request: ctx->size, ctx->align,
 *                    ctx->cpu, socket fields (MT_CTX_EXTRA). Keep it pure
 *                    and cheap: it runs on every allocation, inlined.
 *   target=LAYER   → MT_TARGET (required): the instance name of a layer
 *                    below this one (as written in MT_COMPOSE). The call
 *                    goes to MT_CHAIN_AT(target, alloc) (core/layer.h), the
 *                    target linked to the chain below it. A target above
 *                    this layer would recurse: the compiler refuses it
 *                    (always_inline); a name not in the composition does not
 *                    compile either.
 * Needs from below: the target in the same composition, below this layer.
 * Time: the predicate, then what the chosen chain costs: O(1) here.
 * Space: none.
 * Thread safety: as safe as the predicate (no state of its own); no locks.
 * Fails: never itself; the chosen chain's failure (ctx->err) is returned.
 * Example (odd sizes skip the upper segfit_lk):
 *   mmap_heap
 *     :: segfit_lk(size_handle=[0, 65536])            (named lower)
 *     :: segfit_lk(sizeclass=interval)               (named upper)
 *     :: cond_bypass(pred=odd_size, target=lower)
 *     :: malloc_socket
 */
/* The layer's descriptor (core/describe.h): the data tools/describe_layers.py
 * reads and core/layer_end.h checks the slots against. */
#define MT_DESCRIPTOR_cond_bypass(LAYER, SLOT)      \
    LAYER(cond_bypass, addon, 0, (), ())            \
    MT_OPS(SLOT, alloc)                             \
    SLOT(pred, MT_PRED, FUNCTION, required, (), ()) \
    SLOT(target, MT_TARGET, INSTANCE, required, (), ())
#ifndef MT_DESCRIBE /* describe mode reads the descriptor alone */
#include "../core/layer.h"

#ifdef MT_NAME /* another instance name: the names below become its own */
#include "../names/cond_bypass.h"
#else
#define MT_NAME cond_bypass
#endif
#ifndef MT_PRED
#error "cond_bypass: name the predicate (#define MT_PRED my_pred)"
#endif
#ifndef MT_TARGET
#error "cond_bypass: name the target layer instance (#define MT_TARGET name)"
#endif

MT_DECLARE_CHAIN_AT(MT_TARGET, alloc);

#define MT_IMPLEMENTS_alloc
MT_INLINE void *cond_bypass_alloc(mt_ctx *ctx, mt_lfunc *next)
{
    if (MT_PRED(ctx))
        return MT_CHAIN_AT(MT_TARGET, alloc)(ctx);
    return next(ctx);
}

#define MT_DESCRIPTOR MT_DESCRIPTOR_cond_bypass
#include "../core/layer_end.h"
#undef MT_PRED
#undef MT_TARGET
#ifdef MT_NAMES_cond_bypass
#include "../names/cond_bypass.h" /* forget them */
#endif
#endif /* MT_DESCRIBE */

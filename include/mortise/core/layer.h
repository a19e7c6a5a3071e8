/* mortise/core/layer.h — what a layer header needs to be a "template header".
 *
 * A layer instance is made by defining its name and policy slots, then
 * including the layer's header, exactly as the model language reads:
 *
 *     // segfit_lk(sync=spinlock, size_handle=[0, 65536])
 *     #define MT_NAME        small
 *     #define MT_SYNC        spinlock
 *     #define MT_SIZE_HANDLE 0, 65536
 *     #include <mortise/layers/segfit_lk.h>
 *
 * The header defines the operations it implements (small_alloc, ...) on real
 * source lines (a debugger steps through them), each right after
 * `#define MT_IMPLEMENTS_op`, and ends with core/layer_end.h, which forwards
 * every operation it did not mark and #undefs every slot and marker, so the
 * same layer type can be instantiated again under another name with other
 * policies.
 * Slot macros are named after the model language: size_handle → MT_SIZE_HANDLE,
 * sync → MT_SYNC, slab_size → MT_SLAB_SIZE, and so on (layer_end.h lists them).
 *
 * Inside a layer header, MT_SELF(x) names the instance's symbol x
 * (small_x) and MT_SELF_ID is its owner id in the page map.
 */
#ifndef MORTISE_CORE_LAYER_H
#define MORTISE_CORE_LAYER_H

#include "ctx.h"
#include "pagemap.h"
#include "debug.h"
#include "describe.h"

#define MT_SELF(x) MT_CAT(MT_NAME, _##x)

/* size_handle=[lo, hi]: the layer serves lo <= size < hi (hi == SIZE_MAX means
 * every size from lo up). Requests outside go straight to the next layer. */
#define MT__SH_LO(lo, hi) ((size_t)(lo))
#define MT__SH_HI(lo, hi) ((size_t)(hi))
#define MT_SIZE_HANDLE_LO(range) MT__SH_LO(range)
#define MT_SIZE_HANDLE_HI(range) MT__SH_HI(range)
MT_INLINE bool mt_size_in(size_t size, size_t lo, size_t hi)
{
    return size >= lo && (size < hi || hi == SIZE_MAX);
}

/* A layer with nothing to do for an operation hands it to the next layer.
 * Layers do not write this: they mark what they implement
 * (`#define MT_IMPLEMENTS_alloc` before NAME_alloc) and layer_end.h forwards
 * the rest from the one operation list (core/ops.h). It remains for a layer
 * written inline in a test or program that has no closing header. */
#define MT_FORWARD_OP(name, op) MT__FORWARD_OP(name, op)
#define MT__FORWARD_OP(name, op) \
    MT_INLINE void *name##_##op(mt_ctx *ctx, mt_lfunc *next) { return next(ctx); }

/* The default of a batch operation (alloc_batch, free_batch) in a layer
 * that implements the single form (alloc, free) but not the batch: one
 * request through the layer's own single operation and the chain below it
 * for that operation, no extra block taken or freed (ctx->count = 0, the
 * list in ctx->chain untouched). layer_end.h emits it (core/ops.h). */
#define MT_ONE_AT_A_TIME_OP(name, op, single) MT__ONE_AT_A_TIME_OP(name, op, single)
#define MT__ONE_AT_A_TIME_OP(name, op, single)                   \
    MT_INLINE void *mt_below_##name##_##single(mt_ctx *ctx);     \
    MT_INLINE void *name##_##op(mt_ctx *ctx, mt_lfunc *next)     \
    {                                                            \
        (void)next;                                              \
        ctx->count = 0;                                          \
        return name##_##single(ctx, mt_below_##name##_##single); \
    }

/* The check operation of a layer that marks MT_HAS_INVARIANTS: its own
 * invariants (NAME_invariants(), NULL or "NAME: what is broken"), then the
 * layers below. layer_end.h emits it (core/ops.h). */
#define MT_CHECK_INVARIANTS_OP(name) MT__CHECK_INVARIANTS_OP(name)
#define MT__CHECK_INVARIANTS_OP(name)                         \
    MT_INLINE void *name##_check(mt_ctx *ctx, mt_lfunc *next) \
    {                                                         \
        return mt_check_then(name##_invariants(), ctx, next); \
    }

/* The end of a check operation: this layer's first broken invariant
 * ("NAME: what", a static string), else the answer of the layers below. */
MT_INLINE void *mt_check_then(const char *broken, mt_ctx *ctx, mt_lfunc *next)
{
    return broken ? (void *)broken : next(ctx);
}

/* The chain below this instance for any operation, not only the one running:
 * free may need the block's usable size (MT_BELOW(getmeta)(ctx)), a flush in
 * thread_exit frees blocks (MT_BELOW(free)). MT_COMPOSE defines the function;
 * a layer header declares the operations it uses with `MT_DECLARE_BELOW(op);`.
 * Like `next`, it is folded into the caller: it costs what the layers below do. */
#define MT_BELOW(op) MT_CAT(MT_CAT(mt_below_, MT_NAME), _##op)
#define MT_DECLARE_BELOW(op) MT_INLINE void *MT_BELOW(op)(mt_ctx * ctx)
/* The traits of every layer below this one, or-ed (core/ctx.h, MT_TRAIT_*;
 * defined by MT_COMPOSE): a constant once inlined. A header that reads them
 * declares them first with `MT_DECLARE_BELOW_TRAITS;`. */
#define MT_BELOW_TRAITS() MT_CAT(mt_below_traits_, MT_NAME)()
#define MT_DECLARE_BELOW_TRAITS MT_INLINE unsigned MT_CAT(mt_below_traits_, MT_NAME)(void)

/* The chain from a named instance further down, for any operation: the
 * layer `name` linked to everything below it. A layer that routes a request
 * past the layers between it and one further down (cond_bypass) calls
 * MT_CHAIN_AT(name, alloc)(ctx), declared first with
 * MT_DECLARE_CHAIN_AT(name, alloc). MT_COMPOSE defines it
 * (mt_at_SELF__name__op) only when `name` is below this instance, so a name
 * above it (which would recurse) or not in the composition does not
 * compile. Inlined like MT_BELOW. */
#define MT_CHAIN_AT(name, op) MT_CAT(MT_CAT(MT_CAT(mt_at_, MT_NAME), MT_CAT(__, name)), __##op)
#define MT_DECLARE_CHAIN_AT(name, op) MT_INLINE void *MT_CHAIN_AT(name, op)(mt_ctx * ctx)

/* Free, getmeta and resize belong to the block's owner: everyone else forwards. */
#define MT_NOT_MINE(ctx, id) ((ctx)->owner != (uintptr_t)(id))

/* Unique owner id per instance in this translation unit (0 = nobody's). */
#define MT_NEW_LAYER_ID (__COUNTER__ + 1)

#endif

/* mortise/core/layer_end.h — closes a layer template header: forwards every
 * operation the layer did not implement, then forgets the instance name,
 * its id and the MT_IMPLEMENTS_op markers. The layer's own slots are its
 * own to forget: its header #undefs them right after this include, so a
 * new slot needs no edit here (tools/check_catalogue.py checks that every
 * slot a header names is forgotten). (No include guard: included once at
 * the end of every layer header.)
 *
 * The forwarders come from the one operation list (core/ops.h): for each
 * operation without a marker, NAME_op(ctx, next) { return next(ctx); } —
 * exactly what a hand-written forwarder was, so the machine code is the same. */
MT_LAYER_OPS_DEFAULTS(MT_NAME)
#ifdef MT_SELF_ID
_Static_assert(
    MT_SELF_ID <= MT_OWNER_MASK,
    "more layers in this translation unit than the page map's owner field counts (15 on 32-bit targets)");
#endif
/* The layer's traits (core/ctx.h, MT_TRAIT_*), which MT_COMPOSE checks
 * between every pair of layers; a layer that has some defines
 * MT_LAYER_TRAITS before including this file. */
#ifndef MT_LAYER_TRAITS
#define MT_LAYER_TRAITS 0
#endif
/* A layer whose locks count contention (lock_stat=1, policy/sync/sync.h)
 * has MT_TRAIT_LOCK_STAT and the two hooks MT_COMPOSE calls through the
 * highest such layer (mt_chain_note_caller, mt_chain_lock_stat_fork:
 * core/ctx.h); every other layer has hooks that do nothing, never called. */
#if defined(MT_LOCK_STAT) && MT_LOCK_STAT
enum { MT_SELF(traits) = MT_LAYER_TRAITS | MT_TRAIT_LOCK_STAT };
MT_INLINE MT_UNUSED void MT_SELF(note_caller)(void)
{
    if (mt_lockstat_note_caller((uintptr_t)__builtin_return_address(0)))
        mt_thread_attach(); /* the thread's first request: its exit is recorded */
}
MT_INLINE MT_UNUSED void MT_SELF(lock_stat_fork)(int phase) { mt_lockstat_fork(phase); }
#else
enum { MT_SELF(traits) = MT_LAYER_TRAITS };
MT_INLINE MT_UNUSED void MT_SELF(note_caller)(void) {}
MT_INLINE MT_UNUSED void MT_SELF(lock_stat_fork)(int phase) { (void)phase; }
#endif
#undef MT_LAYER_TRAITS
#define MT__OPS_CLEAR_MARKERS
#include "ops.h"
MT_FOR_EACH_OP(MT__OP_CLEARED, ~)

#undef MT_NAME
#undef MT_HAS_INVARIANTS
#undef MT_HAS_REPORT_UNOWNED
#undef MT_SELF_ID

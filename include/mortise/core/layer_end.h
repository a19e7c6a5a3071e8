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
 * exactly what a hand-written forwarder was, so the machine code is the same.
 * A composition that includes its glue written out (instances/chains/NAME.inl,
 * tools/compose_chain.py) defines MT_GLUE_WRITTEN_OUT: that file holds the
 * forwarders as source lines grep, ctags and a debugger find. */
#ifndef MT_GLUE_WRITTEN_OUT
MT_LAYER_OPS_DEFAULTS(MT_NAME)
#endif
#ifdef MT_SELF_ID
_Static_assert(
    MT_SELF_ID <= MT_OWNER_MASK,
    "more layers in this translation unit than the page map's owner field counts (15 on 32-bit targets)");
#endif
/* The layer's traits (core/ctx.h, MT_TRAIT_*), which MT_COMPOSE checks
 * between every pair of layers, and the range checks of its numeric slots:
 * from its descriptor (core/describe.h), which a layer header names with
 * #define MT_DESCRIPTOR MT_DESCRIPTOR_<name> before including this file.
 * A layer without one (a test's own layer) may define MT_LAYER_TRAITS.
 * A layer whose locks count contention (lock_stat=1, policy/sync/sync.h)
 * also has MT_TRAIT_LOCK_STAT (its hooks: MT_LAYER_OPS_DEFAULTS, core/ops.h). */
#if defined(MT_LOCK_STAT) && MT_LOCK_STAT
#define MT__LOCK_STAT_TRAIT MT_TRAIT_LOCK_STAT
#else
#define MT__LOCK_STAT_TRAIT 0
#endif
#ifdef MT_DESCRIPTOR
MT_DESCRIPTOR(MT__DESC_TRAITS, MT__DESC_CHECK)
#undef MT_DESCRIPTOR
#else
#ifndef MT_LAYER_TRAITS
#define MT_LAYER_TRAITS 0
#endif
enum { MT_SELF(traits) = MT_LAYER_TRAITS | MT__LOCK_STAT_TRAIT };
#undef MT_LAYER_TRAITS
#endif
#undef MT__LOCK_STAT_TRAIT
#define MT__OPS_CLEAR_MARKERS
#include "ops.h"
MT_FOR_EACH_OP(MT__OP_CLEARED, ~)

#undef MT_NAME
#undef MT_HAS_INVARIANTS
#undef MT_HAS_REPORT_UNOWNED
#undef MT_SELF_ID

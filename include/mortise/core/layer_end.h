/* mortise/core/layer_end.h — closes a layer template header: forwards every
 * operation the layer did not implement, then forgets the instance name,
 * the MT_IMPLEMENTS_op markers and every policy slot so the next instance
 * starts clean. (No include guard: included once at the end of every layer
 * header.)
 *
 * The forwarders come from the one operation list (core/ops.h): for each
 * operation without a marker, NAME_op(ctx, next) { return next(ctx); } —
 * exactly what a hand-written forwarder was, so the machine code is the same. */
MT_LAYER_OPS_DEFAULTS(MT_NAME)
#ifdef MT_SELF_ID
_Static_assert(MT_SELF_ID <= MT_OWNER_MASK,
               "more layers in this translation unit than the page map's owner field counts (15 on 32-bit targets)");
#endif
#define MT__OPS_CLEAR_MARKERS
#include "ops.h"
MT_FOR_EACH_OP(MT__OP_CLEARED, ~)

#undef MT_NAME
#undef MT_HAS_INVARIANTS
#undef MT_SIZE_HANDLE
#undef MT_SYNC
#undef MT_SIZECLASS
#undef MT_SIZECLASS_STEP
#undef MT_SIZECLASS_MAX
#undef MT_SLAB_SIZE
#undef MT_ALIGNMENT
#undef MT_FAA_HEAP_GROWTH
#undef MT_THREADLOCAL_HEAP_SIZE
#undef MT_HUGE_PAGE
#undef MT_LARGE_KEEP
#undef MT_LARGE_DECAY_MS
#undef MT_POOL_SIZE
#undef MT_TLLABS
#undef MT_CACHE_SIZE
#undef MT_COREAWARE_CACHESIZE
#undef MT_CHKSUM
#undef MT_ERR_HANDLE
#undef MT_LINK_CHECK
#undef MT_HEAD_CANARY
#undef MT_DELAYED_SIZE
#undef MT_DELAYED_LARGE
#undef MT_NODE_XOR
#undef MT_SL_COUNT
#undef MT_MAX_BLOCK
#undef MT_SELF_ID
#undef MT_SAMPLE_EVERY
#undef MT_PIN_THREADS
/* A layer with lock_stat=1: the socket leaves each request's call site for
 * its locks (MT_SOCKET_NOTE_CALLER, sockets/socket_core.h). */
#if defined(MT_LOCK_STAT) && !defined(MT_CHAIN_LOCK_STAT)
#if MT_LOCK_STAT
#define MT_CHAIN_LOCK_STAT 1
#endif
#endif
#undef MT_LOCK_STAT
#undef MT_PASSTHROUGH
#undef MT_DELAYED_FILL_SIZE

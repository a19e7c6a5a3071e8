/* mortise/core/ops.h — the operations of the layer contract, in one list.
 *
 * Every place that needs "each operation" (the end of the chain, the
 * socket's view of the chain, MT_COMPOSE's links, the default forwarders a
 * layer gets for the operations it does not implement) expands this list,
 * so adding an operation is:
 *   1. one X(..., op) entry in MT_FOR_EACH_OP below, and one
 *      `#undef MT_IMPLEMENTS_op` in the marker block at the end of this file
 *      (tests/core/ops_list_test.sh fails if the two disagree; a layer that
 *      marks an operation the block does not clear fails to compile);
 *   2. its meaning in the contract comment of core/ctx.h and the table of
 *      docs/writing-a-layer.md;
 *   3. `#define MT_IMPLEMENTS_op` plus the function in the layers that do
 *      something for it. Every other layer forwards it without a line of its
 *      own, so a new operation costs nothing where it is not implemented.
 *
 * How a layer says what it implements: right before defining NAME_op it
 * writes `#define MT_IMPLEMENTS_op`. Its closing header (core/layer_end.h)
 * then defines `NAME_op(ctx, next) { return next(ctx); }` for every
 * operation not so marked, and clears the markers for the next instance.
 * Markers are plain #defines (not a list in one macro) so that a layer can
 * implement an operation under #if, and a shared helper header
 * (layers/cache/thread_state.h) can mark what it defines.
 *
 * (No include guard around the marker block: layer_end.h includes this file
 * again with MT__OPS_CLEAR_MARKERS defined to run it.)
 */
#ifndef MORTISE_CORE_OPS_H
#define MORTISE_CORE_OPS_H

/* X(args..., op) for every operation, in contract order. At least one
 * argument: C11 does not allow an empty variable argument list. */
/* clang-format off */
#define MT_FOR_EACH_OP(X, ...)                                                     \
    X(__VA_ARGS__, create) X(__VA_ARGS__, alloc) X(__VA_ARGS__, free)              \
    X(__VA_ARGS__, alloc_batch) X(__VA_ARGS__, free_batch)                         \
    X(__VA_ARGS__, getmeta) X(__VA_ARGS__, resize) X(__VA_ARGS__, thread_exit)     \
    X(__VA_ARGS__, fork_prepare) X(__VA_ARGS__, fork_parent)                       \
    X(__VA_ARGS__, fork_child) X(__VA_ARGS__, purge) X(__VA_ARGS__, check)
/* clang-format on */

/* Each operation's index in that order, and its bit in a set of them (a
 * layer's descriptor lists those it implements: MT_OPS, core/describe.h;
 * `none`, a bit no operation has, for a layer that implements none). */
#define MT__OP_INDEX(unused, op) mt_op_index_##op,
enum { MT_FOR_EACH_OP(MT__OP_INDEX, ~) mt_op_index_none = 31 };
#define MT_OP_BIT(op) (1u << mt_op_index_##op)

/* X(op) for every operation. */
#define MT_LAYER_OPS(X) MT_FOR_EACH_OP(MT__OPS_APPLY, X)
#define MT__OPS_APPLY(X, op) X(op)

/* MT__OP_MARKED(op): 1 if the layer being defined marked op (defined
 * MT_IMPLEMENTS_op empty or as 1), else 0. A marker expands to nothing or
 * 1, which pastes to a probe holding a comma; an unmarked one stays a lone
 * identifier, so the second element of the list is the default 0. */
#define MT__OP_MARKED(op) MT__OP_MARKED_(MT__OP_PROBE(MT_IMPLEMENTS_##op), 0, ~)
#define MT__OP_PROBE(marker) MT__OP_PROBE_PASTE(marker)
#define MT__OP_PROBE_PASTE(marker) MT__OP_PROBE_##marker
#define MT__OP_MARKED_(...) MT__OP_SECOND(__VA_ARGS__)
#define MT__OP_SECOND(a, b, ...) b
#define MT__OP_PROBE_ ~, 1
#define MT__OP_PROBE_1 ~, 1

/* The forwarders of instance `name` for every operation it did not mark
 * (layer_end.h). */
#define MT_LAYER_OPS_DEFAULTS(name)                                                        \
    MT_FOR_EACH_OP(MT__DEFAULT_OP, name)                                                   \
    MT__DEFAULT_REPORT_IF(MT__OP_MARKED_(MT__OP_PROBE(MT_HAS_REPORT_UNOWNED), 0, ~), name) \
    MT_CAT(MT__LOCK_STAT_HOOKS_, MT_LOCK_STAT)(name)
/* NAME_note_caller() and NAME_lock_stat_event(event), which MT_COMPOSE calls
 * for every layer (mt_chain_note_caller, mt_chain_lock_stat_event:
 * core/ctx.h): with lock_stat=1 (MT_LOCK_STAT, policy/sync/sync.h) they
 * note the request's call site (the entry point's return address) and
 * attach the thread on its first request, and pass the socket's fork and
 * thread-exit events to the statistics (policy/sync/lockstat.h); otherwise
 * they are empty (0, or the token MT_LOCK_STAT itself when undefined). */
#define MT__LOCK_STAT_HOOKS_MT_LOCK_STAT(name) MT__LOCK_STAT_HOOKS_0(name)
#define MT__LOCK_STAT_HOOKS_0(name)                      \
    MT_INLINE MT_UNUSED void name##_note_caller(void) {} \
    MT_INLINE MT_UNUSED void name##_lock_stat_event(int event) { (void)event; }
#define MT__LOCK_STAT_HOOKS_1(name)                                          \
    MT_INLINE MT_UNUSED void name##_note_caller(void)                        \
    {                                                                        \
        if (mt_lockstat_note_caller((uintptr_t)__builtin_return_address(0))) \
            mt_thread_attach();                                              \
    }                                                                        \
    MT_INLINE MT_UNUSED void name##_lock_stat_event(int event) { mt_lockstat_event(event); }
/* NAME_report_unowned(p, op): how the layer reports a pointer no layer owns
 * (mt_chain_report_invalid, core/ctx.h). A safety layer defines it and says
 * so with `#define MT_HAS_REPORT_UNOWNED`; every other layer gets one that
 * does nothing, never called (its traits lack MT_TRAIT_REPORTS_INVALID). */
#define MT__DEFAULT_REPORT_IF(has, name) MT__DEFAULT_REPORT_IF_(has, name)
#define MT__DEFAULT_REPORT_IF_(has, name) MT__DEFAULT_REPORT_##has(name)
#define MT__DEFAULT_REPORT_0(name)                                          \
    MT_INLINE MT_UNUSED void name##_report_unowned(void *p, const char *op) \
    {                                                                       \
        (void)p;                                                            \
        (void)op;                                                           \
    }
#define MT__DEFAULT_REPORT_1(name)
/* The forwarder of an operation the layer did not mark; nothing if it did. */
#define MT__DEFAULT_OP(name, op) MT__DEFAULT_OP_IF(MT__OP_MARKED(op), name, op)
#define MT__DEFAULT_OP_IF(marked, name, op) MT__DEFAULT_OP_PASTE(marked, name, op)
#define MT__DEFAULT_OP_PASTE(marked, name, op) MT__DEFAULT_OP_##marked(name, op)
#define MT__DEFAULT_OP_0(name, op) MT__DEFAULT_OP_KIND(MT__OP_SPECIAL(op), name, op)
#define MT__DEFAULT_OP_1(name, op)

/* Which default an unmarked operation gets. Most are forwarded.
 * check: a layer that defines `NAME_invariants(void)` (returning NULL or
 * "NAME: what is broken") and says so with `#define MT_HAS_INVARIANTS`
 * gets `return mt_check_then(NAME_invariants(), ctx, next);`; without it,
 * check is forwarded like the others. A batch
 * operation (alloc_batch, free_batch) is forwarded only by a layer that
 * does not implement its single form either (alloc, free): such a layer
 * never sees those requests, so batches passing it change nothing for it.
 * A layer that implements the single form but not the batch serves the
 * batch as one request through its own alloc/free (no extra blocks), so a
 * statistics or safety layer between a cache and a trunk still sees every
 * block, and the trunk below gets single requests. */
#define MT__OP_SPECIAL(op) MT__OP_MARKED_(MT__OP_PROBE(MT__OP_SPECIAL_##op), 0, ~)
#define MT__OP_SPECIAL_alloc_batch 1
#define MT__OP_SPECIAL_free_batch 1
#define MT__OP_SPECIAL_check 1
#define MT__DEFAULT_OP_KIND(special, name, op) MT__DEFAULT_OP_KIND_(special, name, op)
#define MT__DEFAULT_OP_KIND_(special, name, op) MT__DEFAULT_OP_KIND_##special(name, op)
#define MT__DEFAULT_OP_KIND_0(name, op) MT_FORWARD_OP(name, op)
#define MT__DEFAULT_OP_KIND_1(name, op) MT__DEFAULT_SPECIAL_##op(name)
#define MT__DEFAULT_SPECIAL_check(name) \
    MT__DEFAULT_CHECK_IF(MT__OP_MARKED_(MT__OP_PROBE(MT_HAS_INVARIANTS), 0, ~), name)
#define MT__DEFAULT_CHECK_IF(has, name) MT__DEFAULT_CHECK_IF_(has, name)
#define MT__DEFAULT_CHECK_IF_(has, name) MT__DEFAULT_CHECK_##has(name)
#define MT__DEFAULT_CHECK_0(name) MT_FORWARD_OP(name, check)
#define MT__DEFAULT_CHECK_1(name) MT_CHECK_INVARIANTS_OP(name)
#define MT__DEFAULT_SPECIAL_alloc_batch(name) \
    MT__DEFAULT_BATCH_IF(MT__OP_MARKED(alloc), name, alloc_batch, alloc)
#define MT__DEFAULT_SPECIAL_free_batch(name) MT__DEFAULT_BATCH_IF(MT__OP_MARKED(free), name, free_batch, free)
#define MT__DEFAULT_BATCH_IF(single_marked, name, op, single) \
    MT__DEFAULT_BATCH_IF_(single_marked, name, op, single)
#define MT__DEFAULT_BATCH_IF_(single_marked, name, op, single) \
    MT__DEFAULT_BATCH_##single_marked(name, op, single)
#define MT__DEFAULT_BATCH_0(name, op, single) MT_FORWARD_OP(name, op)
#define MT__DEFAULT_BATCH_1(name, op, single) MT_ONE_AT_A_TIME_OP(name, op, single)

/* layer_end.h, after clearing the markers: one still set is missing from the
 * marker block below (it would leak into the next instance). */
#define MT__OP_CLEARED(unused, op) \
    _Static_assert(!MT__OP_MARKED(op), "core/ops.h: add #undef MT_IMPLEMENTS_" #op);

#endif

#ifdef MT__OPS_CLEAR_MARKERS
#undef MT__OPS_CLEAR_MARKERS
#undef MT_IMPLEMENTS_create
#undef MT_IMPLEMENTS_alloc
#undef MT_IMPLEMENTS_free
#undef MT_IMPLEMENTS_alloc_batch
#undef MT_IMPLEMENTS_free_batch
#undef MT_IMPLEMENTS_getmeta
#undef MT_IMPLEMENTS_resize
#undef MT_IMPLEMENTS_thread_exit
#undef MT_IMPLEMENTS_fork_prepare
#undef MT_IMPLEMENTS_fork_parent
#undef MT_IMPLEMENTS_fork_child
#undef MT_IMPLEMENTS_purge
#undef MT_IMPLEMENTS_check
#endif

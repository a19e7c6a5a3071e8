/* mortise/core/describe.h — a layer's descriptor: what the layer is, as data
 * the compiler reads.
 *
 * Every layer header (os/, layers/, sockets/) defines, right after its
 * contract comment, one X-macro named MT_DESCRIPTOR_<model name>:
 *
 *     #define MT_DESCRIPTOR_slab_lk(LAYER, SLOT)                                 \
 *         LAYER(slab_lk, trunk, 0, (), ())                                       \
 *         SLOT(size_handle, MT_SIZE_HANDLE, RANGE, (0, 32768), (0, SIZE_MAX), ()) \
 *         SLOT(slab_size, MT_SLAB_SIZE, BYTES, 64 << 10, (64 << 10, 256 << 20), ())
 *
 *   LAYER(name, kind, traits, (aliases...), (links...))
 *     name    the model-language name (`mortise list`, specs)
 *     kind    os | trunk | addon | socket
 *     traits  an expression of MT_TRAIT_* (core/ctx.h), 0 for none; it may
 *             read the layer's slots (tail_chksum's do). It is the layer's
 *             NAME_traits, which MT_COMPOSE checks (core/compose.h)
 *     aliases other names the model language accepts for the layer
 *     links   libraries the composition links (affinity_pool: (unwind))
 *   SLOT(name, MACRO, TYPE, default, allowed, (slot aliases...)), one per
 *   slot in contract order:
 *     TYPE    RANGE ([lo, hi] in the model language; MACRO is "lo, hi"),
 *             BOOL (0|1), BYTES, N, POLICY (any policy of the slot's
 *             folder, policy/), CHOICE (one of allowed), IDENT, FUNCTION,
 *             INSTANCE (a layer instance's name), NAME (a policy's name)
 *     default the value a spec that leaves the slot out gets: a number
 *             (BYTES may be written 64 << 10), (lo, hi) for RANGE, a name,
 *             `empty` or `required`
 *     allowed (lo, hi) for BOOL, BYTES, N and RANGE; the names for CHOICE;
 *             () otherwise. A numeric range that starts at 0 means 0 is the
 *             slot's "off" (large_keep, threadlocal_heap_size), which
 *             tools/mortise_lib/tune.py tries
 *   A field the layer needs in the request context (core/ctx.h), which the
 *   composition declares in MT_CTX_EXTRA before including Mortise, is an
 *   entry of its own type, CTX, written MT_CTX_FIELD(SLOT, type, field)
 *   (kernel_socket: MT_CTX_FIELD(SLOT, unsigned, gfp)). It is no slot of the
 *   model language: the tools list it as the layer's context fields, and
 *   `mortise build` writes it into MT_CTX_EXTRA.
 *   The operations the layer implements (core/ops.h; each marked with
 *   #define MT_IMPLEMENTS_op beside its function, maybe under #if) are an
 *   entry of type OPS, written MT_OPS(SLOT, alloc, free, getmeta), in the
 *   operations' order; MT_OPS(SLOT, none) for a layer that implements none
 *   (a socket, which serves the C library's entry points instead).
 *   layer_end.h fails to compile a layer that marks an operation its list
 *   leaves out; tools/check_catalogue.py fails on a listed one that no
 *   marker in the header (or the fragments it includes) defines.
 *
 * A policy header (policy/FOLDER/NAME.h) likewise defines, right after its
 * contract comment, MT_POLICY_DESCRIPTOR_<slot>_<name>:
 *
 *     #define MT_POLICY_DESCRIPTOR_sync_ticket(POLICY, SLOT) POLICY(sync, ticket, policy)
 *     #define MT_POLICY_DESCRIPTOR_sync_lockstat(POLICY, SLOT) \
 *         POLICY(sync, lockstat, extension)                    \
 *         SLOT(lock_stat, MT_LOCK_STAT, BOOL, 0, (0, 1), ())
 *
 *   POLICY(slot, name, kind)
 *     slot    the policy slot: sync, sizeclass, chksum or err_handle
 *     name    the header's name, which a spec gives the slot (sync=ticket)
 *     kind    policy (a value of the slot) | extension (no value: its SLOT
 *             entries, in the layers' format, become slots of every layer
 *             that has the policy slot)
 *   Its body is guarded by !defined(MT_DESCRIBE) with its include guard.
 *
 * A slot that several layers declare alike is written once, below, and a
 * descriptor names it (MT_SLOT_SIZE_HANDLE(SLOT, 0, 32768) for the first
 * SLOT line above): size_handle, sizeclass and sync with the layer's
 * default; link_check with the err_handle policy its reports go through;
 * the OS layers' large_keep and large_decay_ms.
 *
 * The header's body is guarded by `#ifndef MT_DESCRIBE`: describe mode
 * (tools/describe_layers.py, `cc -E -P` over a unit that includes every
 * layer and policy header so) sees the descriptors alone and expands them
 * into tools/mortise_lib/descriptors.json, the table
 * tools/mortise_lib/registry.py reads; tools/check_catalogue.py checks that
 * the header #undefs every slot macro and #defines the defaults the
 * descriptor states. Before including
 * core/layer_end.h a header names its descriptor
 * (#define MT_DESCRIPTOR MT_DESCRIPTOR_slab_lk); layer_end.h then takes the
 * traits from it and checks every BOOL, BYTES and N slot's value against
 * its declared range (a _Static_assert naming the instance and slot), so
 * the descriptor cannot drift from what the code accepts. Neither adds
 * machine code. */
#ifndef MORTISE_CORE_DESCRIBE_H
#define MORTISE_CORE_DESCRIBE_H

/* The shared slots (see above), each as one or two SLOT entries. */
#define MT_SLOT_SIZE_HANDLE(SLOT, lo, hi) \
    SLOT(size_handle, MT_SIZE_HANDLE, RANGE, (lo, hi), (0, SIZE_MAX), ())
#define MT_SLOT_SIZECLASS(SLOT, dflt) SLOT(sizeclass, MT_SIZECLASS, POLICY, dflt, (), ())
#define MT_SLOT_SYNC(SLOT, dflt) SLOT(sync, MT_SYNC, POLICY, dflt, (), ())
#define MT_SLOTS_LINK_CHECK(SLOT)                        \
    SLOT(link_check, MT_LINK_CHECK, BOOL, 0, (0, 1), ()) \
    SLOT(err_handle, MT_ERR_HANDLE, POLICY, default, (), ())
#define MT_SLOTS_LARGE_KEEP(SLOT)                                       \
    SLOT(large_keep, MT_LARGE_KEEP, BYTES, 96 << 20, (0, SIZE_MAX), ()) \
    SLOT(large_decay_ms, MT_LARGE_DECAY_MS, N, 1000, (0, SIZE_MAX), ())
/* A context field (see above): its declaration is the entry's default. */
#define MT_CTX_FIELD(SLOT, type, field) SLOT(field, MT_CTX_EXTRA, CTX, type field;, (), ())
/* The operations the layer implements (see above). */
#define MT_OPS(SLOT, ...) SLOT(operations, MT_IMPLEMENTS, OPS, implemented, (__VA_ARGS__), ())

/* How many arguments (1 to 16), and M(a) for each: the descriptors' lists
 * here, the composition's layers in core/compose.h. */
#define MT__NARGS(...) MT__NARGS_(__VA_ARGS__, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define MT__NARGS_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, N, ...) N
#define MT__EACH(M, ...) MT_CAT(MT__EACH, MT__NARGS(__VA_ARGS__))(M, __VA_ARGS__)
#define MT__EACH1(M, a) M(a)
#define MT__EACH2(M, a, ...) M(a) MT__EACH1(M, __VA_ARGS__)
#define MT__EACH3(M, a, ...) M(a) MT__EACH2(M, __VA_ARGS__)
#define MT__EACH4(M, a, ...) M(a) MT__EACH3(M, __VA_ARGS__)
#define MT__EACH5(M, a, ...) M(a) MT__EACH4(M, __VA_ARGS__)
#define MT__EACH6(M, a, ...) M(a) MT__EACH5(M, __VA_ARGS__)
#define MT__EACH7(M, a, ...) M(a) MT__EACH6(M, __VA_ARGS__)
#define MT__EACH8(M, a, ...) M(a) MT__EACH7(M, __VA_ARGS__)
#define MT__EACH9(M, a, ...) M(a) MT__EACH8(M, __VA_ARGS__)
#define MT__EACH10(M, a, ...) M(a) MT__EACH9(M, __VA_ARGS__)
#define MT__EACH11(M, a, ...) M(a) MT__EACH10(M, __VA_ARGS__)
#define MT__EACH12(M, a, ...) M(a) MT__EACH11(M, __VA_ARGS__)
#define MT__EACH13(M, a, ...) M(a) MT__EACH12(M, __VA_ARGS__)
#define MT__EACH14(M, a, ...) M(a) MT__EACH13(M, __VA_ARGS__)
#define MT__EACH15(M, a, ...) M(a) MT__EACH14(M, __VA_ARGS__)
#define MT__EACH16(M, a, ...) M(a) MT__EACH15(M, __VA_ARGS__)

#define MT__DESC_STR_(x) #x
#define MT__DESC_STR(x) MT__DESC_STR_(x)
#define MT__DESC_UNPAREN(...) __VA_ARGS__

/* layer_end.h: MT_DESCRIPTOR(MT__DESC_TRAITS, MT__DESC_CHECK) */
#define MT__DESC_TRAITS(name, kind, traits_expr, aliases, links) \
    enum { MT_SELF(traits) = (traits_expr) | MT__LOCK_STAT_TRAIT };
#define MT__DESC_CHECK(slot, macro, type, dflt, allowed, aliases) \
    MT__DESC_CHECK_##type(slot, #macro, (macro), allowed)
#define MT__DESC_CHECK_RANGE(slot, name, value, allowed)
#define MT__DESC_CHECK_POLICY(slot, name, value, allowed)
#define MT__DESC_CHECK_CHOICE(slot, name, value, allowed)
#define MT__DESC_CHECK_IDENT(slot, name, value, allowed)
#define MT__DESC_CHECK_FUNCTION(slot, name, value, allowed)
#define MT__DESC_CHECK_INSTANCE(slot, name, value, allowed)
#define MT__DESC_CHECK_NAME(slot, name, value, allowed)
#define MT__DESC_CHECK_CTX(slot, name, value, allowed)
#define MT__DESC_CHECK_OPS(slot, name, value, allowed) \
    MT_FOR_EACH_OP(MT__DESC_OP_LISTED, MT__DESC_OP_SET allowed)
#define MT__DESC_OP_SET(...) (0u MT__EACH(MT__DESC_OP_BIT, __VA_ARGS__))
#define MT__DESC_OP_BIT(op) | MT_OP_BIT(op)
#define MT__DESC_OP_LISTED(listed, op)                             \
    _Static_assert(!MT__OP_MARKED(op) || ((listed)&MT_OP_BIT(op)), \
                   MT__DESC_STR(MT_NAME) ": implements " #op       \
                                         ", which MT_OPS in its descriptor does not list");
#define MT__DESC_CHECK_BOOL(slot, name, value, allowed) \
    MT__DESC_IN(slot, name, value, MT__DESC_UNPAREN allowed)
#define MT__DESC_CHECK_BYTES MT__DESC_CHECK_BOOL
#define MT__DESC_CHECK_N MT__DESC_CHECK_BOOL
#define MT__DESC_IN(slot, name, value, ...) MT__DESC_IN_(slot, name, value, __VA_ARGS__)
/* lo <= value <= hi as d <= r, d = value - lo and r = hi - lo unsigned (a
 * value below lo wraps far above r), written d/2 < r/2 + 1 - (d & ~r & 1):
 * exact, no overflow for r up to the type's maximum, and no operand that
 * folds to a 0 GCC's -Wtype-limits calls always true (d <= r with value ==
 * lo would be "unsigned >= 0"). */
#define MT__DESC_D(a, b) ((unsigned long long)(a) - (unsigned long long)(b))
#define MT__DESC_IN_(slot, name, value, lo, hi)                                                             \
    _Static_assert(MT__DESC_D(value, lo) / 2 <                                                              \
                       MT__DESC_D(hi, lo) / 2 + 1 - (MT__DESC_D(value, lo) & ~MT__DESC_D(hi, lo) & 1),      \
                   MT__DESC_STR(MT_NAME) ": slot " #slot " (" name ") is outside the range its descriptor " \
                                         "declares, [" #lo ", " #hi "]");

#endif

/* mortise/core/compose.h — MT_COMPOSE, the zero-cost composition of layers.
 *
 *     MT_COMPOSE(mmap_heap, segfit_lk, malloc_socket)
 *
 * lists layer instances in model-language order: the OS layer first, the socket
 * last. For each instance L after its predecessor P and each operation op it
 * defines
 *     mt_link_L_op(ctx) { return L_op(ctx, mt_link_P_op); }
 * so every layer is handed the already-linked chain below it as a constant
 * function pointer; the OS layer's is mt_end_op, the end of the chain
 * (returns NULL), defined here too. It also defines mt_below_L_op, the
 * chain below L for any operation, which a layer reaches as MT_BELOW(op)
 * (core/layer.h) when one operation needs another (free asking getmeta for
 * the block's size).
 * All of these are always-inline, so the compiler folds the whole chain into
 * the socket's entry points: adding a forwarding layer adds no instruction
 * (tests/suites/zero_cost checks this on the machine code). GCC resolves one level
 * of `next` per early-inliner iteration; cmake/Mortise.cmake raises the limit
 * (--param=max-early-inliner-iterations) so that deep chains fold the same as
 * shallow ones, in helpers that are not always-inline too.
 *
 * For every instance U and every instance L below it, it defines
 * mt_at_U__L__op, L's linked chain as U may reach it (MT_CHAIN_AT(L, op) in
 * U's header, core/layer.h: cond_bypass sends a request past the layers
 * between). Only those pairs exist, so naming a layer that is not below
 * does not compile. Over the same pairs it checks the layers' traits
 * (NAME_traits, core/layer_end.h): an upper layer that needs a trait of
 * every layer below stops the compilation at a lower one without it, with
 * both names in the message.
 * It also defines mt_chain_op (the top of the chain, used by the socket) and
 * mt_chain_layer_names(), the instance names in order, for reports.
 * Up to 16 instances; one composition per translation unit.
 * A ready allocator (instances/NAME.c) includes this expansion written out
 * as C, instances/chains/NAME.inl (tools/compose_chain.py, which checks it is
 * still what these macros make), so every function here has a source line.
 */
#ifndef MORTISE_CORE_COMPOSE_H
#define MORTISE_CORE_COMPOSE_H

#include "ctx.h"
#include "describe.h" /* MT__NARGS, MT__EACH */

/* The end of the chain, below the OS layer: nothing more can serve anything. */
#define MT__END_OP(unused, op)               \
    MT_INLINE void *mt_end_##op(mt_ctx *ctx) \
    {                                        \
        (void)ctx;                           \
        return NULL;                         \
    }
#define MT__LINK_OS_OP(L, op)                                                               \
    MT_INLINE MT_UNUSED void *mt_below_##L##_##op(mt_ctx *ctx) { return mt_end_##op(ctx); } \
    MT_INLINE void *mt_link_##L##_##op(mt_ctx *ctx) { return L##_##op(ctx, mt_end_##op); }
#define MT__LINK_OP(P, L, op)                                                                      \
    MT_INLINE MT_UNUSED void *mt_below_##L##_##op(mt_ctx *ctx) { return mt_link_##P##_##op(ctx); } \
    MT_INLINE void *mt_link_##L##_##op(mt_ctx *ctx) { return L##_##op(ctx, mt_link_##P##_##op); }
#define MT__TOP_OP(L, op) \
    MT_INLINE MT_UNUSED void *mt_chain_##op(mt_ctx *ctx) { return mt_link_##L##_##op(ctx); }
/* The traits of the layers below L (MT_BELOW_TRAITS, core/layer.h) and of
 * the whole chain (mt_chain_traits): each one flat or of the layers'
 * constants, so it folds at once whatever the chain's length. */
#define MT__BELOW_TRAITS_OS(L) \
    MT_INLINE MT_UNUSED unsigned mt_below_traits_##L(void) { return 0; }
#define MT__BELOW_TRAITS(BELOW, L) \
    MT_INLINE MT_UNUSED unsigned mt_below_traits_##L(void) { return BELOW; }

/* The operations come from the one list (core/ops.h). */
#define MT__FOR_OPS1(M, A) MT_FOR_EACH_OP(M, A)
#define MT__FOR_OPS2(M, A, B) MT_FOR_EACH_OP(M, A, B)

#define MT__AT_OP(U, L, op) \
    MT_INLINE MT_UNUSED void *mt_at_##U##__##L##__##op(mt_ctx *ctx) { return mt_link_##L##_##op(ctx); }

#define MT__TRAITS_OF(L) L##_traits /* (after L's expansion) */
#define MT__OS(L) MT__FOR_OPS1(MT__END_OP, ~) MT__FOR_OPS1(MT__LINK_OS_OP, L) MT__BELOW_TRAITS_OS(L)
#define MT__LINK(BELOW, P, L) MT__FOR_OPS2(MT__LINK_OP, P, L) MT__BELOW_TRAITS(BELOW, L)
/* The top: the socket's entry to every operation, and the chain's traits
 * (the top's and those below it). */
#define MT__TOP(ALL, L)                                                                               \
    MT__FOR_OPS1(MT__TOP_OP, L)                                                                       \
    MT_INLINE MT_UNUSED unsigned mt_chain_traits(void) { return ALL; }                                \
    MT_UNUSED static const bool mt_chain_wants_usable = ((ALL)&MT_TRAIT_WANTS_USABLE) != 0;           \
    MT_UNUSED static const bool mt_chain_wants_fresh_heads = ((ALL)&MT_TRAIT_NEEDS_FRESH_HEADS) != 0; \
    MT_UNUSED static const size_t mt_chain_tail_bytes = ((ALL)&MT_TRAIT_ADDS_TAIL) ? MT_SAFETY_TAIL_BYTES : 0;

/* FOLDL over the list: MT__Rn links n remaining instances after P; BELOW
 * is the or of the traits of P and every instance below it. */
#define MT__R1(BELOW, P, a) MT__LINK(BELOW, P, a) MT__TOP(BELOW | a##_traits, a)
#define MT__R2(BELOW, P, a, ...) MT__LINK(BELOW, P, a) MT__R1(BELOW | a##_traits, a, __VA_ARGS__)
#define MT__R3(BELOW, P, a, ...) MT__LINK(BELOW, P, a) MT__R2(BELOW | a##_traits, a, __VA_ARGS__)
#define MT__R4(BELOW, P, a, ...) MT__LINK(BELOW, P, a) MT__R3(BELOW | a##_traits, a, __VA_ARGS__)
#define MT__R5(BELOW, P, a, ...) MT__LINK(BELOW, P, a) MT__R4(BELOW | a##_traits, a, __VA_ARGS__)
#define MT__R6(BELOW, P, a, ...) MT__LINK(BELOW, P, a) MT__R5(BELOW | a##_traits, a, __VA_ARGS__)
#define MT__R7(BELOW, P, a, ...) MT__LINK(BELOW, P, a) MT__R6(BELOW | a##_traits, a, __VA_ARGS__)
#define MT__R8(BELOW, P, a, ...) MT__LINK(BELOW, P, a) MT__R7(BELOW | a##_traits, a, __VA_ARGS__)
#define MT__R9(BELOW, P, a, ...) MT__LINK(BELOW, P, a) MT__R8(BELOW | a##_traits, a, __VA_ARGS__)
#define MT__R10(BELOW, P, a, ...) MT__LINK(BELOW, P, a) MT__R9(BELOW | a##_traits, a, __VA_ARGS__)
#define MT__R11(BELOW, P, a, ...) MT__LINK(BELOW, P, a) MT__R10(BELOW | a##_traits, a, __VA_ARGS__)
#define MT__R12(BELOW, P, a, ...) MT__LINK(BELOW, P, a) MT__R11(BELOW | a##_traits, a, __VA_ARGS__)
#define MT__R13(BELOW, P, a, ...) MT__LINK(BELOW, P, a) MT__R12(BELOW | a##_traits, a, __VA_ARGS__)
#define MT__R14(BELOW, P, a, ...) MT__LINK(BELOW, P, a) MT__R13(BELOW | a##_traits, a, __VA_ARGS__)
#define MT__R15(BELOW, P, a, ...) MT__LINK(BELOW, P, a) MT__R14(BELOW | a##_traits, a, __VA_ARGS__)

/* Every (upper, lower) pair: an upper layer that needs a trait of every
 * layer below (core/ctx.h, MT_TRAIT_NEEDS_*) gets it from each. */
#define MT__NEEDS(U, L)                                                                                  \
    _Static_assert(!(U##_traits & MT_TRAIT_NEEDS_FRESH_HEADS) || (L##_traits & MT_TRAIT_FRESH_HEADS),    \
                   #U " needs every layer below to clear a fresh block's second word "                   \
                      "(MT_TRAIT_FRESH_HEADS, core/ctx.h); " #L " does not");                            \
    _Static_assert(!(U##_traits & MT_TRAIT_NO_SAFETY_BELOW) || !(L##_traits & MT_TRAIT_REPORTS_INVALID), \
                   #U " (head_canary=1) above another safety layer: " #L                                 \
                      "'s header already guards the bytes before the block");

/* MT__ATSn(a, u...): the reach of every u over a (a is below each), then the
 * same for the rest of the list: every (upper, lower) pair, in list order. */
#define MT__AT(U, L) MT__FOR_OPS2(MT__AT_OP, U, L) MT__NEEDS(U, L)
#define MT__ABOVE1(a, u) MT__AT(u, a)
#define MT__ABOVE2(a, u, ...) MT__AT(u, a) MT__ABOVE1(a, __VA_ARGS__)
#define MT__ABOVE3(a, u, ...) MT__AT(u, a) MT__ABOVE2(a, __VA_ARGS__)
#define MT__ABOVE4(a, u, ...) MT__AT(u, a) MT__ABOVE3(a, __VA_ARGS__)
#define MT__ABOVE5(a, u, ...) MT__AT(u, a) MT__ABOVE4(a, __VA_ARGS__)
#define MT__ABOVE6(a, u, ...) MT__AT(u, a) MT__ABOVE5(a, __VA_ARGS__)
#define MT__ABOVE7(a, u, ...) MT__AT(u, a) MT__ABOVE6(a, __VA_ARGS__)
#define MT__ABOVE8(a, u, ...) MT__AT(u, a) MT__ABOVE7(a, __VA_ARGS__)
#define MT__ABOVE9(a, u, ...) MT__AT(u, a) MT__ABOVE8(a, __VA_ARGS__)
#define MT__ABOVE10(a, u, ...) MT__AT(u, a) MT__ABOVE9(a, __VA_ARGS__)
#define MT__ABOVE11(a, u, ...) MT__AT(u, a) MT__ABOVE10(a, __VA_ARGS__)
#define MT__ABOVE12(a, u, ...) MT__AT(u, a) MT__ABOVE11(a, __VA_ARGS__)
#define MT__ABOVE13(a, u, ...) MT__AT(u, a) MT__ABOVE12(a, __VA_ARGS__)
#define MT__ABOVE14(a, u, ...) MT__AT(u, a) MT__ABOVE13(a, __VA_ARGS__)
#define MT__ABOVE15(a, u, ...) MT__AT(u, a) MT__ABOVE14(a, __VA_ARGS__)
#define MT__ATS1(a)
#define MT__ATS2(a, ...) MT__ABOVE1(a, __VA_ARGS__) MT__ATS1(__VA_ARGS__)
#define MT__ATS3(a, ...) MT__ABOVE2(a, __VA_ARGS__) MT__ATS2(__VA_ARGS__)
#define MT__ATS4(a, ...) MT__ABOVE3(a, __VA_ARGS__) MT__ATS3(__VA_ARGS__)
#define MT__ATS5(a, ...) MT__ABOVE4(a, __VA_ARGS__) MT__ATS4(__VA_ARGS__)
#define MT__ATS6(a, ...) MT__ABOVE5(a, __VA_ARGS__) MT__ATS5(__VA_ARGS__)
#define MT__ATS7(a, ...) MT__ABOVE6(a, __VA_ARGS__) MT__ATS6(__VA_ARGS__)
#define MT__ATS8(a, ...) MT__ABOVE7(a, __VA_ARGS__) MT__ATS7(__VA_ARGS__)
#define MT__ATS9(a, ...) MT__ABOVE8(a, __VA_ARGS__) MT__ATS8(__VA_ARGS__)
#define MT__ATS10(a, ...) MT__ABOVE9(a, __VA_ARGS__) MT__ATS9(__VA_ARGS__)
#define MT__ATS11(a, ...) MT__ABOVE10(a, __VA_ARGS__) MT__ATS10(__VA_ARGS__)
#define MT__ATS12(a, ...) MT__ABOVE11(a, __VA_ARGS__) MT__ATS11(__VA_ARGS__)
#define MT__ATS13(a, ...) MT__ABOVE12(a, __VA_ARGS__) MT__ATS12(__VA_ARGS__)
#define MT__ATS14(a, ...) MT__ABOVE13(a, __VA_ARGS__) MT__ATS13(__VA_ARGS__)
#define MT__ATS15(a, ...) MT__ABOVE14(a, __VA_ARGS__) MT__ATS14(__VA_ARGS__)
#define MT__ATS16(a, ...) MT__ABOVE15(a, __VA_ARGS__) MT__ATS15(__VA_ARGS__)
#define MT__ATS(...) MT_CAT(MT__ATS, MT__NARGS(__VA_ARGS__))(__VA_ARGS__)

/* The names sit in a section of their own: where the compiler addresses a
 * file's static data from one anchor (aarch64), a longer list (fake layers)
 * would otherwise move every other static and change the offsets in the code
 * (tests/suites/zero_cost). */
/* clang-format off */
#define MT__NAMES(...)                                                             \
    MT_UNUSED static inline const char *const *mt_chain_layer_names(size_t *count) \
    {                                                                              \
        __attribute__((section(".data.rel.ro.mt_layer_names")))                    \
        static const char *const names[] = { MT__STRS(__VA_ARGS__) };              \
        *count = sizeof names / sizeof names[0];                                   \
        return names;                                                              \
    }
/* clang-format on */
#define MT__STRS(...) MT_CAT(MT__STRS, MT__NARGS(__VA_ARGS__))(__VA_ARGS__)
#define MT__STRS1(a) #a
#define MT__STRS2(a, ...) #a, MT__STRS1(__VA_ARGS__)
#define MT__STRS3(a, ...) #a, MT__STRS2(__VA_ARGS__)
#define MT__STRS4(a, ...) #a, MT__STRS3(__VA_ARGS__)
#define MT__STRS5(a, ...) #a, MT__STRS4(__VA_ARGS__)
#define MT__STRS6(a, ...) #a, MT__STRS5(__VA_ARGS__)
#define MT__STRS7(a, ...) #a, MT__STRS6(__VA_ARGS__)
#define MT__STRS8(a, ...) #a, MT__STRS7(__VA_ARGS__)
#define MT__STRS9(a, ...) #a, MT__STRS8(__VA_ARGS__)
#define MT__STRS10(a, ...) #a, MT__STRS9(__VA_ARGS__)
#define MT__STRS11(a, ...) #a, MT__STRS10(__VA_ARGS__)
#define MT__STRS12(a, ...) #a, MT__STRS11(__VA_ARGS__)
#define MT__STRS13(a, ...) #a, MT__STRS12(__VA_ARGS__)
#define MT__STRS14(a, ...) #a, MT__STRS13(__VA_ARGS__)
#define MT__STRS15(a, ...) #a, MT__STRS14(__VA_ARGS__)
#define MT__STRS16(a, ...) #a, MT__STRS15(__VA_ARGS__)

/* mt_chain_report_invalid (core/ctx.h): the lowest layer with
 * MT_TRAIT_REPORTS_INVALID reports; the tests fold away. */
#define MT__REPORT_BY(L)                         \
    if (L##_traits & MT_TRAIT_REPORTS_INVALID) { \
        L##_report_unowned(p, op);               \
        return;                                  \
    }
#define MT__REPORT_INVALID(...)                                             \
    MT_SLOW MT_UNUSED void mt_chain_report_invalid(void *p, const char *op) \
    {                                                                       \
        MT__EACH(MT__REPORT_BY, __VA_ARGS__)                                \
        (void)p;                                                            \
        (void)op;                                                           \
    }

/* mt_chain_note_caller, mt_chain_lock_stat_event (core/ctx.h): in a chain
 * with MT_TRAIT_LOCK_STAT, every layer's hook in list order (only a layer
 * with lock statistics has hooks that do something, core/ops.h, and theirs
 * may run twice for one request or event: a second note of the same call
 * site, a second close of the same fork gate); in any other chain nothing,
 * behind one test of a constant expression, whatever the chain's length. */
#define MT__NOTE_CALLER_BY(L) L##_note_caller();
#define MT__LOCK_STAT_EVENT_BY(L) L##_lock_stat_event(event);
/* The or of every layer's traits, as a constant expression. */
#define MT__OR_TRAITS(L) | L##_traits
#define MT__TRAITS_ALL(...) (0 MT__EACH(MT__OR_TRAITS, __VA_ARGS__))
/* clang-format off */
#define MT__LOCK_STAT_HOOKS(ALL, ...)                            \
    MT_INLINE MT_UNUSED void mt_chain_note_each(void)            \
    {                                                            \
        MT__EACH(MT__NOTE_CALLER_BY, __VA_ARGS__)                \
    }                                                            \
    MT_INLINE MT_UNUSED void mt_chain_note_caller(void)          \
    {                                                            \
        if ((ALL) & MT_TRAIT_LOCK_STAT)                          \
            mt_chain_note_each();                                \
    }                                                            \
    MT_INLINE MT_UNUSED void mt_chain_lock_stat_each(int event)  \
    {                                                            \
        MT__EACH(MT__LOCK_STAT_EVENT_BY, __VA_ARGS__)            \
        (void)event;                                             \
    }                                                            \
    MT_INLINE MT_UNUSED void mt_chain_lock_stat_event(int event) \
    {                                                            \
        if ((ALL) & MT_TRAIT_LOCK_STAT)                          \
            mt_chain_lock_stat_each(event);                      \
    }
/* clang-format on */

/* MT_COMPOSE(os_layer, layer..., socket): at least an OS layer and a socket. */
/* clang-format off */
#define MT_COMPOSE(os, ...)                                                        \
    MT__OS(os)                                                                     \
    MT_CAT(MT__R, MT__NARGS(__VA_ARGS__))(MT__TRAITS_OF(os), os, __VA_ARGS__)                         \
    MT__ATS(os, __VA_ARGS__)                                                       \
    MT__REPORT_INVALID(os, __VA_ARGS__)                                            \
    MT__LOCK_STAT_HOOKS(MT__TRAITS_ALL(os, __VA_ARGS__), os, __VA_ARGS__)                                           \
    MT__NAMES(os, __VA_ARGS__)
/* clang-format on */

#endif

/* mortise/core/ctx.h — the request context and the layer contract.
 *
 * A request travels as an mt_ctx from the socket (the user interface, last in
 * the model language) through each layer toward the OS layer (first in the
 * model language). A layer is stateless code: its inputs and its results live in
 * the context, its state in instance-named storage it declares itself. The
 * context is a local of the socket's entry point; since every layer is inlined
 * the compiler keeps its fields in registers and drops those nobody reads.
 *
 * The layer contract. Every layer instance NAME defines these operations, each
 *     void *NAME_op(mt_ctx *ctx, mt_lfunc *next)
 * where `next` is the composed chain below it (toward the OS):
 *   create        per-thread set-up, run once per thread before its first request
 *                 that needs thread state (mt_thread_attach); returns NULL.
 *   alloc         serve ctx->size bytes aligned to ctx->align, or pass on to next;
 *                 returns the block or NULL (ctx->err says why).
 *                 A layer that knows the returned block's usable size without
 *                 a lookup (the class it popped from) may say so: ctx->ptr =
 *                 the block and ctx->usable = its usable size, what its
 *                 getmeta would answer. The pair is a hint, valid only while
 *                 ctx->ptr equals the block the caller got: a layer that
 *                 hands out another block, or this one at another address,
 *                 needs nothing more; one that hands out the very block with
 *                 less usable (a tail it keeps) sets the pair to its own
 *                 answer. A caller that wants it (tail_chksum) sets ctx->ptr
 *                 to NULL before next and asks getmeta when it does not match.
 *                 ctx->chain MT_ALLOC_QUICK (below): a fast path that misses
 *                 may answer NULL at once; the asker repeats the request.
 *   free          release ctx->ptr if ctx->owner names this layer, else pass on.
 *                 ctx->owner may be 0 (a pointer no layer owns: stack, global,
 *                 another allocator's): every layer passes it on untouched, as
 *                 any block not its own, and the end ignores it. A layer that
 *                 acts on frees before the owner answers (statistics) has
 *                 MT_TRAIT_NEEDS_OWNER: the socket then drops owner 0 first.
 *                 An add-on reads a block's size only through MT_BELOW(getmeta),
 *                 which answers NULL for owner 0.
 *   alloc_batch   alloc, and up to ctx->count more blocks of the same size and
 *                 alignment pushed onto the list ctx->chain (linked through
 *                 their first words; the first pushed ends up at the head,
 *                 so a cache popping the list hands fresh blocks out in the
 *                 order the layer produced them); returns the one block or
 *                 NULL, and sets ctx->chain to the list's new head and
 *                 ctx->count to the number pushed. Asked by a cache that
 *                 refills many blocks at once (thread_cache).
 *   free_batch    free ctx->ptr (owner and meta set, as for free), then blocks
 *                 of the NULL-terminated list ctx->chain from its head for as
 *                 long as the layer can take them, at most ctx->count of them
 *                 (each routed through the page map by the layer itself);
 *                 sets ctx->chain to the blocks not taken and ctx->count to
 *                 how many were; returns NULL. The caller frees the rest. A
 *                 request that took no block of the chain may come back with
 *                 ctx->count untouched: ctx->chain as it was says none. The
 *                 chain holds block starts only (each came from an alloc
 *                 below or was accepted by its owner's getmeta), so an owner
 *                 need not test each for an interior pointer.
 *                 Both batch operations are implemented by a trunk that
 *                 serves a run of blocks under one lock (slab_lk). Every
 *                 other layer gets a default (core/ops.h): one that
 *                 implements alloc (free) serves the batch as one alloc
 *                 (free) of its own with count 0, so no layer misses a
 *                 block; one that implements neither passes it on.
 *   getmeta       for an owned ctx->ptr set ctx->usable; returns ctx->ptr, or
 *                 passes on. The end of the chain returns NULL: not ours.
 *                 A size-class owner may also report the block's class index
 *                 (ctx->szcls) and its policy's key (ctx->szcls_key,
 *                 MT_SZCLS_KEY), so a layer above with the same policy
 *                 (thread_cache) need not recompute the class from usable.
 *                 A layer that changes ctx->usable on the way back clears
 *                 szcls_key.
 *   resize        grow/shrink ctx->ptr to ctx->size in place (or by remapping)
 *                 if the owner can; returns the (possibly moved) block or NULL.
 *   thread_exit   give back this thread's cached state; returns NULL.
 *   fork_prepare  take this layer's locks, then pass on (lock order: socket → OS).
 *   fork_parent   pass on, then release the locks taken in fork_prepare.
 *   fork_child    pass on, then reset the locks (only this thread survives).
 *   purge         return free memory to the layer below / the OS; returns
 *                 (void *)1 if anything was released by this layer or below.
 *   check         verify this layer's invariants (its shared state under its
 *                 own locks, and the calling thread's per-thread state);
 *                 returns a static string "NAME: what is broken" for the
 *                 first one that fails, else next(ctx), so the chain's check
 *                 walks every layer down to the OS layer and the end of the
 *                 chain answers NULL: all hold. Safe while other threads are
 *                 quiescent (not inside the allocator); never allocates.
 *                 Debug builds run a layer's own part after its slow paths
 *                 (core/debug.h).
 * The list of operations is core/ops.h. A layer defines only the operations
 * it implements, each after `#define MT_IMPLEMENTS_op`; its closing header
 * (core/layer_end.h) forwards the others (`return next(ctx);`), so a layer
 * with nothing to do for an operation writes nothing for it.
 *
 * Ownership routing (invariant 2): the socket reads the page map once per free /
 * getmeta / resize and puts the owner id and its payload into the context; each
 * layer compares the id with its own compile-time id, so finding the owner is a
 * constant number of compares with no read of the block itself.
 */
#ifndef MORTISE_CORE_CTX_H
#define MORTISE_CORE_CTX_H

#include "platform.h"
#include "ops.h"

typedef struct mt_ctx mt_ctx;
typedef void *mt_lfunc(mt_ctx *ctx);

/* Sockets may add fields by defining MT_CTX_EXTRA before including Mortise
 * (e.g. `#define MT_CTX_EXTRA unsigned kflags;`). */
#ifndef MT_CTX_EXTRA
#define MT_CTX_EXTRA
#endif

struct mt_ctx {
    size_t size;          /* in: requested bytes (layers may round it up) */
    size_t align;         /* in: required alignment, a power of two >= 1 */
    void *ptr;            /* in: block to free / query / resize; out (alloc,
                         optional): the block whose usable size is in usable */
    size_t usable;        /* out (getmeta; alloc, with ptr): usable bytes at ptr */
    size_t szcls;         /* out (getmeta, optional): the block's class index ... */
    uintptr_t szcls_key;  /* ... in the policy with this MT_SZCLS_KEY; 0 = none */
    uintptr_t owner;      /* in (free, getmeta, resize): owner id from the page map */
    uintptr_t meta;       /* in: owner's payload from the page map (e.g. span header) */
    int cpu;              /* in: CPU id hint, -1 when the socket has none */
    int err;              /* out: errno value when alloc returns NULL */
    void *zeroed;         /* out: set by the layer that returned a block known to be
                         zero-filled (fresh from the OS); calloc skips memset
                         when it equals the block returned */
    void *chain;          /* in/out (alloc_batch, free_batch): a list of blocks
                         linked through their first words, NULL-terminated */
    size_t count;         /* in (alloc_batch, free_batch): extra blocks wanted /
                         the most to free from chain; out: blocks pushed onto /
                         freed from chain */
    uintptr_t caller_cfa; /* in (alloc): 0, or, when the request runs in a
                         function other than the entry point the program
                         called (MT_TRAIT_READS_CALLER, x86-64), that entry
                         point's frame address: the program's return
                         address is the word below it */
    MT_CTX_EXTRA
};

/* Layer traits: bits of the traits a layer's descriptor states
 * (core/describe.h; MT_LAYER_TRAITS for a layer without one), which
 * core/layer_end.h makes its NAME_traits.
 * MT_COMPOSE rejects a chain where a layer needs of every layer below it a
 * trait one of them lacks, naming both (core/compose.h).
 *   MT_TRAIT_FRESH_HEADS        while a layer of the chain has
 *                               MT_TRAIT_NEEDS_FRESH_HEADS (mt_fresh_head),
 *                               the layer clears the second word (bytes 8 to
 *                               15) of every block it hands out whose start
 *                               it did not take back, as that same block,
 *                               from a free (a block carved or split anew,
 *                               or memory from the OS): the word then holds
 *                               nothing from an earlier life at another place
 *                               in the heap. A layer that only passes
 *                               requests on needs it as well to sit under
 *                               one that needs it.
 *   MT_TRAIT_NEEDS_FRESH_HEADS  every layer below has MT_TRAIT_FRESH_HEADS
 *                               (tail_chksum's freed_mark).
 *   MT_TRAIT_NEEDS_OWNER        the layer acts on frees before the owner
 *                               answers (statistics): the socket drops a
 *                               pointer no layer owns (owner 0) first.
 *   MT_TRAIT_REPORTS_INVALID    a safety layer: the socket reports a pointer
 *                               no layer owns as invalid-free (layer
 *                               "pagemap", under the lowest safety layer's
 *                               err_handle: mt_chain_report_invalid), and the
 *                               chain reports requested sizes as usable, so
 *                               realloc asks it (resize) on every change of
 *                               size instead of keeping the block.
 *   MT_TRAIT_NO_SAFETY_BELOW    no layer below has MT_TRAIT_REPORTS_INVALID
 *                               (tail_chksum's head_canary).
 *   MT_TRAIT_WANTS_USABLE       the layer reads alloc's usable-size hint (ptr
 *                               and usable, above: tail_chksum); the layers
 *                               that can give it do so only in a chain with
 *                               such a layer (mt_chain_wants_usable), so
 *                               every other chain keeps the machine code it
 *                               had without the hint (tests/suites/zero_cost).
 *   MT_TRAIT_LOCK_STAT          the layer counts its locks' contention per
 *                               call site (lock_stat=1, policy/sync/lockstat.h;
 *                               core/layer_end.h sets it): the socket notes
 *                               each request's call site (mt_chain_note_caller)
 *                               and fork stamps the threads the child lost
 *                               (mt_chain_lock_stat_event).
 *   MT_TRAIT_ADDS_TAIL          the layer adds MT_SAFETY_TAIL_BYTES to every
 *                               request it passes down (tail_chksum's size and
 *                               check words): a safety layer below reports
 *                               the program's size, that much less.
 *   MT_TRAIT_READS_CALLER       the layer's alloc tells requests apart by
 *                               their call site (affinity_pool): malloc asks
 *                               the chain quick (MT_ALLOC_QUICK) and repeats
 *                               a miss out of line with the entry point's
 *                               frame address in ctx->caller_cfa, so the
 *                               entry point makes no call on its inline path
 *                               and needs no stack frame (x86-64); the layer
 *                               reads the call site from there when it is
 *                               set. */
enum {
    MT_TRAIT_FRESH_HEADS = 1,
    MT_TRAIT_NEEDS_FRESH_HEADS = 2,
    MT_TRAIT_NEEDS_OWNER = 4,
    MT_TRAIT_REPORTS_INVALID = 8,
    MT_TRAIT_NO_SAFETY_BELOW = 16,
    MT_TRAIT_WANTS_USABLE = 32,
    MT_TRAIT_ADDS_TAIL = 64,
    MT_TRAIT_LOCK_STAT = 128,
    MT_TRAIT_READS_CALLER = 256
};
#define MT_SAFETY_TAIL_BYTES ((size_t)16)

/* The chain's traits: every layer's, or-ed (defined by MT_COMPOSE); a
 * constant once inlined, so a test of it costs nothing. A layer reads the
 * traits of the layers below it with MT_BELOW_TRAITS() (core/layer.h). */
static inline unsigned mt_chain_traits(void);

/* Report p, owned by no layer, as invalid-free (layer "pagemap", operation
 * op) under the err_handle policy of the lowest layer with
 * MT_TRAIT_REPORTS_INVALID (its NAME_report_unowned); nothing without one.
 * Defined by MT_COMPOSE. */
static void mt_chain_report_invalid(void *p, const char *op);

/* The lock statistics' hooks: every layer's NAME_note_caller and
 * NAME_lock_stat_event (MT_LAYER_OPS_DEFAULTS, core/ops.h), which do
 * something only in a layer with MT_TRAIT_LOCK_STAT; nothing without one. Defined by
 * MT_COMPOSE. note_caller, first thing in every entry point, leaves the
 * program's call site (the entry point's return address) for the locks of
 * this request and attaches the thread on its first request;
 * lock_stat_event runs at fork's prepare (before any lock), parent and
 * child (after the chain), and around a thread's exit (core/thread.h;
 * the events: MT_LOCK_STAT_*, core/platform.h). */
static inline void mt_chain_note_caller(void);
static inline void mt_chain_lock_stat_event(int event);

/* Chain-wide questions a layer asks in its code, each a test of the
 * chain's traits that MT_COMPOSE answers: tentative definitions here, which
 * MT_COMPOSE completes later in the translation unit (0 where nothing
 * composes, as in a layer's unit test). Constants from the start, so the
 * code under a false one is never emitted, and the compiler decides as it
 * would without the question (tests/suites/zero_cost).
 *   mt_chain_wants_usable       MT_TRAIT_WANTS_USABLE: give alloc's hint
 *   mt_chain_wants_fresh_heads  MT_TRAIT_NEEDS_FRESH_HEADS: mt_fresh_head
 *                               clears
 *   mt_chain_tail_bytes         MT_TRAIT_ADDS_TAIL: MT_SAFETY_TAIL_BYTES */
MT_UNUSED static const bool mt_chain_wants_usable;
MT_UNUSED static const bool mt_chain_wants_fresh_heads;
MT_UNUSED static const size_t mt_chain_tail_bytes;

/* A layer with MT_TRAIT_FRESH_HEADS: the block it hands out starts anew. */
MT_INLINE void mt_fresh_head(void *block)
{
    if (mt_chain_wants_fresh_heads)
        ((uintptr_t *)block)[1] = 0;
}

/* Every operation of the contract: MT_LAYER_OPS(X) / MT_FOR_EACH_OP(X, ...)
 * (core/ops.h, the one list). */

/* The end of the chain, below the OS layer (mt_end_op: nothing more can
 * serve anything), is defined by MT_COMPOSE with the links above it. */

/* The composed chain, seen from the socket. Declared here, defined by
 * MT_COMPOSE; a socket used without a composition fails to link. */
#define MT_DECLARE_CHAIN_OP(op) static inline void *mt_chain_##op(mt_ctx *ctx);
MT_LAYER_OPS(MT_DECLARE_CHAIN_OP)
#undef MT_DECLARE_CHAIN_OP
/* The model-language names of the composed instances, OS layer first. */
static inline const char *const *mt_chain_layer_names(size_t *count);

/* Run every layer's create for the calling thread once and arrange for its
 * thread_exit to run when the thread ends. Layers call it on the slow path
 * that sets up their thread-local state. Defined by the socket (core/thread.h,
 * or a no-op for sockets without threads). */
static void mt_thread_attach(void);

/* Call a cold (out-of-line) function that needs the context on a copy of it,
 * then take back the outputs of the operation it serves, so a cold path
 * answers as if it had run inline. The fast path's context then never has
 * its address taken, so the compiler keeps it in registers and drops unused
 * fields: without this every entry point would spill the whole context.
 *   MT_COLD_CALL     alloc, free, resize: err, zeroed and usable.
 *   MT_COLD_GETMETA  getmeta: those and the class hint (szcls, szcls_key).
 * Inputs the cold function changed for the layers below (a rounded size)
 * stay its own, as they would after a layer's `next` call. Each macro takes
 * back exactly its operation's outputs and no more: every further field
 * copied changes the register choice of the fast paths around it, which the
 * zero-cost proof (tests/suites/zero_cost) compares instruction by instruction.
 *     void *p = MT_COLD_CALL(ctx, c, refill(c, index, next));             */
#define MT_COLD_CALL(ctx, copy, call) MT__COLD(ctx, copy, call, MT__TAKE_CALL_OUTPUTS)
#define MT_COLD_GETMETA(ctx, copy, call) MT__COLD(ctx, copy, call, MT__TAKE_GETMETA_OUTPUTS)
#define MT__TAKE_CALL_OUTPUTS(to, from) \
    (to)->err = (from).err;             \
    (to)->zeroed = (from).zeroed;       \
    (to)->usable = (from).usable;
#define MT__TAKE_GETMETA_OUTPUTS(to, from) \
    (to)->err = (from).err;                \
    (to)->usable = (from).usable;          \
    (to)->szcls = (from).szcls;            \
    (to)->szcls_key = (from).szcls_key;
#define MT__COLD(ctx, copy, call, take_outputs) \
    __extension__({                             \
        mt_ctx copy = *(ctx);                   \
        __typeof__(call) mt__result = (call);   \
        take_outputs(ctx, copy) mt__result;     \
    })

/* getmeta asked by a safety layer above on its inline path (ctx->chain,
 * unused by getmeta otherwise): a layer answers only what it can without a
 * call, and returns NULL for anything else; a safety layer below also
 * reports nothing then. The asker asks again, the ordinary way, on its slow
 * path. So no call (and no register kept across one) sits in the asker's
 * inline check. */
#define MT_SAFETY_QUICK ((void *)(uintptr_t)1)

/* An alloc request whose asker would rather repeat it than have a layer
 * below call its cold path (ctx->chain, unused by alloc otherwise): a fast
 * path that misses answers NULL at once (MT_COLD_ALLOC), and the asker
 * repeats the request, chain NULL, out of line. A safety layer's inline
 * alloc then makes no call before its own work on the block, so it keeps
 * nothing in a saved register and needs no stack frame. A layer may answer
 * NULL only where it has changed nothing that a repeat would not find as
 * it left it. It may also leave in ctx->chain a word of its own (an
 * address of its own, never NULL or MT_ALLOC_QUICK) that tells its repeat
 * where to go on (malloc's repeat, mt_socket_malloc_again, passes it in
 * ctx->chain); the layers below take a repeat with any word but
 * MT_ALLOC_QUICK as an ordinary request. */
#define MT_ALLOC_QUICK ((void *)(uintptr_t)3)
#define MT_COLD_ALLOC(ctx, copy, call) \
    ((ctx)->chain == MT_ALLOC_QUICK ? (void *)NULL : MT_COLD_CALL(ctx, copy, call))

MT_INLINE mt_ctx mt_ctx_for_alloc(size_t size, size_t align)
{
    mt_ctx ctx = {0};
    ctx.size = size;
    ctx.align = align;
    ctx.cpu = -1;
    return ctx;
}

#endif

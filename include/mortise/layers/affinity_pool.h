/* affinity_pool — pools of small objects grouped by call chain and
 * affinity (dynamic pool allocation).                  [model: affinity_pool]
 *
 * Serves: small requests (below max_pooled_size, alignment ≤ 16) from pools
 *   of 4 KiB segments, one pool per group of affine objects, so objects a
 *   program reaches one after another lie next to each other whatever order
 *   the program allocated them in; everything else, and every group until it
 *   has made min_objects allocations, goes to the layer below. docs/affinity.md
 *   describes the method; in short:
 *   - a group is the allocation's variable-length call chain: the return
 *     address of the malloc call, then, only while the frame is a wrapper
 *     (a function that just hands memory to its caller: xmalloc, a C++
 *     library's allocate), the return addresses above it, unwound with
 *     libunwind (pal/callchain.h), at most max_chain deep;
 *   - a return address is a wrapper when, among its first 32 allocations,
 *     it was reached from 2 or more calling contexts (the 4 frames above
 *     it) with 2 or more sizes, or
 *     its function's name is a known allocation wrapper (xmalloc,
 *     g_malloc, Xerces' MemoryManagerImpl::allocate, ...) or named in the
 *     wrappers slot or MORTISE_AFFINITY_WRAPPERS (names separated by ':' or
 *     ',', substrings of the symbol name); the verdict is cached per return
 *     address, so a decided direct call site costs one compare;
 *   - when a group reaches min_objects allocations, all of them below
 *     max_pooled_size, its first objects (the address table) are scanned
 *     for aligned words that point at the first objects of other groups:
 *     a pointer between two groups of one size merges them (type I), two
 *     groups of one size pointed at from the same field offset of one
 *     merged group merge too (type II); a merged class shares one pool.
 *     Scans are repeated when a pool doubles; the scanned bytes never exceed
 *     64 KiB plus 1/32 of the bytes the layer has seen allocated.
 *   MORTISE_STATS reports the groups (call chains symbolised with dladdr),
 *   sizes, objects pooled, merges and why, and the wrappers found.
 * Slots:
 *   min_objects=N → MT_MIN_OBJECTS (100): allocations a group makes below
 *     before it is pooled;
 *   max_pooled_size=BYTES → MT_MAX_POOLED_SIZE (128): a group is pooled only
 *     if all its objects are smaller;
 *   segment_size=BYTES → MT_SEGMENT_SIZE (4 KiB): a pool's unit, a power of
 *     two from 1 KiB to the 64 KiB granule;
 *   max_chain=N → MT_MAX_CHAIN (8): the deepest call chain, at most 16;
 *   wrappers=IDENT → MT_WRAPPERS (empty): names of the program's wrapper
 *     functions, separated by ':'.
 * Links: libunwind [links: unwind]; the composition is linked -lunwind.
 * Needs from below: alloc of 64 KiB granule-aligned spans (claimed in the
 *   page map under this layer's id, 16 segments each), free to give a span
 *   back when all its segments are empty; every request it does not pool.
 *   Composed above the caches, directly under the socket: the socket's entry
 *   point must be the function whose return address is the call site (every
 *   operation here is inlined into it).
 * Time: a direct call site decided not pooled: one compare of its return
 *   address with a direct-mapped word, then the call below; decided
 *   pooled: a hash probe in an out-of-line call, the pool's pop under the
 *   pool's spinlock; a wrapper site whose chain is decided: a walk of the
 *   trusted wrapper frames' sizes (one word per frame), the chain's hash and
 *   one memo word, then the pool's pop or the call below; a chain not yet
 *   decided adds a probe per frame and the group's table under the layer's
 *   lock (an unwind by libunwind while frame sizes are learned, 1 walk in
 *   4096 after, and for frames whose size varies); docs/affinity.md counts
 *   the instructions. A group's first min_objects allocations: the slow
 *   path under the layer's lock. A scan: at most 8 objects × 128 bytes, each word one hash probe.
 *   Free of a pooled object: a page-map compare, a push under the pool lock.
 * Space: fixed tables (16384 return addresses, 2048 groups and pools, 4096
 *   spans, 16384 address-table entries, the unpooled sites', trusted frame
 *   sizes' and chain memo's words: zero-filled BSS of which only the used
 *   part is resident); a pool wastes at most its segments'
 *   free room; an empty segment goes back to its span at once, an empty span
 *   to the layer below. When a table is full, requests go below.
 * Thread safety: every operation. Lock order: the layer's state lock, then
 *   a pool's lock, then the spans lock, then the layers below; no lock is
 *   held while unwinding or naming symbols. fork_prepare first waits until
 *   no thread is inside the unwinder or dladdr (the port layer's fork gate,
 *   pal/callchain.h: their own locks would stay held in the child), then
 *   takes the layer's locks in that order (docs/fork.md). A malloc made while this thread
 *   is inside the unwinder (by libunwind itself, or a signal handler) goes
 *   straight below and is counted (NAME_reentries(), expected 0).
 * Fails: never itself; a wrong grouping costs locality, never correctness.
 * Example: mmap_heap::buddy_glk(size_handle=[32768,SIZE_MAX])::slab_lk(size_handle=[0,32768])::thread_cache(size_handle=[0,32768])::affinity_pool::malloc_socket
 */
#include "../core/layer.h"
#include "../pal/callchain.h"
#include "../core/pagemap.h"
#include "../stats/registry.h"

#ifndef MT_NAME
#define MT_NAME affinity_pool
#endif
#ifndef MT_MIN_OBJECTS
#define MT_MIN_OBJECTS 100
#endif
#ifndef MT_MAX_POOLED_SIZE
#define MT_MAX_POOLED_SIZE 128
#endif
#ifndef MT_SEGMENT_SIZE
#define MT_SEGMENT_SIZE ((size_t)4096)
#endif
#ifndef MT_MAX_CHAIN
#define MT_MAX_CHAIN 8
#endif
#ifndef MT_WRAPPERS
#define MT_WRAPPERS
#endif

#include "affinity/types.h"

_Static_assert((MT_SEGMENT_SIZE & (MT_SEGMENT_SIZE - 1)) == 0 && MT_SEGMENT_SIZE >= 1024 &&
                   MT_SEGMENT_SIZE <= MT_GRANULE,
               "affinity_pool: segment_size is a power of two from 1 KiB to the granule");
_Static_assert(MT_MAX_CHAIN >= 1 && MT_MAX_CHAIN <= MT_AFF_CHAIN_CAP, "affinity_pool: max_chain is 1 to 16");
_Static_assert(MT_MAX_POOLED_SIZE >= 16 && MT_MAX_POOLED_SIZE <= 1024,
               "affinity_pool: max_pooled_size is 16 to 1024 bytes");

MT_DECLARE_BELOW(alloc)
MT_DECLARE_BELOW(free)

/* Pools' spans are claimed in the page map under this id, so a free finds
 * its pool with one compare, like a trunk's. */
enum { MT_SELF(id) = MT_NEW_LAYER_ID };
#define MT_SELF_ID MT_SELF(id)

#include "affinity/state.h"    /* the tables and the locks */
#include "affinity/pools.h"    /* spans, segments, pool alloc and free */
#include "affinity/sites.h"    /* return addresses, wrappers, call chains */
#include "affinity/analysis.h" /* address table, scans, type I and II merges */
#include "affinity/decide.h"   /* a group's first objects, its pool */
#include "affinity/report.h"   /* MORTISE_STATS, invariants */

/* Everything but a decided unpooled site runs out of line with its three
 * scalars in registers: the hit path of the layers below keeps running
 * without a stack frame (docs/affinity.md counts the instructions). A NULL
 * from there is ENOMEM, and calloc clears pooled and fresh blocks alike. */
MT_NOINLINE_HOT void *MT_SELF(alloc_other)(size_t size, size_t align, uintptr_t ra)
{
    mt_aff_site *s = &MT_SELF(state).site[mt_aff_site_hash(ra)];
    uintptr_t fast = mt_load_acquire(&s->fast);
    if (MT_LIKELY(fast > MT_AFF_PLAIN && mt_load_relaxed(&s->ra) == ra)) {
        mt_aff_pool *pool = (mt_aff_pool *)fast;
        if (MT_LIKELY(size <= pool->size && align <= MT_MIN_ALIGN)) {
            void *p = MT_SELF(pool_pop)(pool);
            if (MT_LIKELY(p != NULL))
                return p;
        }
    }
    /* where the walk of wrapper frames starts: this frame's stack pointer,
     * at a fixed distance from the caller's caller for each call site */
    uintptr_t my_sp = 0; /* 0: no walk, the slow path unwinds */
#if MT_AFF_FRAME_WALK
    __asm__ volatile("mov %%rsp, %0" : "=r"(my_sp));
#endif
    uintptr_t entry = (uintptr_t)__builtin_return_address(0);
    if (fast == MT_AFF_SLOW && my_sp && size < MT_MAX_POOLED_SIZE && align <= MT_MIN_ALIGN &&
        mt_load_relaxed(&s->kind) == MT_AFF_WRAPPER && mt_load_relaxed(&s->ra) == ra) {
        /* a wrapper: its decided chains need neither the slow path nor its
         * lock; one walk in MT_AFF_RECHECK takes the slow path, which
         * re-unwinds it (its own tick lands on the multiple) */
        _Atomic(intptr_t) *slot = MT_SELF(entry_slot)(entry);
        intptr_t delta = slot ? mt_load_relaxed(slot) : -1;
        uint64_t code = 0;
        if (delta > 0 && ++MT_SELF(walk_tick) % MT_AFF_RECHECK)
            code = MT_SELF(memo_walk)(ra, my_sp + (uintptr_t)delta);
        else if (delta > 0)
            MT_SELF(walk_tick)--;
        if (code) {
            MT_SELF(memo_hits_here)++;
            if (code == MT_AFF_MEMO_BELOW) {
                mt_ctx below = mt_ctx_for_alloc(size, align);
                return MT_BELOW(alloc)(&below);
            }
            mt_aff_pool *pool = &MT_SELF(state).pool[code - 2];
            void *p = size <= pool->size ? MT_SELF(pool_pop)(pool) : NULL;
            if (MT_LIKELY(p != NULL))
                return p;
        }
    }
    mt_ctx ctx = mt_ctx_for_alloc(size, align);
    return MT_SELF(alloc_slow)(&ctx, ra, my_sp, entry, MT_BELOW(alloc));
}

#define MT_IMPLEMENTS_alloc
MT_INLINE void *MT_SELF(alloc)(mt_ctx *ctx, mt_lfunc *next)
{
    uintptr_t ra = (uintptr_t)__builtin_return_address(0);
    if (MT_LIKELY(mt_load_relaxed(&MT_SELF(plain)[mt_aff_plain_slot(ra)]) == ra))
        return next(ctx);
    return MT_SELF(alloc_other)(ctx->size, ctx->align, ra);
}

#define MT_IMPLEMENTS_free
MT_INLINE void *MT_SELF(free)(mt_ctx *ctx, mt_lfunc *next)
{
    if (MT_NOT_MINE(ctx, MT_SELF_ID))
        return next(ctx);
    MT_SELF(pool_free)(ctx->ptr);
    return NULL;
}

#define MT_IMPLEMENTS_getmeta
MT_INLINE void *MT_SELF(getmeta)(mt_ctx *ctx, mt_lfunc *next)
{
    if (MT_NOT_MINE(ctx, MT_SELF_ID))
        return next(ctx);
    size_t usable = MT_SELF(pool_usable)(ctx->ptr);
    if (!usable)
        return NULL;
    ctx->usable = usable;
    ctx->szcls_key = 0;
    return ctx->ptr;
}

/* A pooled object keeps its slot while the new size fits; else the socket
 * moves it (a NULL answer). */
#define MT_IMPLEMENTS_resize
MT_INLINE void *MT_SELF(resize)(mt_ctx *ctx, mt_lfunc *next)
{
    if (MT_NOT_MINE(ctx, MT_SELF_ID))
        return next(ctx);
    size_t usable = MT_SELF(pool_usable)(ctx->ptr);
    return usable && ctx->size <= usable ? ctx->ptr : NULL;
}

/* Fork: first no thread inside the unwinder (its locks are not ours to
 * take; a malloc made from inside it goes below, whose locks are still
 * free), then every lock of the layer, then the layers below. */
#define MT_IMPLEMENTS_fork_prepare
MT_INLINE void *MT_SELF(fork_prepare)(mt_ctx *ctx, mt_lfunc *next)
{
    mt_pal_callchain_fork_prepare();
    MT_SELF(lock_all)();
    return next(ctx);
}

#define MT_IMPLEMENTS_fork_parent
MT_INLINE void *MT_SELF(fork_parent)(mt_ctx *ctx, mt_lfunc *next)
{
    next(ctx);
    MT_SELF(unlock_all)();
    mt_pal_callchain_fork_parent();
    return NULL;
}

#define MT_IMPLEMENTS_fork_child
MT_INLINE void *MT_SELF(fork_child)(mt_ctx *ctx, mt_lfunc *next)
{
    next(ctx);
    MT_SELF(reset_locks)();
    mt_pal_callchain_fork_child();
    return NULL;
}

#define MT_HAS_INVARIANTS /* check: the pools and spans, then the layers below */

#undef MT_MIN_OBJECTS
#undef MT_MAX_POOLED_SIZE
#undef MT_SEGMENT_SIZE
#undef MT_MAX_CHAIN
#undef MT_WRAPPERS
#include "../core/layer_end.h"

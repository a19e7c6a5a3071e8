/* affinity_pool — pools of small objects grouped by call chain and
 * affinity (dynamic pool allocation).
 *
 * Serves: small requests (below max_pooled_size, alignment ≤ 16) from pools
 *   of 4 KiB segments, one pool per group of affine objects (each thread
 *   allocating from segments of its own), so objects a program reaches one
 *   after another lie next to each other whatever order the program
 *   allocated them in; everything else, and every group until it
 *   has made min_objects allocations, goes to the layer below. docs/affinity.md
 *   describes the method; in short:
 *   - a group is the allocation's variable-length call chain: the return
 *     address of the malloc call, then, only while the frame is a wrapper
 *     (a function that just hands memory to its caller: xmalloc, a C++
 *     library's allocate), the return addresses above it, unwound with
 *     the toolchain's DWARF unwinder (pal/callchain.h), at most max_chain
 *     deep;
 *   - a return address is a wrapper when, among 16 of its allocations
 *     (watched as sites.h says), it was reached from 2 or more calling contexts (the 4 frames above
 *     it) with 2 or more sizes (8 of one size make it direct), or
 *     its function's name is a known allocation wrapper (xmalloc,
 *     g_malloc, Xerces' MemoryManagerImpl::allocate, ...) or named in the
 *     wrappers slot or MORTISE_AFFINITY_WRAPPERS (names separated by ':' or
 *     ',', substrings of the symbol name; looked up with dladdr at the
 *     return address's second allocation); the verdict is cached per return
 *     address, so a decided direct call site costs one compare;
 *   - when a group reaches min_objects allocations, all of them below
 *     max_pooled_size and close enough in size to share one slot (slots
 *     of the largest size take at most a quarter more than the objects'
 *     own sizes, each rounded to 16), its first objects (the address table)
 *     are scanned for aligned words that point at the first objects of
 *     other groups or at any object of a pool (found through the page map):
 *     a pointer between two groups of one size merges them (type I), two
 *     groups of one size pointed at from the same field offset of one
 *     merged group merge too (type II); a merged class shares one pool.
 *     The scanned bytes never exceed 64 KiB plus 1/32 of the bytes the
 *     layer has seen allocated;
 *   - a pool that has lived 8 rechecks (1 in 4096 of a thread's wrapper
 *     chains is unwound again: a recheck) and never held more than 16 KiB
 *     is retired: its class goes below from then on (such a live
 *     footprint stays in the caches in any layout, so the pool saves
 *     nothing, and its chains' walks would cost every malloc), and so
 *     does every wrapper left with no pooled chain (one compare, like a
 *     direct site);
 *   - a wrapper chain whose walk stops at a site still learning goes below
 *     ungrouped until that site has been reached 64 times (the walks note
 *     its sizes: one size makes it direct then), then is unwound (and the
 *     site learns from it) 1 time in 4: a chain through a site that
 *     allocates less could never reach min_objects anyway;
 *   - pools share 64 KiB spans: a pool's next segment follows its last one
 *     when that is free, else starts a run of 4 from an offset hashed from
 *     the pool and the span, so no pool keeps the same offsets in every
 *     span (the sets of an address-indexed cache); a pool that has placed
 *     a span's worth of segments starts each run in a span of its own.
 *   MORTISE_STATS reports the groups (call chains symbolised with dladdr),
 *   sizes, objects pooled, merges and why, the pools (their peak and
 *   whether retired), the wrappers found, and its counters (unwinds,
 *   scans skipped, requests left below for a full table).
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
 * Links: nothing beyond libc: the unwinder is the toolchain's (libgcc_s,
 *   which every program links; pal/callchain.h).
 * Needs from below: alloc of 64 KiB granule-aligned spans (claimed in the
 *   page map under this layer's id, 16 segments each), free to give a span
 *   back when all its segments are empty; every request it does not pool.
 *   Composed above the caches, directly under the socket: the socket's entry
 *   point must be the function whose return address is the call site (every
 *   operation here is inlined into it).
 * Time: a direct call site decided not pooled: one compare of its return
 *   address with a direct-mapped word, then the call below; decided
 *   pooled: the same word compared with the address's complement, the
 *   pool read next to it, inline, then a pop of the thread's current segment of that
 *   pool (no lock, no atomic operation); a wrapper site whose chain is
 *   decided and in the thread's wrapper cache: the wrapper's trusted frame
 *   size (one word), its caller's return address read above that frame,
 *   one cache entry keyed by the two, then the same pop or the call below
 *   (inline on gcc for a chain of two frames, a wrapper called from a
 *   direct site: xmalloc's or operator new's caller; out of line, one
 *   word per frame and up to 4 ways compared, for deeper chains and a
 *   two-frame chain whose first way another holds). The key is exact:
 *   an entry holds a whole chain the memo decided, which ends at a
 *   decided direct site (whose kind never changes, so no chain through it
 *   goes further) or at max_chain, and matches only when every frame it
 *   holds is read again, as deep. A decided chain not in the cache: a
 *   walk of the trusted wrapper frames' sizes (one word per frame), the
 *   chain's hash and one memo word, then the same pop or the call below,
 *   and the cache filled; a chain not yet decided adds a probe per frame and the
 *   group's table under the layer's lock (an unwind while
 *   frame sizes are learned, 1 walk or cache hit in 4096 after, and for
 *   frames whose size varies); docs/affinity.md counts the instructions. A group's
 *   first min_objects allocations: the slow path under the layer's lock. A
 *   scan: at most 8 objects × 128 bytes, each word one hash probe. A
 *   thread's current segment running dry: its remote frees taken (one
 *   exchange, a walk of what it took), else at most MT_AFF_LOOK of the
 *   thread's other segments of the pool looked at, then as many abandoned
 *   ones (the pool's lock), then a fresh segment (the spans lock) threaded
 *   into a free list.
 *   Free of a pooled object: a page-map compare, the segment's header at a
 *   fixed place in its span's record; by the segment's owner a push on its
 *   free list and a count (a call when the segment empties or had no free
 *   object); by another thread a compare-and-swap push on its remote
 *   stack; into a segment abandoned by an ended thread, under the pool's
 *   lock. thread_exit: O(the thread's segments).
 * Space: fixed tables (16384 return addresses, 2048 groups, 128 pools,
 *   32768 spans (2 GiB of pools; 4096 where addresses have 32 bits) and
 *   their segments' 64-byte headers, 16384 address-table
 *   entries, the unpooled and pooled sites', trusted frame sizes' and chain
 *   memo's words: zero-filled BSS of which only the used part is
 *   resident); 6 KiB of TLS per thread (two words per pool, 64 wrapper
 *   cache entries of a cache line each); a pool wastes
 *   at most its segments' free room, in each thread that allocates from
 *   it, and, past a span's worth, the reserved segments of its last span
 *   (taken from below, never touched by the layer); a segment's objects
 *   fill it (its header is out of band); a segment
 *   that is not its thread's current one goes back to its span when its
 *   owner empties it, an abandoned one when its last object is freed, an
 *   empty span to the layer below. Objects freed by other threads wait on
 *   their segment's remote stack until the owner looks at it. When a table
 *   is full, requests go below.
 * Thread safety: every operation. A segment belongs to one thread at a
 *   time: it alone touches its free list and count; other threads push
 *   onto its remote stack with a compare-and-swap. At thread_exit the
 *   thread's empty segments go back and the others are abandoned to their
 *   pools (frees into them take the pool's lock; a thread that runs dry
 *   adopts them, first come first served). Lock order: the layer's state
 *   lock, then a pool's lock, then the spans lock, then the layers below;
 *   no lock is held while unwinding or naming symbols. fork_prepare first
 *   waits until no thread is inside the unwinder or dladdr (the port
 *   layer's fork gate, pal/callchain.h: their own locks would stay held in
 *   the child), then takes the layer's locks in that order (docs/fork.md);
 *   the child keeps the other threads' segments as they were (frees into
 *   them go on their remote stacks, their room is not reused). A malloc
 *   made while this thread is inside the unwinder (by the unwinder itself,
 *   or a signal handler) goes straight below and is counted
 *   (NAME_reentries(), expected 0). A thread's wrapper cache is its own:
 *   an entry's address is cleared first and written last, so a signal
 *   handler's malloc on the thread never matches half an entry; a fork
 *   child keeps the forking thread's entries (the pools and frame sizes
 *   they rely on are the parent's as well).
 * Fails: never itself; a wrong grouping costs locality, never correctness.
 *   A pointer into a pooled segment that is not an object start is
 *   ignored by free, whichever thread frees it (one multiply on the owner's
 *   path), and has no usable size (realloc and malloc_usable_size refuse it).
 * Example: mmap_heap::buddy_glk(size_handle=[32768,SIZE_MAX])::slab_lk(size_handle=[0,32768])::thread_cache(size_handle=[0,32768])::affinity_pool::malloc_socket
 */
/* The layer's descriptor (core/describe.h): the data tools/describe_layers.py
 * reads and core/layer_end.h checks the slots against. */
#define MT_DESCRIPTOR_affinity_pool(LAYER, SLOT)                                                           \
    LAYER(affinity_pool, addon, MT_TRAIT_READS_CALLER, (), ())                                             \
    MT_OPS(SLOT, create, alloc, free, getmeta, resize, thread_exit, fork_prepare, fork_parent, fork_child) \
    SLOT(min_objects, MT_MIN_OBJECTS, N, 100, (1, SIZE_MAX), ())                                           \
    SLOT(max_pooled_size, MT_MAX_POOLED_SIZE, BYTES, 128, (16, 1024), ())                                  \
    SLOT(segment_size, MT_SEGMENT_SIZE, BYTES, 4 << 10, (1024, 64 << 10), ())                              \
    SLOT(max_chain, MT_MAX_CHAIN, N, 8, (1, 16), ())                                                       \
    SLOT(wrappers, MT_WRAPPERS, IDENT, empty, (), ())
#ifndef MT_DESCRIBE /* describe mode reads the descriptor alone */
#include "../core/layer.h"
#include "../pal/callchain.h"
#include "../core/pagemap.h"
#include "../stats/registry.h"

#ifdef MT_NAME /* another instance name: the names below become its own */
#include "../names/affinity_pool.h"
#else
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

MT_DECLARE_BELOW(alloc);
MT_DECLARE_BELOW(free);

/* Pools' spans are claimed in the page map under this id, so a free finds
 * its pool with one compare, like a trunk's. */
enum { affinity_pool_id = MT_NEW_LAYER_ID };
#define MT_SELF_ID MT_SELF(id)

#include "affinity/state.h"    /* the tables and the locks */
#include "affinity/pools.h"    /* spans, segments, pool alloc and free */
#include "affinity/sites.h"    /* return addresses, wrappers, call chains */
#include "affinity/analysis.h" /* address table, scans, type I and II merges */
#include "affinity/decide.h"   /* a group's first objects, its pool */
#include "affinity/report.h"   /* MORTISE_STATS, invariants */

/* Everything but a decided unpooled site (and a wrapper chain in the
 * thread's cache, on gcc) runs out of line with its scalars in registers:
 * the hit path of the layers below keeps running without a stack frame
 * (docs/affinity.md counts the instructions). A NULL from there is ENOMEM,
 * and calloc clears pooled and fresh blocks alike. alloc_walk: what the
 * wrapper cache missed; my_sp and entry are alloc_other's stack pointer
 * and return address (the walk of wrapper frames starts at a fixed
 * distance from them), cfa the socket entry point's frame address when
 * its caller looked the cache up with it (0 else). */
MT_NOINLINE_HOT void *affinity_pool_alloc_walk(size_t size, size_t align, uintptr_t ra, uintptr_t my_sp,
                                               uintptr_t entry, uintptr_t cfa)
{
    mt_aff_site *s = &affinity_pool_state.site[mt_aff_site_hash(ra)];
    uintptr_t fast = mt_load_acquire(&s->fast);
    if (MT_LIKELY(fast > MT_AFF_PLAIN && mt_load_relaxed(&s->ra) == ra)) {
        mt_aff_pool *pool = (mt_aff_pool *)fast;
        if (MT_LIKELY(size <= pool->size && align <= MT_MIN_ALIGN)) {
            affinity_pool_mark_pooled(s, pool); /* its fast-path entry was taken */
            void *p = affinity_pool_pool_pop(pool);
            if (MT_LIKELY(p != NULL))
                return p;
        }
    }
    if (fast == MT_AFF_SLOW && my_sp && size < MT_MAX_POOLED_SIZE && align <= MT_MIN_ALIGN &&
        mt_load_relaxed(&s->kind) == MT_AFF_WRAPPER && mt_load_relaxed(&s->ra) == ra) {
        /* a wrapper: its decided chains need neither the slow path nor its
         * lock; one walk in MT_AFF_RECHECK takes the slow path, which
         * re-unwinds it (its own tick lands on the multiple) */
        _Atomic(intptr_t) *slot = affinity_pool_entry_slot(entry);
        intptr_t delta = slot ? mt_load_relaxed(slot) : -1;
        uint64_t code = 0;
        uintptr_t chain[MT_AFF_CHAIN_CAP];
        uint32_t depth = 0;
        if (delta > 0 && ++affinity_pool_wt.tick % MT_AFF_RECHECK)
            code = affinity_pool_memo_walk(ra, my_sp + (uintptr_t)delta, chain, &depth);
        else if (delta > 0)
            affinity_pool_wt.tick--;
        if (code) {
            affinity_pool_wt.hits++;
            /* the inline lookup reads from the entry point's frame
             * address: keep the chain only where it is the walk's start */
            if (!MT_AFF_WC_INLINE || cfa == my_sp + (uintptr_t)delta)
                affinity_pool_wc_fill(chain, depth, code);
            if (code == MT_AFF_MEMO_BELOW) {
                mt_ctx below = mt_ctx_for_alloc(size, align);
                return MT_BELOW(alloc)(&below);
            }
            mt_aff_pool *pool = &affinity_pool_state.pool[code - 2];
            void *p = size <= pool->size ? affinity_pool_pool_pop(pool) : NULL;
            if (MT_LIKELY(p != NULL))
                return p;
        }
    }
    mt_ctx ctx = mt_ctx_for_alloc(size, align);
    return affinity_pool_alloc_slow(&ctx, ra, my_sp, entry, MT_BELOW(alloc));
}

#if MT_AFF_FRAME_WALK
/* A wrapper chain the cache sends below, or a wrapper's request too big to pool. */
MT_NOINLINE_HOT void *affinity_pool_alloc_below(size_t size, size_t align)
{
    mt_ctx below = mt_ctx_for_alloc(size, align);
    return MT_BELOW(alloc)(&below);
}
#endif

/* The object a wrapper cache entry's decision gives, or NULL (a segment
 * run dry, a request that does not fit: the walk's path). A hit counts
 * down to the next recheck: the one that reaches it takes the walk's path
 * (alloc_other), so one chain in MT_AFF_RECHECK is still unwound and
 * compared. */
MT_INLINE void *affinity_pool_wc_pop(const mt_aff_wc *c, size_t size, size_t align)
{
    mt_aff_seg *h = affinity_pool_cur_of(c->word);
    void *p = h->free;
    if (MT_LIKELY(p != NULL && size <= h->size && align <= MT_MIN_ALIGN && --affinity_pool_wt.left)) {
        h->free = *(void **)p;
        return p;
    }
    return NULL;
}

/* The miss of the inline lookup (or, without it, the lookup): a wrapper
 * whose frame size is trusted has its caller's return address in the word
 * just below its stack pointer plus that size (the walk's rule); the
 * thread's wrapper cache, keyed by the two, holds chains the memo decided
 * (layers/affinity/sites.h), so a hit skips the walk, the chain's hash and
 * the memo. Without the entry point's frame address (cfa 0) the wrapper's
 * stack pointer is found at the distance learned for the socket entry
 * point that called here. Everything else: alloc_walk. */
MT_NOINLINE_HOT void *affinity_pool_alloc_other(size_t size, size_t align, uintptr_t ra, uintptr_t cfa)
{
    uintptr_t my_sp = 0; /* 0: no walk, the slow path unwinds */
    uintptr_t entry = (uintptr_t)__builtin_return_address(0);
#if MT_AFF_FRAME_WALK
    /* a wrapper's request too big for any pool: the slow path would send
     * it below uncounted, after the cache, the walk and the memo had missed
     * (a site its probes placed elsewhere takes that way still) */
    if (size >= MT_MAX_POOLED_SIZE) {
        const mt_aff_site *s = &affinity_pool_state.site[mt_aff_site_hash(ra)];
        if (mt_load_relaxed(&s->kind) == MT_AFF_WRAPPER && mt_load_relaxed(&s->ra) == ra)
            return affinity_pool_alloc_below(size, align);
    }
    __asm__ volatile("mov %%rsp, %0" : "=r"(my_sp));
    uintptr_t sp = cfa;
    for (unsigned k = 0; !MT_AFF_WC_INLINE && k < MT_AFF_ENTRIES; k++) {
        uintptr_t e = mt_load_relaxed(&affinity_pool_state.entry[k]);
        if (e == entry) {
            intptr_t delta = mt_load_relaxed(&affinity_pool_state.entry_delta[k]);
            sp = delta > 0 ? my_sp + (uintptr_t)delta : 0;
        }
        if (!e || e == entry)
            break;
    }
    if (sp && affinity_pool_wt.left) {
        const mt_aff_wc *c = affinity_pool_wc_find(ra, sp);
        if (c && c->word == MT_AFF_WC_BELOW && --affinity_pool_wt.left)
            return affinity_pool_alloc_below(size, align);
        void *p = c && c->word != MT_AFF_WC_BELOW ? affinity_pool_wc_pop(c, size, align) : NULL;
        if (p)
            return p;
    }
    if (MT_UNLIKELY(!affinity_pool_wt.left)) {
        /* RECHECK cache hits since the last (counted down here or inline):
         * this walk is the recheck (the walk's tick lands on the multiple) */
        affinity_pool_wt.left = MT_AFF_RECHECK;
        affinity_pool_wt.hits += MT_AFF_RECHECK;
        affinity_pool_wt.tick |= MT_AFF_RECHECK - 1;
    }
#endif
    return affinity_pool_alloc_walk(size, align, ra, my_sp, entry, cfa);
}

/* A request the socket asked quick (core/ctx.h) that the inline path does
 * not serve answers NULL, and the socket repeats it out of line: what the
 * inline path counted down for it is given back first, so the repeat finds
 * the thread's counts as they were (the only count it may have taken is
 * the recheck's last, left from 1 to 0), and the repeat is told to go
 * straight to alloc_other, past the lookups that just missed. */
#define MT_AFF_RESUME_OTHER ((void *)&affinity_pool_state)
MT_INLINE void *affinity_pool_quick_miss(mt_ctx *ctx)
{
    if (!affinity_pool_wt.left)
        affinity_pool_wt.left = 1;
    ctx->chain = MT_AFF_RESUME_OTHER;
    return NULL;
}

/* A wrapper chain the thread's cache sends below, its hit counted: a quick
 * miss below gives the count back for the repeat. */
MT_INLINE void *affinity_pool_wc_below(mt_ctx *ctx, mt_lfunc *next)
{
    void *p = next(ctx);
    if (ctx->chain == MT_ALLOC_QUICK && MT_UNLIKELY(p == NULL))
        affinity_pool_wt.left++;
    return p;
}

/* The fast path, inlined into the socket's entry point: a return address
 * decided unpooled is one compare with its row's first word; one decided
 * pooled (its complement in that word) finds its pool in the row's second
 * word and pops the thread's current segment of that pool (the size check
 * against the segment also refuses the empty `none`); with
 * gcc on x86-64, a trusted wrapper's two-frame chain in the thread's
 * wrapper cache pops its pool's segment the same way, or goes below. The
 * call site is the entry point's return address, or the word below
 * ctx->caller_cfa when the socket runs the request out of line
 * (MT_TRAIT_READS_CALLER, x86-64). */
#define MT_IMPLEMENTS_alloc
MT_INLINE void *affinity_pool_alloc(mt_ctx *ctx, mt_lfunc *next)
{
    uintptr_t ra = ctx->caller_cfa ? *(const uintptr_t *)(ctx->caller_cfa - sizeof(uintptr_t))
                                   : (uintptr_t)__builtin_return_address(0);
    if (ctx->chain == MT_AFF_RESUME_OTHER)
        return affinity_pool_alloc_other(ctx->size, ctx->align, ra, MT_AFF_WC_INLINE ? ctx->caller_cfa : 0);
    uintptr_t slot = mt_aff_plain_slot(ra);
    /* the row's two words from one base register: gcc would load the
     * table's address again for the second */
    _Atomic(uintptr_t) *fast = MT_SELF(fast);
    __asm__("" : "+r"(fast));
    uintptr_t site = mt_load_relaxed(&fast[slot]);
    if (MT_LIKELY(site == ra))
        return next(ctx);
    if (MT_LIKELY((site ^ ra) == ~(uintptr_t)0 && ctx->align <= MT_MIN_ALIGN)) {
        mt_aff_seg *h = affinity_pool_cur_of(mt_load_relaxed(&fast[slot + 1]));
        void *p = h->free;
        if (MT_LIKELY(p != NULL && ctx->size <= h->size)) {
            h->free = *(void **)p;
            return p;
        }
    }
    uintptr_t cfa = 0;
#if MT_AFF_WC_INLINE
    _Static_assert(MT_AFF_WRAP_BITS == MT_AFF_PLAIN_BITS, "one row for the plain and the walk's tables");
    cfa = ctx->caller_cfa ? ctx->caller_cfa : (uintptr_t)__builtin_dwarf_cfa();
    uint64_t w = mt_load_relaxed(&affinity_pool_wrap[slot / MT_AFF_ROW]);
    if (w >> 16 == (uint64_t)ra) {
        uintptr_t caller = *(const uintptr_t *)(cfa + (uintptr_t)(w & 0xffff) - sizeof(uintptr_t));
        const mt_aff_wc *c = &affinity_pool_wt.e[mt_aff_wc_slot(ra, caller)];
        if (c->ra == ra && c->caller == caller) {
            if (c->word == MT_AFF_WC_BELOW) {
                if (MT_LIKELY(--affinity_pool_wt.left))
                    return affinity_pool_wc_below(ctx, next);
            } else {
                void *p = affinity_pool_wc_pop(c, ctx->size, ctx->align);
                if (MT_LIKELY(p != NULL))
                    return p;
            }
        }
    }
#endif
    if (ctx->chain == MT_ALLOC_QUICK)
        return affinity_pool_quick_miss(ctx);
    return affinity_pool_alloc_other(ctx->size, ctx->align, ra, cfa);
}

#define MT_IMPLEMENTS_free
MT_INLINE void *affinity_pool_free(mt_ctx *ctx, mt_lfunc *next)
{
    if (MT_NOT_MINE(ctx, MT_SELF_ID))
        return next(ctx);
    affinity_pool_pool_free(ctx->ptr, ctx->meta);
    return NULL;
}

#define MT_IMPLEMENTS_getmeta
MT_INLINE void *affinity_pool_getmeta(mt_ctx *ctx, mt_lfunc *next)
{
    if (MT_NOT_MINE(ctx, MT_SELF_ID))
        return next(ctx);
    size_t usable = affinity_pool_pool_usable(ctx->ptr, ctx->meta);
    if (!usable)
        return NULL;
    ctx->usable = usable;
    ctx->szcls_key = 0;
    return ctx->ptr;
}

/* A pooled object keeps its slot while the new size fits; else the socket
 * moves it (a NULL answer). */
#define MT_IMPLEMENTS_resize
MT_INLINE void *affinity_pool_resize(mt_ctx *ctx, mt_lfunc *next)
{
    if (MT_NOT_MINE(ctx, MT_SELF_ID))
        return next(ctx);
    size_t usable = affinity_pool_pool_usable(ctx->ptr, ctx->meta);
    return usable && ctx->size <= usable ? ctx->ptr : NULL;
}

#define MT_IMPLEMENTS_create
MT_INLINE void *affinity_pool_create(mt_ctx *ctx, mt_lfunc *next)
{
    if (affinity_pool_tl.state == affinity_pool_tl_new)
        affinity_pool_begin();
    return next(ctx);
}

#define MT_IMPLEMENTS_thread_exit
MT_INLINE void *affinity_pool_thread_exit(mt_ctx *ctx, mt_lfunc *next)
{
    affinity_pool_abandon_all();
    return next(ctx);
}

/* Fork: first no thread inside the unwinder (its locks are not ours to
 * take; a malloc made from inside it goes below, whose locks are still
 * free), then every lock of the layer, then the layers below. */
#define MT_IMPLEMENTS_fork_prepare
MT_INLINE void *affinity_pool_fork_prepare(mt_ctx *ctx, mt_lfunc *next)
{
    mt_pal_callchain_fork_prepare();
    affinity_pool_lock_all();
    return next(ctx);
}

#define MT_IMPLEMENTS_fork_parent
MT_INLINE void *affinity_pool_fork_parent(mt_ctx *ctx, mt_lfunc *next)
{
    next(ctx);
    affinity_pool_unlock_all();
    mt_pal_callchain_fork_parent();
    return NULL;
}

#define MT_IMPLEMENTS_fork_child
MT_INLINE void *affinity_pool_fork_child(mt_ctx *ctx, mt_lfunc *next)
{
    next(ctx);
    affinity_pool_reset_locks();
    mt_pal_callchain_fork_child();
    return NULL;
}

#define MT_HAS_INVARIANTS /* check: the pools and spans, then the layers below */

#define MT_DESCRIPTOR MT_DESCRIPTOR_affinity_pool
#include "../core/layer_end.h"
#undef MT_MIN_OBJECTS
#undef MT_MAX_POOLED_SIZE
#undef MT_SEGMENT_SIZE
#undef MT_MAX_CHAIN
#undef MT_WRAPPERS
#ifdef MT_NAMES_affinity_pool
#include "../names/affinity_pool.h" /* forget them */
#endif
#endif /* MT_DESCRIBE */

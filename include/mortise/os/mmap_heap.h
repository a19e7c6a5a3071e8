/* mmap_heap — OS-interface layer over POSIX mmap.
 *
 * Serves: any size, in whole granules (64 KiB) aligned to 64 KiB or to the
 *   requested alignment if larger. Memory it returns is zero-filled
 *   (ctx->zeroed is set to the block) unless it is a large block reused from
 *   the keep (below). It is the last layer of every chain it heads, so it
 *   serves what no trunk layer took.
 * Slots (model language → macro, default):
 *   faa_heap_growth=0|1 → MT_FAA_HEAP_GROWTH (0): carve chunks from one large
 *     reserved arena by an atomic fetch-and-add instead of one mmap per chunk.
 *   threadlocal_heap_size=BYTES → MT_THREADLOCAL_HEAP_SIZE (0 = off): each thread
 *     carves chunks from its own reserved region of this size without any
 *     synchronisation; an exiting thread's remainder is adopted by the next.
 *   huge_page=0|1 → MT_HUGE_PAGE (0): ask for transparent huge pages
 *     (madvise) where memory is dense. With threadlocal_heap_size: only for
 *     the 2 MiB units of a thread's region that hold dense chunks (see
 *     "Dense and sparse chunks"), and only once the thread has carved 2 MiB of
 *     them; otherwise for every reservation, as the slot always did.
 *   sync=POLICY → MT_SYNC (spinlock): guards the chunk cache and region lists
 *     (and, a lock of its own, the keep).
 *   large_keep=BYTES → MT_LARGE_KEEP (96 MiB; 0 = off): freed blocks of
 *     64 KiB (MT_LARGE_KEEP_MIN: any) up to this size keep their pages, up to this
 *     many bytes in all, and serve later requests that fit without a page
 *     fault (os/large_keep.h: best fit, split and merge, bounded waste).
 *   large_decay_ms=N → MT_LARGE_DECAY_MS (1000; 0 = no limit): a kept block
 *     unused this long goes back to the OS (checked on the OS layer's slow
 *     paths); malloc_trim gives back every kept block at once.
 * Reuse and return: a freed block the keep does not take (too small, too
 *   large, or pushed out by newer ones: least recently freed first) goes on
 *   as follows: a freed chunk of up to MT_MMAP_CACHE_GRANULES (4 MiB) has
 *   its pages given back at once (MADV_DONTNEED, so RSS falls) and its address
 *   range kept for reuse by size; larger blocks are unmapped. The free-range
 *   lists live in the page map itself (entries with owner 0), so keeping a free
 *   range costs no resident memory. resize grows a large block by an eighth
 *   or more into a kept block that fits (the socket copies it there: pages
 *   already resident cost less to copy into than a fresh tail costs in
 *   faults), else with mremap;
 *   and a request longer than every kept block grows the longest kept block
 *   mapped on its own (above 4 MiB) with mremap, so only its tail faults
 *   (os/large_keep.h, MT_OS_GROWS).
 * Dense and sparse chunks (threadlocal_heap_size): a chunk of at most
 *   MT_MMAP_DENSE_CHUNK (64 KiB: a slab of small blocks, a heap record) is
 *   dense — the layer above writes its blocks one after the other — and is
 *   carved from the bottom of the region upward; a longer chunk (a span of
 *   large blocks, whose pages the program may never touch) is carved from the
 *   top downward. A thread's first 2 MiB of dense chunks get normal pages (a
 *   small thread never pays a 2 MiB page); after that, each 2 MiB unit the
 *   dense cursor opens is advised MADV_HUGEPAGE before anything in it is
 *   touched (one madvise per 2 MiB of slabs, outside any lock). Sparse chunks
 *   get no huge pages (only where the two cursors meet may one share a unit
 *   the dense side advised): a huge page would make every untouched page of a
 *   large block resident (malloc_test at 64 KiB: 2 MiB of RSS per 64 KiB
 *   block touched once, and a 2 MiB clearing per fault).
 * Page map: defines the composition's page map (two-level radix, see
 *   core/pagemap_radix.h) and mt_os_stats_read.
 * Time: O(1) per chunk plus one system call when a chunk is fresh or freed
 *   (and one madvise per 2 MiB of dense chunks with huge_page=1);
 *   O(granules) page-map writes; a large block kept or reused: O(32 kept
 *   blocks) under the keep's lock and no system call (a kept block grown:
 *   up to three, outside the lock). Thread safety: all
 *   operations; the chunk cache takes one lock (MT_SYNC), thread-local carving
 *   none, the keep its own (taken for every chunk freed or asked for, and
 *   briefly on other slow paths once a kept block is due to decay).
 * Space: at most large_keep bytes of freed blocks stay resident; one unused
 *   for large_decay_ms goes back at the next large free or the next request
 *   the keep does not serve.
 * Fails: returns NULL with ctx->err = ENOMEM when the OS refuses memory.
 * Example: mmap_heap(faa_heap_growth=1, threadlocal_heap_size=2MB)::segfit_lk::malloc_socket
 * Traits: MT_TRAIT_FRESH_HEADS (core/ctx.h): under tail_chksum's
 *   freed_mark it clears the second word of every block it hands out (kept blocks are split and merged).
 */
/* The layer's descriptor (core/describe.h): the data tools/describe_layers.py
 * reads and core/layer_end.h checks the slots against. */
#define MT_DESCRIPTOR_mmap_heap(LAYER, SLOT)                                                               \
    LAYER(mmap_heap, os, MT_TRAIT_FRESH_HEADS, (), ())                                                     \
    MT_OPS(SLOT, create, alloc, free, getmeta, resize, thread_exit, fork_prepare, fork_parent, fork_child, \
           purge, check)                                                                                   \
    SLOT(faa_heap_growth, MT_FAA_HEAP_GROWTH, BOOL, 0, (0, 1), ())                                         \
    SLOT(threadlocal_heap_size, MT_THREADLOCAL_HEAP_SIZE, BYTES, 0, (0, SIZE_MAX), ())                     \
    SLOT(huge_page, MT_HUGE_PAGE, BOOL, 0, (0, 1), ())                                                     \
    MT_SLOT_SYNC(SLOT, spinlock)                                                                           \
    MT_SLOTS_LARGE_KEEP(SLOT)
#ifndef MT_DESCRIBE /* describe mode reads the descriptor alone */
#include "../core/layer.h"
#include "../policy/sync/sync.h"
#include "os_mmap.h"

#ifdef MT_NAME /* another instance name: the names below become its own */
#include "../names/mmap_heap.h"
#else
#define MT_NAME mmap_heap
#endif
#ifndef MT_FAA_HEAP_GROWTH
#define MT_FAA_HEAP_GROWTH 0
#endif
#ifndef MT_THREADLOCAL_HEAP_SIZE
#define MT_THREADLOCAL_HEAP_SIZE 0
#endif
#ifndef MT_HUGE_PAGE
#define MT_HUGE_PAGE 0
#endif
#ifndef MT_SYNC
#define MT_SYNC spinlock
#endif

#ifndef MT_MMAP_CACHE_GRANULES
#define MT_MMAP_CACHE_GRANULES 64
#endif
#ifndef MT_MMAP_DENSE_CHUNK
#define MT_MMAP_DENSE_CHUNK MT_GRANULE /* longest chunk carved as dense */
#endif
#ifndef MT_MMAP_HUGE_SIZE
#define MT_MMAP_HUGE_SIZE ((size_t)2 << 20) /* the transparent huge page */
#endif
#ifndef MT_MMAP_ARENA_SIZE
#define MT_MMAP_ARENA_SIZE ((size_t)64 << 30) /* address space reserved per FAA arena */
#endif

_Static_assert(MT_THREADLOCAL_HEAP_SIZE % MT_GRANULE == 0,
               "mmap_heap: threadlocal_heap_size must be a multiple of 64 KiB");

enum { mmap_heap_id = MT_NEW_LAYER_ID };
/* The slot as a typed constant: the macro may be any constant expression. */
static const size_t mmap_heap_tl_size = (size_t)(MT_THREADLOCAL_HEAP_SIZE);
#define MT_SELF_ID MT_SELF(id)

/* ---- the page map and OS statistics of this composition ---- */
#include "pagemap_mmap.h"

/* ---- the instance ---- */
/* Dense chunks are carved from cur up, sparse ones from end down. */
typedef struct {
    char *cur, *end;
} mmap_heap_region;

static struct {
    MT_SYNC_T(MT_SYNC) lock;                 /* zero-filled = unlocked (sync.h) */
    char *cache[MT_MMAP_CACHE_GRANULES + 1]; /* free chunks by granule count */
    mmap_heap_region leftover[64];           /* remainders of exited threads */
    unsigned leftovers;
    _Atomic(char *) arena_cur; /* faa_heap_growth */
    char *arena_end;
} mmap_heap_state;

static MT_TLS mmap_heap_region mmap_heap_tl;
static MT_TLS size_t mmap_heap_tl_dense; /* dense bytes this thread carved */

/* Huge pages where they stay dense: with a thread-local region, only the units
 * the dense cursor opens (carve_local); without one, every reservation. */
#define MT_SELF_HUGE_RESERVE (MT_HUGE_PAGE && !MT_THREADLOCAL_HEAP_SIZE)

static void mmap_heap_lock(void) { MT_SYNC_FN(MT_SYNC, lock)(&mmap_heap_state.lock); }
static void mmap_heap_unlock(void) { MT_SYNC_FN(MT_SYNC, unlock)(&mmap_heap_state.lock); }

/* Fresh address space for a region or chunk of `len` bytes. */
static char *mmap_heap_reserve(size_t len)
{
    if (MT_FAA_HEAP_GROWTH && len <= MT_MMAP_ARENA_SIZE / 16) {
        for (;;) {
            char *p = atomic_fetch_add_explicit(&mmap_heap_state.arena_cur, len, memory_order_relaxed);
            if (p && p + len <= mmap_heap_state.arena_end)
                return p;
            mmap_heap_lock();
            char *cur = mt_load_relaxed(&mmap_heap_state.arena_cur);
            if (!cur || cur + len > mmap_heap_state.arena_end) {
                char *arena = mt_os_map_aligned(MT_MMAP_ARENA_SIZE, MT_GRANULE, MT_SELF_HUGE_RESERVE);
                if (!arena) {
                    mmap_heap_unlock();
                    return NULL;
                }
                mmap_heap_state.arena_end = arena + MT_MMAP_ARENA_SIZE;
                mt_store_relaxed(&mmap_heap_state.arena_cur, arena);
            }
            mmap_heap_unlock();
        }
    }
    return mt_os_map_aligned(len, MT_GRANULE, MT_SELF_HUGE_RESERVE);
}

/* Carve from this thread's region (threadlocal_heap_size), refilling it from
 * an exited thread's remainder or fresh address space. */
MT_SLOW char *mmap_heap_carve_local(size_t len)
{
    mmap_heap_region *r = &mmap_heap_tl;
    if ((size_t)(r->end - r->cur) < len) {
        if (!r->end)
            mt_thread_attach(); /* so thread_exit hands the remainder on */
        mmap_heap_region fresh = {0};
        mmap_heap_lock();
        if (mmap_heap_state.leftovers)
            fresh = mmap_heap_state.leftover[--mmap_heap_state.leftovers];
        mmap_heap_unlock();
        if ((size_t)(fresh.end - fresh.cur) < len) {
            fresh.cur = mmap_heap_reserve(mmap_heap_tl_size);
            if (!fresh.cur)
                return NULL;
            fresh.end = fresh.cur + mmap_heap_tl_size;
            atomic_fetch_add(&mt_os_counters.mapped, mmap_heap_tl_size);
        }
        *r = fresh; /* the old remainder (< len) is abandoned: at most one chunk */
    }
    char *p;
    if (len > MT_MMAP_DENSE_CHUNK) {
        r->end -= len;
        return r->end;
    }
    p = r->cur;
    r->cur += len;
    mmap_heap_tl_dense += len;
    /* p opens a 2 MiB unit that nothing has touched yet: from the thread's
     * second unit of dense chunks on, ask for a huge page there */
    if (MT_HUGE_PAGE && ((uintptr_t)p & (MT_MMAP_HUGE_SIZE - 1)) == 0 &&
        mmap_heap_tl_dense > MT_MMAP_HUGE_SIZE && (size_t)(r->end - p) >= MT_MMAP_HUGE_SIZE)
        mt_os_advise_huge(p, MT_MMAP_HUGE_SIZE);
    return p;
}

MT_SLOW void *mmap_heap_alloc_chunk(mt_ctx *ctx)
{
    size_t len = mt_align_up(ctx->size ? ctx->size : 1, MT_GRANULE);
    size_t granules = len >> MT_GRANULE_SHIFT;
    char *p = NULL;

    if (granules <= MT_MMAP_CACHE_GRANULES && ctx->align <= MT_GRANULE) {
        mmap_heap_lock();
        p = mmap_heap_state.cache[granules];
        if (p)
            mmap_heap_state.cache[granules] =
                (char *)(mt_entry_payload(mt_pagemap_get(p)) << MT_GRANULE_SHIFT);
        mmap_heap_unlock();
        if (!p) {
            /* clang-format off */
            if (mmap_heap_tl_size && len <= mmap_heap_tl_size / 4)
                p = mmap_heap_carve_local(len);
            else if (MT_FAA_HEAP_GROWTH)
                p = mmap_heap_reserve(len);
            /* clang-format on */
            if (p && !mmap_heap_tl_size)
                atomic_fetch_add(&mt_os_counters.mapped, len);
        }
    }
    if (!p) {
        size_t align = ctx->align > MT_GRANULE ? ctx->align : MT_GRANULE;
        p = mt_os_map_aligned(len, align, MT_SELF_HUGE_RESERVE);
        if (p)
            atomic_fetch_add(&mt_os_counters.mapped, len);
    }
    if (!p || !mt_pagemap_set_checked(p, MT_GRANULE, mt_entry(MT_SELF_ID, granules))) {
        ctx->err = MT_ENOMEM;
        return NULL;
    }
    atomic_fetch_add(&mt_os_counters.handed_out, len);
    if (granules > MT_MMAP_CACHE_GRANULES)
        atomic_fetch_add(&mt_os_counters.large, len);
    ctx->zeroed = p;
    return p;
}

MT_SLOW void mmap_heap_free_chunk(char *p, size_t granules)
{
    size_t len = granules << MT_GRANULE_SHIFT;
    atomic_fetch_sub(&mt_os_counters.handed_out, len);
    atomic_fetch_add(&mt_os_counters.returned, len);
    if (granules > MT_MMAP_CACHE_GRANULES) {
        atomic_fetch_sub(&mt_os_counters.large, len);
        atomic_fetch_sub(&mt_os_counters.mapped, len);
        mt_pagemap_set(p, MT_GRANULE, 0);
        mt_os_unmap(p, len);
        return;
    }
    mt_os_discard(p, len);
    mmap_heap_lock();
    char *head = mmap_heap_state.cache[granules];
    mt_pagemap_set(p, MT_GRANULE, mt_entry(0, (uintptr_t)head >> MT_GRANULE_SHIFT));
    mmap_heap_state.cache[granules] = p;
    mmap_heap_unlock();
}

/* A directly mapped range made longer with mremap: in place if the OS can,
 * else moved to a granule-aligned reservation; its pages stay, the new tail
 * is fresh. NULL (the range unchanged) where the port cannot remap or the
 * range is not one mapping. */
MT_SLOW char *mmap_heap_remap_grow(char *p, size_t old_len, size_t new_len)
{
#if MT_PAL_HAVE_REMAP
    char *q = mt_pal_remap(p, old_len, new_len, NULL);
    if (!q) {
        char *room = mt_os_map_aligned(new_len, MT_GRANULE, false);
        if (!room)
            return NULL;
        q = mt_pal_remap(p, old_len, new_len, room);
        if (!q)
            mt_os_unmap(room, new_len);
    }
    return q;
#else
    (void)p, (void)old_len, (void)new_len;
    return NULL;
#endif
}

/* The keep grows a kept block to serve a longer request (large_keep.h):
 * only blocks mapped directly, so a cached-size chunk's range (carved from
 * a thread's region, or a buddy chunk above) is never moved. */
MT_INLINE bool mmap_heap_grows(size_t granules)
{
    return MT_PAL_HAVE_REMAP && granules > MT_MMAP_CACHE_GRANULES;
}

MT_SLOW char *mmap_heap_grow_chunk(char *p, size_t granules, size_t new_granules)
{
    char *q = mmap_heap_remap_grow(p, granules << MT_GRANULE_SHIFT, new_granules << MT_GRANULE_SHIFT);
    if (q)
        atomic_fetch_add(&mt_os_counters.mapped, (new_granules - granules) << MT_GRANULE_SHIFT);
    return q;
}

#define MT_OS_LOCK MT_SELF(state).lock
#define MT_OS_KEEPS
#define MT_OS_GROWS
#define MT_OS_LARGE_GRANULES MT_MMAP_CACHE_GRANULES
#define MT_OS_PURGE_KEEP                             /* free chunks gave their pages back when freed */
#include "../written/mmap_heap/os_granule_owner.inl" /* alloc, free, getmeta, fork; the large-block keep */

/* Large blocks change size by remapping: shrink in place, grow with mremap to
 * a granule-aligned destination. Cached-size chunks are left to the socket. */
MT_SLOW void *mmap_heap_resize_large(mt_ctx *ctx)
{
    size_t old_len = ctx->meta << MT_GRANULE_SHIFT;
    size_t new_len = mt_align_up(ctx->size ? ctx->size : 1, MT_GRANULE);
    size_t granules = new_len >> MT_GRANULE_SHIFT;
    char *p = ctx->ptr;
    if (ctx->meta <= MT_MMAP_CACHE_GRANULES || granules <= MT_MMAP_CACHE_GRANULES)
        return NULL;
    if (new_len == old_len)
        return p;
#if MT_PAL_HAVE_REMAP
    char *dest = p;
    if (new_len < old_len) {
        mt_os_unmap(p + new_len, old_len - new_len);
    } else {
        /* Growing by an eighth or more: the socket moves it into a kept
         * block that fits, copying old_len bytes into resident pages instead
         * of faulting in new_len - old_len fresh ones (a fault costs several
         * times a page's copy). A smaller step stays where it is: a buffer
         * grown a little at a time would be copied whole every time, while
         * steps of an eighth copy at most eight times its final size. */
        if (old_len / 8 <= new_len - old_len && mmap_heap_keep_serves(granules))
            return NULL;
        dest = mmap_heap_remap_grow(p, old_len, new_len);
        if (!dest)
            return NULL;
    }
    if (dest != p)
        mt_pagemap_set(p, MT_GRANULE, 0);
    mt_pagemap_set(dest, MT_GRANULE, mt_entry(MT_SELF_ID, granules));
    atomic_fetch_add(&mt_os_counters.mapped, new_len - old_len);
    atomic_fetch_add(&mt_os_counters.handed_out, new_len - old_len);
    atomic_fetch_add(&mt_os_counters.large, new_len - old_len);
    return dest;
#else
    return NULL;
#endif
}

#define MT_IMPLEMENTS_resize
MT_INLINE void *mmap_heap_resize(mt_ctx *ctx, mt_lfunc *next)
{
    (void)next;
    return mmap_heap_is_block(ctx) ? MT_COLD_CALL(ctx, copy, mmap_heap_resize_large(&copy)) : NULL;
}

#define MT_IMPLEMENTS_create
MT_INLINE void *mmap_heap_create(mt_ctx *ctx, mt_lfunc *next)
{
    (void)ctx;
    (void)next;
    return NULL;
}

/* Hand this thread's unused region to the next thread that needs one. */
#define MT_IMPLEMENTS_thread_exit
MT_INLINE void *mmap_heap_thread_exit(mt_ctx *ctx, mt_lfunc *next)
{
    (void)ctx;
    (void)next;
    mmap_heap_region *r = &mmap_heap_tl;
    if (r->end - r->cur >= (ptrdiff_t)MT_GRANULE) {
        mmap_heap_lock();
        if (mmap_heap_state.leftovers < sizeof mmap_heap_state.leftover / sizeof mmap_heap_state.leftover[0])
            mmap_heap_state.leftover[mmap_heap_state.leftovers++] = *r;
        else
            mt_os_unmap(r->cur, (size_t)(r->end - r->cur));
        mmap_heap_unlock();
    }
    r->cur = r->end = NULL;
    return NULL;
}

#undef MT_SELF_HUGE_RESERVE
/* Its traits (descriptor, core/ctx.h): mt_fresh_head on every block it hands out. */
#define MT_DESCRIPTOR MT_DESCRIPTOR_mmap_heap
#include "../core/layer_end.h"
/* Forget this instance's slots: the next instance starts from the defaults. */
#undef MT_SYNC
#undef MT_FAA_HEAP_GROWTH
#undef MT_THREADLOCAL_HEAP_SIZE
#undef MT_HUGE_PAGE
#undef MT_LARGE_KEEP
#undef MT_LARGE_DECAY_MS
#undef MT_LOCK_STAT
#undef MT_MMAP_ARENA_SIZE
#undef MT_MMAP_CACHE_GRANULES
#undef MT_MMAP_DENSE_CHUNK
#undef MT_MMAP_HUGE_SIZE
#ifdef MT_NAMES_mmap_heap
#include "../names/mmap_heap.h" /* forget them */
#endif
#endif /* MT_DESCRIBE */

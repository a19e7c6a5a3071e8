/* brk_heap — OS-interface layer over the program break (sbrk).
 *
 * Serves: any size, in whole granules (64 KiB) aligned to 64 KiB or to the
 *   requested alignment if larger, from one contiguous heap that grows and
 *   shrinks at the program break: the address space split/merge layers such
 *   as tlsf_glk want, where neighbouring blocks can merge. Memory it returns
 *   is zero-filled (ctx->zeroed is set to the block): fresh break pages are
 *   zero and freed ones are discarded; a large block reused from the keep
 *   (below) is not.
 * Slots (model language → macro, default):
 *   sync=POLICY → MT_SYNC (spinlock): guards the free ranges and the break
 *     (and, a lock of its own, the keep).
 *   large_keep=BYTES → MT_LARGE_KEEP (96 MiB; 0 = off): freed blocks of
 *     64 KiB (MT_LARGE_KEEP_MIN: any) up to this size keep their pages, up to this
 *     many bytes in all, and serve later requests that fit without a page
 *     fault (os/large_keep.h: best fit, split and merge, bounded waste).
 *   large_decay_ms=N → MT_LARGE_DECAY_MS (1000; 0 = no limit): a kept block
 *     unused this long goes back to the OS (checked on the OS layer's slow
 *     paths); malloc_trim gives back every kept block at once.
 * Structure: freed granule ranges are kept in address order, first fit with
 *   coalescing (os/range_fit.h, whose list lives in the page map, so a free
 *   range costs no resident memory). A freed block the keep does not take
 *   gives its pages back at once (MADV_DONTNEED, RSS falls); when the free
 *   range at the top of the heap reaches the break, the break is lowered
 *   (sbrk with a negative increment).
 *   resize works in place: shrinking frees the tail, growing takes the free
 *   granules after the block or moves the break when the block is on top.
 * Sharing the break: the C library's malloc or the program may move the break
 *   too. brk_heap never assumes it owns memory it did not get from its own
 *   sbrk: a new extension starts at the current break aligned up (the bytes
 *   below are not ours), and the break is lowered only when it still is
 *   exactly where our last move left it. If another thread moves the break
 *   between our look and our move, what we got is kept as free ranges and we
 *   try again (a few times, then fail). The C library's sbrk itself is not
 *   thread-safe: beside glibc's malloc (a prefix socket) the two may race
 *   inside it; as the process's malloc (malloc_socket) nobody else calls it.
 * Page map: defines the composition's page map (two-level radix,
 *   core/pagemap_radix.h, leaves mapped from the OS) and mt_os_stats_read
 *   (mapped = bytes obtained with sbrk and not yet given back; large = 0: there
 *   are no blocks outside the heap).
 * Time: alloc, free and resize are O(free ranges) under the lock, plus a
 *   system call when the break moves or pages are given back; O(granules)
 *   page-map writes when the heap grows; a large block kept or reused:
 *   O(32 kept blocks) under the keep's lock and no system call. Thread
 *   safety: all operations. Space: at most large_keep bytes of freed blocks
 *   stay resident (and keep the break from being lowered over them).
 * Fails: returns NULL with ctx->err = ENOMEM when the break cannot move
 *   (RLIMIT_DATA, address space taken) and no free range fits.
 * Needs: a port with a program break (mt_pal_brk: sbrk on Linux) and
 *   mt_pal_advise_dontneed (madvise).
 * Example: brk_heap::tlsf_glk(sync=posix_mutex)::malloc_socket
 *          brk_heap::segfit_lk::malloc_socket             (instances/segfit_brk.c)
 */
/* The layer's descriptor (core/describe.h): the data tools/describe_layers.py
 * reads and core/layer_end.h checks the slots against. */
#define MT_DESCRIPTOR_brk_heap(LAYER, SLOT)                                                         \
    LAYER(brk_heap, os, 0, (), ())                                                                  \
    MT_OPS(SLOT, alloc, free, getmeta, resize, fork_prepare, fork_parent, fork_child, purge, check) \
    MT_SLOT_SYNC(SLOT, spinlock)                                                                    \
    MT_SLOTS_LARGE_KEEP(SLOT)
#ifndef MT_DESCRIBE /* describe mode reads the descriptor alone */
#include "../core/layer.h"
#include "range_fit.h"
#include "../policy/sync/sync.h"
#include "pagemap_mmap.h"

#ifdef MT_NAME /* another instance name: the names below become its own */
#include "../names/brk_heap.h"
#else
#define MT_NAME brk_heap
#endif
#ifndef MT_SYNC
#define MT_SYNC spinlock
#endif

/* Attempts to extend the heap when other threads keep moving the break. */
#ifndef MT_BRK_ATTEMPTS
#define MT_BRK_ATTEMPTS 4
#endif

enum { brk_heap_id = MT_NEW_LAYER_ID };
#define MT_SELF_ID MT_SELF(id)

static struct {
    MT_SYNC_T(MT_SYNC) lock; /* zero-filled = unlocked (sync.h) */
    mt_range_fit free;       /* freed granules; base NULL: absolute addresses */
    char *top;               /* the break as our last sbrk left it; NULL before */
} brk_heap_state;

static void brk_heap_lock(void) { MT_SYNC_FN(MT_SYNC, lock)(&brk_heap_state.lock); }
static void brk_heap_unlock(void) { MT_SYNC_FN(MT_SYNC, unlock)(&brk_heap_state.lock); }

/* The break moved by increment (the port's sbrk: errno kept, as free must);
 * returns the previous break, NULL when refused. */
static char *brk_heap_sbrk(intptr_t increment) { return mt_pal_brk(increment); }

/* Does the break still stand where our last move left it? Then the memory
 * just below it, up to our last free range, is ours to give back. */
static bool brk_heap_break_is_ours(void)
{
    return brk_heap_state.top && brk_heap_sbrk(0) == brk_heap_state.top;
}

/* Lock held. Keep the whole granules of [lo, hi) — ours, not handed out — as
 * free ranges. */
static void brk_heap_keep_free(char *lo, char *hi)
{
    lo = (char *)mt_align_up((uintptr_t)lo, MT_GRANULE);
    hi = (char *)mt_align_down_ptr((uintptr_t)hi, MT_GRANULE);
    if (hi > lo)
        mt_range_fit_give(&brk_heap_state.free, lo, (size_t)(hi - lo) >> MT_GRANULE_SHIFT);
}

/* Lock held. Move the break up by increment bytes; returns where the new
 * memory starts (the old break, which another thread may have moved since we
 * looked) or NULL. Every granule of it gets its page-map entry (0) first. */
static char *brk_heap_raise_break(size_t increment)
{
    if (increment > (size_t)PTRDIFF_MAX)
        return NULL;
    char *old = brk_heap_sbrk((intptr_t)increment);
    if (!old)
        return NULL;
    char *end = old + increment;
    char *lo = (char *)mt_align_up((uintptr_t)old, MT_GRANULE);
    char *hi = (char *)mt_align_down_ptr((uintptr_t)end, MT_GRANULE);
    if (hi > lo && !mt_pagemap_set_checked(lo, (size_t)(hi - lo), 0)) {
        if (brk_heap_sbrk(0) == end) /* untrackable: give it back while we can */
            brk_heap_sbrk(-(intptr_t)increment);
        return NULL;
    }
    brk_heap_state.top = end;
    atomic_fetch_add(&mt_os_counters.mapped, increment);
    return old;
}

/* Lock held. A new block of len bytes aligned to align at the top of the
 * heap. Granules skipped for alignment stay free ranges. */
MT_SLOW char *brk_heap_grow(size_t len, size_t align)
{
    for (int attempt = 0; attempt < MT_BRK_ATTEMPTS; attempt++) {
        char *cur = brk_heap_sbrk(0);
        if (!cur)
            return NULL;
        char *start = (char *)mt_align_up((uintptr_t)cur, align);
        if (start < cur || (size_t)(start - cur) > (size_t)PTRDIFF_MAX - len)
            return NULL;
        char *old = brk_heap_raise_break((size_t)(start - cur) + len);
        if (!old)
            return NULL;
        if (old != cur) /* someone moved the break between our look and our move */
            start = (char *)mt_align_up((uintptr_t)old, align);
        if (start >= old && start + len <= brk_heap_state.top) {
            brk_heap_keep_free(old, start);
            return start;
        }
        brk_heap_keep_free(old, brk_heap_state.top);
    }
    return NULL;
}

/* Lock held. Lower the break over the free range at the top of the heap, if
 * the break is still ours. Returns true iff it moved. */
static bool brk_heap_shrink(void)
{
    char *top = brk_heap_state.top;
    if (!brk_heap_break_is_ours())
        return false;
    char *tail =
        mt_range_fit_take_tail(&brk_heap_state.free, (char *)mt_align_down_ptr((uintptr_t)top, MT_GRANULE));
    if (!tail)
        return false;
    if (!brk_heap_sbrk(-(intptr_t)(top - tail))) {
        brk_heap_keep_free(tail, top);
        return false;
    }
    brk_heap_state.top = tail;
    atomic_fetch_sub(&mt_os_counters.mapped, (size_t)(top - tail));
    return true;
}

static char *brk_heap_obtain(size_t granules, size_t align, bool *zeroed)
{
    size_t len = granules << MT_GRANULE_SHIFT;
    brk_heap_lock();
    char *p = mt_range_fit_take(&brk_heap_state.free, granules, align);
    if (!p)
        p = brk_heap_grow(len, align);
    brk_heap_unlock();
    *zeroed = true;
    return p;
}

static void brk_heap_release(char *p, size_t granules)
{
    size_t len = granules << MT_GRANULE_SHIFT;
    /* Discard before the range is free: once it is in the list another
     * thread may take it and write to it. */
    mt_os_discard(p, len);
    atomic_fetch_add(&mt_os_counters.returned, len);
    brk_heap_lock();
    mt_range_fit_give(&brk_heap_state.free, p, granules);
    brk_heap_shrink();
    brk_heap_unlock();
}

static bool brk_heap_extend(char *end, size_t granules)
{
    size_t len = granules << MT_GRANULE_SHIFT;
    brk_heap_lock();
    bool done = mt_range_fit_take_at(&brk_heap_state.free, end, granules);
    if (!done && end == brk_heap_state.top && brk_heap_break_is_ours()) {
        char *old = brk_heap_raise_break(len);
        done = old == end;
        if (old && !done)
            brk_heap_keep_free(old, brk_heap_state.top);
    }
    brk_heap_unlock();
    return done;
}

#define MT_OS_RESIZE_IN_PLACE 1
#define MT_OS_LOCK MT_SELF(state).lock
#define MT_OS_KEEPS
#include "../written/brk_heap/os_granule_blocks.inl"

/* Freed pages were discarded when freed; what is left is the keep and the
 * top of the heap if the break could not be lowered then. */
#define MT_IMPLEMENTS_purge
MT_INLINE void *brk_heap_purge(mt_ctx *ctx, mt_lfunc *next)
{
    (void)ctx;
    (void)next;
    bool kept = brk_heap_keep_purge();
    brk_heap_lock();
    bool moved = brk_heap_shrink() || kept;
    brk_heap_unlock();
    return moved ? (void *)1 : NULL;
}

#define MT_DESCRIPTOR MT_DESCRIPTOR_brk_heap
#include "../core/layer_end.h"
/* Forget this instance's slots: the next instance starts from the defaults. */
#undef MT_SYNC
#undef MT_LARGE_KEEP
#undef MT_LARGE_DECAY_MS
#undef MT_LOCK_STAT
#undef MT_BRK_ATTEMPTS
#ifdef MT_NAMES_brk_heap
#include "../names/brk_heap.h" /* forget them */
#endif
#endif /* MT_DESCRIBE */

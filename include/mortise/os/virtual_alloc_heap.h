/* virtual_alloc_heap — OS-interface layer that reserves address space and
 * commits it on demand.
 *
 * Serves: any size, in whole granules (64 KiB) aligned to 64 KiB or to the
 *   requested alignment if larger, from large reservations (mt_pal_reserve:
 *   VirtualAlloc MEM_RESERVE on Windows, a MAP_NORESERVE mapping on Linux)
 *   whose granules are committed (mt_pal_commit) only when a block is handed
 *   out and decommitted (mt_pal_decommit: MEM_DECOMMIT; MADV_DONTNEED on
 *   Linux) as soon as it is freed. So the commit charge follows what is in
 *   use, not what is reserved: the layer for a port whose OS charges
 *   committed memory against a limit (Windows), where mmap_heap's large
 *   arenas would be charged whole. Memory it returns is zero-filled
 *   (ctx->zeroed is set to the block) unless it is a large block reused
 *   from the keep (below).
 * Slots (model language → macro, default):
 *   reserve_size=BYTES → MT_RESERVE_SIZE (1 GiB): address space reserved at
 *     a time; a request longer than it gets a reservation of its own, of its
 *     length (plus its alignment). A multiple of 64 KiB.
 *   sync=POLICY → MT_SYNC (spinlock): guards the reservations and their free
 *     ranges (and, a lock of its own, the keep).
 *   large_keep=BYTES → MT_LARGE_KEEP (96 MiB; 0 = off): freed blocks of
 *     64 KiB (MT_LARGE_KEEP_MIN: any) up to this size stay committed, up to this
 *     many bytes in all, and serve later requests that fit without a commit
 *     or page fault (os/large_keep.h: best fit, split and merge, bounded
 *     waste).
 *   large_decay_ms=N → MT_LARGE_DECAY_MS (1000; 0 = no limit): a kept block
 *     unused this long is decommitted (checked on the OS layer's slow
 *     paths); malloc_trim decommits every kept block at once.
 * Structure: at most MT_VA_RESERVATIONS (64) reservations, each with its own
 *   free granule ranges in address order, first fit with coalescing
 *   (os/range_fit.h, whose list lives in the page map, so a free range costs
 *   nothing committed). One range_fit per reservation keeps every block
 *   inside one reservation: Windows commits and decommits only within one.
 *   A reservation none of whose granules is in use is released (unless it
 *   is the only one). resize works in place: shrinking decommits the tail,
 *   growing commits the free granules right after the block.
 * Page map: defines the composition's page map (two-level radix,
 *   core/pagemap_radix.h, leaves mapped from the OS) and mt_os_stats_read
 *   (mapped = bytes committed and not decommitted; large = 0).
 * Time: alloc, free and resize are O(reservations + their free ranges)
 *   under the lock, plus one commit or decommit system call
 *   outside it; a new reservation adds one reserve call and one page-map
 *   write per 4 GiB; a large block kept or reused: O(32 kept blocks) under
 *   the keep's lock and no system call. Thread safety: all operations.
 * Space: committed = blocks handed out + at most large_keep bytes kept;
 *   freed granules are decommitted at once, so trim has only the keep left
 *   to give back.
 * Fails: returns NULL with ctx->err = ENOMEM when the OS refuses a
 *   reservation (address space) or a commit (the commit limit: the granules
 *   taken go back to the free ranges, nothing is left half-committed), or
 *   when all MT_VA_RESERVATIONS are in use and none has room.
 * Needs: a port with mt_pal_reserve, mt_pal_commit and mt_pal_decommit
 *   (Linux, Windows; freestanding refuses every reservation).
 * Example: virtual_alloc_heap::segfit_lk::malloc_socket
 *          virtual_alloc_heap(reserve_size=4GB)::tlsf_glk(sync=posix_mutex)::malloc_socket
 *          (and hslab's chain over it: instances/hslabva.c)
 */
/* The layer's descriptor (core/describe.h): the data tools/describe_layers.py
 * reads and core/layer_end.h checks the slots against. */
#define MT_DESCRIPTOR_virtual_alloc_heap(LAYER, SLOT)                                               \
    LAYER(virtual_alloc_heap, os, 0, (), ())                                                        \
    MT_OPS(SLOT, alloc, free, getmeta, resize, fork_prepare, fork_parent, fork_child, purge, check) \
    SLOT(reserve_size, MT_RESERVE_SIZE, BYTES, 1 << 30, (64 << 10, SIZE_MAX), ())                   \
    MT_SLOT_SYNC(SLOT, spinlock)                                                                    \
    MT_SLOTS_LARGE_KEEP(SLOT)
#ifndef MT_DESCRIBE /* describe mode reads the descriptor alone */
#include "../core/layer.h"
#include "range_fit.h"
#include "../policy/sync/sync.h"
#include "pagemap_mmap.h"

#ifdef MT_NAME /* another instance name: the names below become its own */
#include "../names/virtual_alloc_heap.h"
#else
#define MT_NAME virtual_alloc_heap
#endif
#ifndef MT_RESERVE_SIZE
#define MT_RESERVE_SIZE ((size_t)1 << 30)
#endif
#ifndef MT_SYNC
#define MT_SYNC spinlock
#endif
#ifndef MT_VA_RESERVATIONS
#define MT_VA_RESERVATIONS 64
#endif
/* How granules become usable: a test substitutes a commit that refuses. */
#ifndef MT_VA_COMMIT
#define MT_VA_COMMIT mt_pal_commit
#endif

_Static_assert((MT_RESERVE_SIZE) % MT_GRANULE == 0 && (MT_RESERVE_SIZE) > 0,
               "virtual_alloc_heap: reserve_size must be a positive multiple of 64 KiB");

enum { virtual_alloc_heap_id = MT_NEW_LAYER_ID };
#define MT_SELF_ID MT_SELF(id)

typedef struct {
    char *raw; /* as mt_pal_reserve returned it, for the release */
    size_t raw_len;
    char *base, *end;  /* the granule-aligned part blocks come from */
    mt_range_fit free; /* its free granules */
} virtual_alloc_heap_reservation;

static struct {
    MT_SYNC_T(MT_SYNC) lock; /* zero-filled = unlocked (sync.h) */
    virtual_alloc_heap_reservation r[MT_VA_RESERVATIONS];
    unsigned count;
} virtual_alloc_heap_state;

static void virtual_alloc_heap_lock(void) { MT_SYNC_FN(MT_SYNC, lock)(&virtual_alloc_heap_state.lock); }
static void virtual_alloc_heap_unlock(void) { MT_SYNC_FN(MT_SYNC, unlock)(&virtual_alloc_heap_state.lock); }

/* Lock held. The reservation holding granule p, or NULL. */
static virtual_alloc_heap_reservation *virtual_alloc_heap_holding(const char *p)
{
    for (unsigned i = 0; i < virtual_alloc_heap_state.count; i++)
        if (p >= virtual_alloc_heap_state.r[i].base && p < virtual_alloc_heap_state.r[i].end)
            return &virtual_alloc_heap_state.r[i];
    return NULL;
}

/* Lock held. A new reservation of at least len usable bytes, all free. */
MT_SLOW virtual_alloc_heap_reservation *virtual_alloc_heap_add_reservation(size_t len)
{
    if (virtual_alloc_heap_state.count == MT_VA_RESERVATIONS)
        return NULL;
    size_t usable = len > (MT_RESERVE_SIZE) ? len : (MT_RESERVE_SIZE);
    size_t raw_len = usable + MT_GRANULE; /* room to align the base to a granule */
    if (raw_len < usable)
        return NULL;
    char *raw = mt_pal_reserve(raw_len);
    if (!raw)
        return NULL;
    char *base = (char *)mt_align_up((uintptr_t)raw, MT_GRANULE);
    /* one page-map write per leaf, so range_fit's entries all exist; the
     * entries themselves are zero already (fresh leaves, or cleared when a
     * released reservation's blocks were freed) */
    uintptr_t last = ((uintptr_t)base + usable) >> MT_GRANULE_SHIFT;
    for (uintptr_t g = (uintptr_t)base >> MT_GRANULE_SHIFT; g < last; g = (g | (MT_PM_LEAF_LEN - 1)) + 1)
        if (!mt_pagemap_set_checked((char *)(g << MT_GRANULE_SHIFT), MT_GRANULE, 0)) {
            mt_pal_unmap(raw, raw_len);
            return NULL;
        }
    virtual_alloc_heap_reservation *r = &virtual_alloc_heap_state.r[virtual_alloc_heap_state.count++];
    *r = (virtual_alloc_heap_reservation){.raw = raw, .raw_len = raw_len, .base = base, .end = base + usable};
    mt_range_fit_init(&r->free, NULL); /* absolute addresses, as brk_heap */
    mt_range_fit_give(&r->free, base, usable >> MT_GRANULE_SHIFT);
    return r;
}

/* Lock held. Release reservation r if nothing of it is in use and another
 * one remains (the last one stays: a program that frees everything and
 * starts again does not pay a new reservation). */
static void virtual_alloc_heap_drop_if_empty(virtual_alloc_heap_reservation *r)
{
    size_t granules = (size_t)(r->end - r->base) >> MT_GRANULE_SHIFT;
    if (virtual_alloc_heap_state.count < 2 || r->free.free_granules != granules)
        return;
    mt_range_fit_take_at(&r->free, r->base, granules); /* clears its headers */
    mt_pal_unmap(r->raw, r->raw_len);
    *r = virtual_alloc_heap_state.r[--virtual_alloc_heap_state.count];
}

/* Take the lock and make [p, p + granules) free ranges again, each part in
 * the reservation holding it (a kept block may have merged two neighbouring
 * reservations' blocks); a reservation left unused is released. */
static void virtual_alloc_heap_give_back(char *p, size_t granules)
{
    virtual_alloc_heap_lock();
    for (char *end = p + (granules << MT_GRANULE_SHIFT); p < end;) {
        virtual_alloc_heap_reservation *r = virtual_alloc_heap_holding(p);
        char *stop = r->end < end ? r->end : end;
        mt_range_fit_give(&r->free, p, (size_t)(stop - p) >> MT_GRANULE_SHIFT);
        virtual_alloc_heap_drop_if_empty(r);
        p = stop;
    }
    virtual_alloc_heap_unlock();
}

/* Commit granules just taken; refused (the commit limit): what a partial
 * commit left is undone and they are free again. */
static bool virtual_alloc_heap_commit(char *p, size_t granules)
{
    size_t len = granules << MT_GRANULE_SHIFT;
    if (!MT_VA_COMMIT(p, len)) {
        mt_pal_decommit(p, len);
        virtual_alloc_heap_give_back(p, granules);
        return false;
    }
    atomic_fetch_add(&mt_os_counters.mapped, len);
    return true;
}

static char *virtual_alloc_heap_obtain(size_t granules, size_t align, bool *zeroed)
{
    size_t len = granules << MT_GRANULE_SHIFT;
    char *p = NULL;
    virtual_alloc_heap_lock();
    for (unsigned i = 0; !p && i < virtual_alloc_heap_state.count; i++)
        p = mt_range_fit_take(&virtual_alloc_heap_state.r[i].free, granules, align);
    if (!p && len <= SIZE_MAX - align) {
        virtual_alloc_heap_reservation *r = virtual_alloc_heap_add_reservation(len + align - MT_GRANULE);
        if (r)
            p = mt_range_fit_take(&r->free, granules, align);
    }
    virtual_alloc_heap_unlock();
    *zeroed = true; /* fresh reservation pages, or decommitted when freed */
    return p && virtual_alloc_heap_commit(p, granules) ? p : NULL;
}

/* Decommitted before they are free: once in the free ranges another thread
 * may take, commit and write them. */
static void virtual_alloc_heap_release(char *p, size_t granules)
{
    size_t len = granules << MT_GRANULE_SHIFT;
    mt_pal_decommit(p, len);
    atomic_fetch_sub(&mt_os_counters.mapped, len);
    atomic_fetch_add(&mt_os_counters.returned, len);
    virtual_alloc_heap_give_back(p, granules);
}

static bool virtual_alloc_heap_extend(char *end, size_t granules)
{
    virtual_alloc_heap_lock();
    virtual_alloc_heap_reservation *r = virtual_alloc_heap_holding(end);
    bool taken = r && mt_range_fit_take_at(&r->free, end, granules);
    virtual_alloc_heap_unlock();
    return taken && virtual_alloc_heap_commit(end, granules);
}

#define MT_OS_RESIZE_IN_PLACE 1
#define MT_OS_LOCK MT_SELF(state).lock
#define MT_OS_KEEPS
#define MT_OS_PURGE_KEEP /* freed granules were decommitted when freed */
#include "../written/virtual_alloc_heap/os_granule_blocks.inl"

#define MT_DESCRIPTOR MT_DESCRIPTOR_virtual_alloc_heap
#include "../core/layer_end.h"
/* Forget this instance's slots: the next instance starts from the defaults. */
#undef MT_SYNC
#undef MT_LARGE_KEEP
#undef MT_LARGE_DECAY_MS
#undef MT_LOCK_STAT
#undef MT_RESERVE_SIZE
#undef MT_VA_COMMIT
#undef MT_VA_RESERVATIONS
#ifdef MT_NAMES_virtual_alloc_heap
#include "../names/virtual_alloc_heap.h" /* forget them */
#endif
#endif /* MT_DESCRIBE */

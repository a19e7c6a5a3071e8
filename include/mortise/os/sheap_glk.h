/* sheap_glk — OS-interface layer over a static pool, one global lock.
 * Serves: any size that fits, in whole granules (64 KiB) aligned to 64 KiB or
 *   to the requested alignment if larger, from a pool reserved in the
 *   program's image (BSS). No OS, no C library: for bare metal, kernels and
 *   real-time systems that must not call an OS, and for bounding a program's
 *   memory. Memory never handed out before is zero-filled and reported so
 *   (ctx->zeroed); reused memory is not cleared.
 * Slots (model language → macro, default):
 *   pool_size=BYTES → MT_POOL_SIZE (16 MiB): a multiple of 64 KiB.
 *   sync=POLICY     → MT_SYNC (spinlock): the global lock around every
 *                     operation ("glk"); sync=none for single-threaded systems.
 * Structure: free granule ranges in address order, first fit with coalescing
 *   (os/range_fit.h, its list kept in the page map, so nothing is written
 *   into free memory). resize works in place: shrinking frees the tail,
 *   growing takes the free granules right after the block.
 * Page map: defines the composition's page map as a flat array of one word per
 *   pool granule (8 bytes per 64 KiB); pointers outside the pool map to entry
 *   0 (nobody's). mt_os_stats_read: mapped = pool size, returned = 0.
 * Time: alloc, free and resize O(free ranges) under the lock; page-map lookups
 *   O(1) (a compare and a load). Space: the pool, plus the page map.
 *   Fragmentation: first fit over granules; a request is rounded up to 64 KiB,
 *   so put a trunk layer (segfit_lk, tlsf_glk) above it for small blocks.
 * Thread safety: all operations, under the one lock; with MT_NO_THREADS and
 *   sync=none it is plain single-threaded code.
 * Fails: returns NULL with ctx->err = ENOMEM iff no free range holds the
 *   request (pool exhausted or too fragmented); never calls anything.
 * Freestanding: compiles with -ffreestanding -DMT_FREESTANDING -DMT_NO_THREADS
 *   and no C library (tests/layers/os checks the object has no undefined
 *   symbols but memcpy/memset) when paired with a socket that needs no libc.
 * Example: sheap_glk(pool_size=4MB, sync=none)::segfit_lk(sync=none)::kernel_socket
 */
/* The layer's descriptor (core/describe.h): the data tools/describe_layers.py
 * reads and core/layer_end.h checks the slots against. */
#define MT_DESCRIPTOR_sheap_glk(LAYER, SLOT)                                                        \
    LAYER(sheap_glk, os, 0, (), ())                                                                 \
    MT_OPS(SLOT, alloc, free, getmeta, resize, fork_prepare, fork_parent, fork_child, purge, check) \
    SLOT(pool_size, MT_POOL_SIZE, BYTES, 16 << 20, (64 << 10, SIZE_MAX), ())                        \
    MT_SLOT_SYNC(SLOT, spinlock)
#ifndef MT_DESCRIBE /* describe mode reads the descriptor alone */
#include "../core/layer.h"
#include "range_fit.h"
#include "../policy/sync/sync.h"
#include "os_stats.h"

#ifdef MT_NAME /* another instance name: the names below become its own */
#include "../names/sheap_glk.h"
#else
#define MT_NAME sheap_glk
#endif
#ifndef MT_POOL_SIZE
#define MT_POOL_SIZE ((size_t)16 << 20)
#endif
#ifndef MT_SYNC
#define MT_SYNC spinlock
#endif

_Static_assert(MT_POOL_SIZE % MT_GRANULE == 0 && MT_POOL_SIZE >= MT_GRANULE,
               "sheap_glk: pool_size must be a non-zero multiple of 64 KiB");

enum { sheap_glk_id = MT_NEW_LAYER_ID };
#define MT_SELF_ID MT_SELF(id)

/* The pool. The attribute aligns it to a granule in the image; if a loader
 * does not honour that, the pool starts at its first whole granule and one
 * granule is lost (sheap_glk_pool_base). */
static char sheap_glk_pool[MT_POOL_SIZE] __attribute__((aligned(MT_GRANULE)));
static _Atomic(uintptr_t) sheap_glk_map[MT_POOL_SIZE / MT_GRANULE];

static struct {
    MT_SYNC_T(MT_SYNC) lock; /* zero-filled = unlocked (sync.h) */
    mt_range_fit free;
    bool ready;     /* the pool is in the free list (done lazily: no constructors) */
    char *pristine; /* lowest byte never handed out: zero from here up */
} sheap_glk_state;

MT_INLINE uintptr_t sheap_glk_pool_base(void) { return mt_align_up((uintptr_t)sheap_glk_pool, MT_GRANULE); }
MT_INLINE size_t sheap_glk_pool_granules(void)
{
    return (mt_align_down_ptr((uintptr_t)sheap_glk_pool + MT_POOL_SIZE, MT_GRANULE) -
            sheap_glk_pool_base()) >>
           MT_GRANULE_SHIFT;
}

/* ---- the page map and OS statistics of this composition ---- */

static inline uintptr_t mt_pagemap_get(const void *p)
{
    size_t index = ((uintptr_t)p - sheap_glk_pool_base()) >> MT_GRANULE_SHIFT; /* wraps below the pool */
    return index < sheap_glk_pool_granules() ? mt_load_relaxed(&sheap_glk_map[index]) : 0;
}

/* Returns false iff part of [p, p + len) lies outside the pool. */
static inline bool mt_pagemap_set_checked(const void *p, size_t len, uintptr_t entry)
{
    size_t first = ((uintptr_t)p - sheap_glk_pool_base()) >> MT_GRANULE_SHIFT;
    size_t count = len ? (len + MT_GRANULE - 1) >> MT_GRANULE_SHIFT : 1;
    if (first >= sheap_glk_pool_granules() || count > sheap_glk_pool_granules() - first)
        return false;
    for (size_t i = first; i < first + count; i++)
        mt_store_release(&sheap_glk_map[i], entry);
    return true;
}

static inline void mt_pagemap_set(const void *p, size_t len, uintptr_t entry)
{
    (void)mt_pagemap_set_checked(p, len, entry);
}

/* ---- the instance ---- */

static void sheap_glk_lock(void) { MT_SYNC_FN(MT_SYNC, lock)(&sheap_glk_state.lock); }
static void sheap_glk_unlock(void) { MT_SYNC_FN(MT_SYNC, unlock)(&sheap_glk_state.lock); }

/* Lock held. The whole pool becomes one free range on first use. */
MT_SLOW void sheap_glk_start(void)
{
    char *base = (char *)sheap_glk_pool_base();
    mt_range_fit_init(&sheap_glk_state.free, base);
    mt_range_fit_give(&sheap_glk_state.free, base, sheap_glk_pool_granules());
    sheap_glk_state.pristine = base;
    sheap_glk_state.ready = true;
    mt_store_relaxed(&mt_os_counters.mapped, sheap_glk_pool_granules() << MT_GRANULE_SHIFT);
}

static char *sheap_glk_obtain(size_t granules, size_t align, bool *zeroed)
{
    sheap_glk_lock();
    if (MT_UNLIKELY(!sheap_glk_state.ready))
        sheap_glk_start();
    char *p = granules <= sheap_glk_pool_granules()
                  ? mt_range_fit_take(&sheap_glk_state.free, granules, align)
                  : NULL;
    if (p) {
        char *end = p + (granules << MT_GRANULE_SHIFT);
        *zeroed = p >= sheap_glk_state.pristine;
        if (end > sheap_glk_state.pristine)
            sheap_glk_state.pristine = end;
    }
    sheap_glk_unlock();
    return p;
}

static void sheap_glk_release(char *p, size_t granules)
{
    sheap_glk_lock();
    mt_range_fit_give(&sheap_glk_state.free, p, granules);
    sheap_glk_unlock();
}

static bool sheap_glk_extend(char *end, size_t granules)
{
    sheap_glk_lock();
    bool done = mt_range_fit_take_at(&sheap_glk_state.free, end, granules);
    sheap_glk_unlock();
    return done;
}

#define MT_OS_RESIZE_IN_PLACE 1
#define MT_OS_LOCK MT_SELF(state).lock
#include "../written/sheap_glk/os_granule_blocks.inl"

#define MT_DESCRIPTOR MT_DESCRIPTOR_sheap_glk
#include "../core/layer_end.h"
/* Forget this instance's slots: the next instance starts from the defaults. */
#undef MT_SYNC
#undef MT_LARGE_KEEP
#undef MT_LARGE_DECAY_MS
#undef MT_POOL_SIZE
#undef MT_LOCK_STAT
#ifdef MT_NAMES_sheap_glk
#include "../names/sheap_glk.h" /* forget them */
#endif
#endif /* MT_DESCRIBE */

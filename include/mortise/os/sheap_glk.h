/* sheap_glk — OS-interface layer over a static pool, one global lock.
 *                                                              [model: sheap_glk]
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
#include "../core/layer.h"
#include "range_fit.h"
#include "../policy/sync/sync.h"
#include "os_stats.h"

#ifndef MT_NAME
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

enum { MT_SELF(id) = MT_NEW_LAYER_ID };
#define MT_SELF_ID MT_SELF(id)

/* The pool. The attribute aligns it to a granule in the image; if a loader
 * does not honour that, the pool starts at its first whole granule and one
 * granule is lost (MT_SELF(pool_base)). */
static char MT_SELF(pool)[MT_POOL_SIZE] __attribute__((aligned(MT_GRANULE)));
static _Atomic(uintptr_t) MT_SELF(map)[MT_POOL_SIZE / MT_GRANULE];

static struct {
    MT_SYNC_T(MT_SYNC) lock; /* zero-filled = unlocked (sync.h) */
    mt_range_fit free;
    bool ready;     /* the pool is in the free list (done lazily: no constructors) */
    char *pristine; /* lowest byte never handed out: zero from here up */
} MT_SELF(state);

MT_INLINE uintptr_t MT_SELF(pool_base)(void) { return mt_align_up((uintptr_t)MT_SELF(pool), MT_GRANULE); }
MT_INLINE size_t MT_SELF(pool_granules)(void)
{
    return (mt_align_down_ptr((uintptr_t)MT_SELF(pool) + MT_POOL_SIZE, MT_GRANULE) - MT_SELF(pool_base)()) >>
           MT_GRANULE_SHIFT;
}

/* ---- the page map and OS statistics of this composition ---- */

static inline uintptr_t mt_pagemap_get(const void *p)
{
    size_t index = ((uintptr_t)p - MT_SELF(pool_base)()) >> MT_GRANULE_SHIFT; /* wraps below the pool */
    return index < MT_SELF(pool_granules)() ? mt_load_relaxed(&MT_SELF(map)[index]) : 0;
}

/* Returns false iff part of [p, p + len) lies outside the pool. */
static inline bool mt_pagemap_set_checked(const void *p, size_t len, uintptr_t entry)
{
    size_t first = ((uintptr_t)p - MT_SELF(pool_base)()) >> MT_GRANULE_SHIFT;
    size_t count = len ? (len + MT_GRANULE - 1) >> MT_GRANULE_SHIFT : 1;
    if (first >= MT_SELF(pool_granules)() || count > MT_SELF(pool_granules)() - first)
        return false;
    for (size_t i = first; i < first + count; i++)
        mt_store_release(&MT_SELF(map)[i], entry);
    return true;
}

static inline void mt_pagemap_set(const void *p, size_t len, uintptr_t entry)
{
    (void)mt_pagemap_set_checked(p, len, entry);
}

/* ---- the instance ---- */

static void MT_SELF(lock)(void) { MT_SYNC_FN(MT_SYNC, lock)(&MT_SELF(state).lock); }
static void MT_SELF(unlock)(void) { MT_SYNC_FN(MT_SYNC, unlock)(&MT_SELF(state).lock); }

/* Lock held. The whole pool becomes one free range on first use. */
MT_SLOW void MT_SELF(start)(void)
{
    char *base = (char *)MT_SELF(pool_base)();
    mt_range_fit_init(&MT_SELF(state).free, base);
    mt_range_fit_give(&MT_SELF(state).free, base, MT_SELF(pool_granules)());
    MT_SELF(state).pristine = base;
    MT_SELF(state).ready = true;
    mt_store_relaxed(&mt_os_counters.mapped, MT_SELF(pool_granules)() << MT_GRANULE_SHIFT);
}

static char *MT_SELF(obtain)(size_t granules, size_t align, bool *zeroed)
{
    MT_SELF(lock)();
    if (MT_UNLIKELY(!MT_SELF(state).ready))
        MT_SELF(start)();
    char *p = granules <= MT_SELF(pool_granules)() ? mt_range_fit_take(&MT_SELF(state).free, granules, align)
                                                   : NULL;
    if (p) {
        char *end = p + (granules << MT_GRANULE_SHIFT);
        *zeroed = p >= MT_SELF(state).pristine;
        if (end > MT_SELF(state).pristine)
            MT_SELF(state).pristine = end;
    }
    MT_SELF(unlock)();
    return p;
}

static void MT_SELF(release)(char *p, size_t granules)
{
    MT_SELF(lock)();
    mt_range_fit_give(&MT_SELF(state).free, p, granules);
    MT_SELF(unlock)();
}

static bool MT_SELF(extend)(char *end, size_t granules)
{
    MT_SELF(lock)();
    bool done = mt_range_fit_take_at(&MT_SELF(state).free, end, granules);
    MT_SELF(unlock)();
    return done;
}

#define MT_OS_RESIZE_IN_PLACE 1
#define MT_OS_LOCK MT_SELF(state).lock
#include "granule_blocks.h"

#include "../core/layer_end.h"
/* Forget this instance's slots: the next instance starts from the defaults. */
#undef MT_SYNC
#undef MT_LARGE_KEEP
#undef MT_LARGE_DECAY_MS
#undef MT_POOL_SIZE
#undef MT_LOCK_STAT

/* slab_arrcache — per-thread cache grouped by slab, for TLB locality.
 *
 * Serves: alloc requests in size_handle with alignment <= 16 from the calling
 *   thread's cache of the request's class, frees of blocks whose class it
 *   covers into it — like tarrcache, but the cached blocks of a class are
 *   kept in up to MT_SLAB_ARRCACHE_GROUPS groups, each an array of blocks of
 *   one slab: the slab_size-aligned region (64 KiB: one granule, a segfit_lk
 *   or slab span) the block lies in. Allocations drain one group — one slab,
 *   a few pages, few TLB entries — before they move to another, where a LIFO
 *   cache fed by frees from many slabs hands out blocks from all of them in
 *   turn. The paper's TLB-locality cache.
 * The policy:
 *   - one group is the front: allocations pop from it; a free of a block of
 *     the front's slab is pushed on it (the fast paths);
 *   - the other groups are ordered by last use; when the front is empty an
 *     allocation makes the most recently used non-empty group the front (the
 *     slab whose blocks were touched last: warmest in the caches and TLB);
 *   - a free of a block of another slab goes to that slab's group (which
 *     becomes the most recently used); if no group holds the slab, an empty
 *     group takes it, else the least recently used group is emptied below —
 *     all its blocks at once, one slab's worth, which may let the owner give
 *     that slab back — and takes it;
 *   - a full group gives its older half back below; a miss (every group
 *     empty) takes half a group of blocks from below, filed by slab (blocks
 *     of slabs that find no group go back).
 *   Blocks stay owned by the layer below (the page map names it).
 *   Everything else — aligned requests, sizes outside size_handle, blocks of
 *   other classes, getmeta, resize — goes to the next layer.
 * Slots (model language → macro, default):
 *   size_handle=[lo, hi] → MT_SIZE_HANDLE (0, 32768): hi must be finite.
 *   sizeclass=POLICY     → MT_SIZECLASS (log2b); best the policy below.
 *   cache_size=BYTES     → MT_CACHE_SIZE (1 MiB): each thread's budget,
 *                          shared evenly by the classes, then by the groups.
 *   slab_size=BYTES      → MT_SLAB_SIZE (64 KiB, a power of two): the region
 *                          a group stands for; best the slab or span size of
 *                          the layer below.
 *   Tuning (not model slots): MT_SLAB_ARRCACHE_GROUPS (4, at least 2),
 *   MT_SLAB_ARRCACHE_SLOTS (32): a group's most blocks. A group of class c
 *   holds at most L(c) = max(1, min(MT_SLAB_ARRCACHE_SLOTS,
 *   cache_size / classes / size(c) / groups)) blocks, the class at most
 *   groups × L(c). MT_CACHE_BINS: layers/cache/classes.h.
 * Needs from below: getmeta with the usable size (the class hint when the
 *   policy is the same), class-sized allocs, one allocation per thread for
 *   the groups (classes × (groups × L(c) pointers + (groups - 1) × 24
 *   bytes): at most 40 × (4 × 32 × 8 + 72) = 43840 bytes with the defaults).
 * Time: hit: alloc = class index + pop; free = the owner's getmeta, a shift
 *   and a compare of the slab + push. A free of another slab's block:
 *   O(groups), plus an eviction (L(c) frees below) if no group holds the
 *   slab. A miss: O(groups) to find a non-empty group, else L(c) / 2 allocs
 *   below. thread_exit and purge: O(cached blocks).
 * Space: MT_CACHE_BINS × 24 bytes of TLS per thread (the front groups), the
 *   block above and the cached blocks: at most sum(groups × L(c) × size(c))
 *   <= cache_size + groups blocks per class.
 * Thread safety: all state is per thread (initial-exec TLS); no locks, so
 *   nothing to take at fork (the child keeps the forking thread's cache).
 *   At a thread's exit its blocks and groups go back below; later frees go
 *   straight below. Blocks freed by another thread land in that thread's
 *   groups.
 * Fails: only when the layer below fails (ctx->err from it). A thread whose
 *   groups cannot be allocated does not cache — never an error.
 * Example:
 *   mmap_heap
 *     :: segfit_lk(sync=spinlock, size_handle=[0, 262144])
 *     :: slab_arrcache(size_handle=[0, 32768], cache_size=1MB, slab_size=64KB)
 *     :: malloc_socket
 */
/* The layer's descriptor (core/describe.h): the data tools/describe_layers.py
 * reads and core/layer_end.h checks the slots against. */
#define MT_DESCRIPTOR_slab_arrcache(LAYER, SLOT)                       \
    LAYER(slab_arrcache, addon, 0, (), ())                             \
    MT_OPS(SLOT, create, alloc, free, thread_exit, purge)              \
    MT_SLOT_SIZE_HANDLE(SLOT, 0, 32768)                                \
    MT_SLOT_SIZECLASS(SLOT, log2b)                                     \
    SLOT(cache_size, MT_CACHE_SIZE, BYTES, 1 << 20, (1, SIZE_MAX), ()) \
    SLOT(slab_size, MT_SLAB_SIZE, BYTES, 64 << 10, (1, SIZE_MAX), ())
#ifndef MT_DESCRIBE /* describe mode reads the descriptor alone */
#include "../core/layer.h"
#include "../policy/sizeclass/sizeclass.h"
#include "cache/magazine.h"

#ifdef MT_NAME /* another instance name: the names below become its own */
#include "../names/slab_arrcache.h"
#else
#define MT_NAME slab_arrcache
#endif
#ifndef MT_SIZE_HANDLE
#define MT_SIZE_HANDLE 0, 32768
#endif
#ifndef MT_CACHE_SIZE
#define MT_CACHE_SIZE ((size_t)1 << 20)
#endif
#ifndef MT_SLAB_SIZE
#define MT_SLAB_SIZE ((size_t)64 << 10)
#endif
#ifndef MT_SLAB_ARRCACHE_GROUPS
#define MT_SLAB_ARRCACHE_GROUPS 4
#endif
#ifndef MT_SLAB_ARRCACHE_SLOTS
#define MT_SLAB_ARRCACHE_SLOTS 32
#endif
_Static_assert(mt_is_pow2_const(MT_SLAB_SIZE), "slab_arrcache: slab_size must be a power of two");
_Static_assert(MT_SLAB_ARRCACHE_GROUPS >= 2 && MT_SLAB_ARRCACHE_GROUPS <= 64,
               "slab_arrcache: MT_SLAB_ARRCACHE_GROUPS out of range (2..64)");
_Static_assert(MT_SLAB_ARRCACHE_SLOTS >= 1 && MT_SLAB_ARRCACHE_SLOTS <= 65536,
               "slab_arrcache: MT_SLAB_ARRCACHE_SLOTS out of range");

MT_DECLARE_BELOW(alloc); /* the groups */
MT_DECLARE_BELOW(getmeta);
MT_DECLARE_BELOW(free);

#include "../written/slab_arrcache/policy_sizeclass_slot.inl"
#include "../written/slab_arrcache/cache_classes.inl"

enum { slab_arrcache_backs = MT_SLAB_ARRCACHE_GROUPS - 1 };

typedef struct {
    mt_magazine mag; /* the group's blocks; cap = L(c), 0 while not caching */
    uintptr_t slab;  /* address / slab_size of every block in it */
} slab_arrcache_group;

static MT_TLS struct {
    slab_arrcache_group front[slab_arrcache_bins];
    int state;                  /* cache/thread_state.h */
    slab_arrcache_group *store; /* per cached class, backs groups (most recent
                              first), then every group's slots: from below */
} slab_arrcache_tl;

#include "../written/slab_arrcache/cache_thread_state.inl"

MT_INLINE uintptr_t slab_arrcache_slab_of(const void *p)
{
    return (uintptr_t)p >> mt_log2_floor(MT_SLAB_SIZE);
}

MT_INLINE size_t slab_arrcache_group_cap(size_t c)
{
    size_t each = slab_arrcache_share(MT_CACHE_SIZE, c) / MT_SLAB_ARRCACHE_GROUPS;
    each = each < MT_SLAB_ARRCACHE_SLOTS ? each : MT_SLAB_ARRCACHE_SLOTS;
    return each ? each : 1;
}

/* Class c's other groups, most recently used first. */
MT_INLINE slab_arrcache_group *slab_arrcache_backs_of(size_t c)
{
    return slab_arrcache_tl.store + (c - slab_arrcache_first()) * slab_arrcache_backs;
}

/* The thread's first use: one block from below holds every class's back
 * group records and the slot arrays of all groups. */
MT_SLOW void slab_arrcache_start(void)
{
    size_t classes = slab_arrcache_end() - slab_arrcache_first(), slots = 0;
    for (size_t c = slab_arrcache_first(); c < slab_arrcache_end(); c++)
        slots += MT_SLAB_ARRCACHE_GROUPS * slab_arrcache_group_cap(c);
    /* clang-format off */
    size_t records = classes * slab_arrcache_backs * sizeof(slab_arrcache_group);
    /* clang-format on */
    mt_ctx sub = mt_ctx_for_alloc(records + slots * sizeof(void *), MT_CACHELINE);
    char *store = MT_BELOW(alloc)(&sub);
    slab_arrcache_tl.state = store ? mt_cache_on : mt_cache_off;
    if (!store)
        return;
    slab_arrcache_tl.store = (slab_arrcache_group *)(void *)store;
    void **slot = (void **)(void *)(store + records);
    for (size_t c = slab_arrcache_first(); c < slab_arrcache_end(); c++) {
        uint32_t cap = (uint32_t)slab_arrcache_group_cap(c);
        slab_arrcache_group *g = slab_arrcache_backs_of(c);
        slab_arrcache_tl.front[c] = (slab_arrcache_group){{slot, 0, cap}, 0};
        slot += cap;
        for (size_t i = 0; i < slab_arrcache_backs; i++, slot += cap)
            g[i] = (slab_arrcache_group){{slot, 0, cap}, 0};
    }
}

/* Make back group i the most recently used back group. */
MT_INLINE void slab_arrcache_touch(slab_arrcache_group *back, size_t i)
{
    slab_arrcache_group g = back[i];
    for (; i > 0; i--)
        back[i] = back[i - 1];
    back[0] = g;
}

/* Make back group i the front; the old front becomes the most recent back. */
MT_INLINE void slab_arrcache_promote(size_t c, size_t i)
{
    slab_arrcache_group *back = slab_arrcache_backs_of(c);
    slab_arrcache_touch(back, i);
    slab_arrcache_group g = back[0];
    back[0] = slab_arrcache_tl.front[c];
    slab_arrcache_tl.front[c] = g;
}

/* The back group that takes blocks of `slab`: the one holding that slab,
 * else the least recently used empty one, else (when `evict`) the least
 * recently used one, emptied below first; it becomes the most recently
 * used. NULL if none may take it. */
MT_SLOW slab_arrcache_group *slab_arrcache_group_for(size_t c, uintptr_t slab, bool evict,
                                                     mt_lfunc *free_below)
{
    slab_arrcache_group *back = slab_arrcache_backs_of(c);
    size_t empty = SIZE_MAX;
    for (size_t i = 0; i < slab_arrcache_backs; i++) {
        if (back[i].mag.n && back[i].slab == slab) {
            slab_arrcache_touch(back, i);
            return &back[0];
        }
        if (!back[i].mag.n)
            empty = i;
    }
    if (empty == SIZE_MAX) {
        if (!evict)
            return NULL;
        empty = slab_arrcache_backs - 1;
        mt_magazine_drain(&back[empty].mag, SIZE_MAX, free_below);
    }
    back[empty].slab = slab;
    slab_arrcache_touch(back, empty);
    return &back[0];
}

/* File a block from below under its slab's group; false if none takes it. */
MT_INLINE bool slab_arrcache_file(size_t c, void *p, mt_lfunc *free_below)
{
    slab_arrcache_group *g = &slab_arrcache_tl.front[c];
    uintptr_t slab = slab_arrcache_slab_of(p);
    if (g->slab != slab || g->mag.n >= g->mag.cap) {
        g = slab_arrcache_group_for(c, slab, false, free_below);
        if (!g || g->mag.n >= g->mag.cap)
            return false;
    }
    g->mag.slot[g->mag.n++] = p;
    return true;
}

/* Alloc's slow path: requests it does not take go below; with the front
 * empty, the most recently used non-empty group becomes the front; with
 * every group empty, the request is served from below and half a group more
 * is taken and filed by slab. */
MT_SLOW void *slab_arrcache_alloc_slow(mt_ctx *ctx, mt_lfunc *next)
{
    if (!slab_arrcache_takes(ctx->size, ctx->align) || !slab_arrcache_ready())
        return next(ctx);
    size_t c = slab_arrcache_class_index(ctx->size);
    slab_arrcache_group *back = slab_arrcache_backs_of(c), *front = &slab_arrcache_tl.front[c];
    for (size_t i = 0; i < slab_arrcache_backs; i++) {
        if (back[i].mag.n) {
            slab_arrcache_promote(c, i);
            return front->mag.slot[--front->mag.n];
        }
    }
    size_t csize = slab_arrcache_class_size(c);
    ctx->size = csize; /* a whole class, so the block serves any size of it */
    void *first = next(ctx), *batch[MT_SLAB_ARRCACHE_SLOTS];
    if (!first)
        return NULL;
    front->slab = slab_arrcache_slab_of(first); /* the slab in use now leads */
    size_t got = mt_cache_take(batch, front->mag.cap / 2, csize, next);
    for (size_t i = 0; i < got; i++)
        if (!slab_arrcache_file(c, batch[i], MT_BELOW(free)))
            mt_cache_free_block(batch[i], MT_BELOW(free));
    return first;
}

/* Free's slow path: a block of a class it does not keep, a thread that does
 * not cache, a full front, or a block of another slab than the front's. */
MT_SLOW void slab_arrcache_free_slow(void *p, size_t c, mt_lfunc *next)
{
    if (!slab_arrcache_covers(c) || !slab_arrcache_ready()) {
        mt_cache_free_block(p, next);
        return;
    }
    slab_arrcache_group *g = &slab_arrcache_tl.front[c];
    uintptr_t slab = slab_arrcache_slab_of(p);
    if (g->slab != slab) {
        if (g->mag.n)
            g = slab_arrcache_group_for(c, slab, true, next);
        g->slab = slab;
    }
    if (g->mag.n >= g->mag.cap)
        mt_magazine_drain(&g->mag, (g->mag.cap + 1) / 2, next);
    g->mag.slot[g->mag.n++] = p;
}

/* The fast paths pop the front group and push a block of its slab. */
MT_INLINE mt_magazine *slab_arrcache_magazine(size_t c) { return &slab_arrcache_tl.front[c].mag; }
MT_INLINE bool slab_arrcache_accepts(size_t c, void *p)
{
    return slab_arrcache_tl.front[c].slab == slab_arrcache_slab_of(p);
}
#include "../written/slab_arrcache/cache_magazine_ops.inl" /* alloc, free: pop and push; stop */

/* Give every cached block back below. True if there was any. */
MT_SLOW bool slab_arrcache_flush_all(void)
{
    size_t any = 0;
    if (slab_arrcache_tl.state != mt_cache_on)
        return false;
    for (size_t c = slab_arrcache_first(); c < slab_arrcache_end(); c++) {
        any += mt_magazine_drain(&slab_arrcache_tl.front[c].mag, SIZE_MAX, MT_BELOW(free));
        for (size_t i = 0; i < slab_arrcache_backs; i++)
            any += mt_magazine_drain(&slab_arrcache_backs_of(c)[i].mag, SIZE_MAX, MT_BELOW(free));
    }
    return any != 0;
}

#include "../written/slab_arrcache/cache_check.inl" /* cached_in, check_magazine */

/* One group of class c: its magazine, and every block of the slab the
 * group is filed under. */
MT_SLOW const char *slab_arrcache_check_group(const slab_arrcache_group *g, size_t c)
{
    const char *broken = slab_arrcache_check_magazine(&g->mag, c);
    for (uint32_t i = 0; !broken && i < g->mag.n; i++)
        if (slab_arrcache_slab_of(g->mag.slot[i]) != g->slab)
            broken = MT_STR(MT_NAME) ": a block filed under another slab's group";
    return broken;
}

/* The calling thread's groups (other threads check their own). */
#define MT_HAS_INVARIANTS /* check: these, then the layers below (core/ops.h) */
MT_SLOW MT_UNUSED const char *slab_arrcache_invariants(void)
{
    const char *broken = NULL;
    for (size_t c = slab_arrcache_first(); c < slab_arrcache_end() && !broken; c++) {
        broken = slab_arrcache_check_group(&slab_arrcache_tl.front[c], c);
        /* clang-format off */
        for (size_t i = 0; slab_arrcache_tl.store && i < slab_arrcache_backs && !broken; i++)
            broken = slab_arrcache_check_group(&slab_arrcache_backs_of(c)[i], c);
        /* clang-format on */
    }
    return broken;
}

#define MT_DESCRIPTOR MT_DESCRIPTOR_slab_arrcache
#include "../core/layer_end.h"
/* Forget this instance's slots: the next instance starts from the defaults. */
#undef MT_SIZE_HANDLE
#undef MT_SIZECLASS
#undef MT_SIZECLASS_STEP
#undef MT_SLAB_SIZE
#undef MT_CACHE_SIZE
#undef MT_SLAB_ARRCACHE_GROUPS
#undef MT_SLAB_ARRCACHE_SLOTS
#ifdef MT_NAMES_slab_arrcache
#include "../names/slab_arrcache.h" /* forget them */
#endif
#endif /* MT_DESCRIBE */

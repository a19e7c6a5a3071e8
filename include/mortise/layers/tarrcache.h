/* tarrcache — per-thread array magazines per size class.
 *
 * Serves: alloc requests in size_handle with alignment <= 16 from the calling
 *   thread's magazine of the request's class: a fixed-size array of block
 *   pointers (layers/cache/magazine.h), popped from the top. A free of a
 *   block whose class it covers is pushed on the freeing thread's magazine.
 *   When a magazine is empty, a miss takes half a magazine of blocks from the
 *   layer below in one go; when it is full, a free gives the older half back
 *   below first. Unlike thread_cache's lists it never writes into a cached
 *   block (no link word), so a cached block's memory is not touched until
 *   the program gets it back, and a hit reads the array, not the block.
 *   Cached blocks stay owned by the layer below (the page map names it), so
 *   the cache needs no lock, no page-map entry and no metadata of its own.
 *   Everything else — aligned requests, sizes outside size_handle, blocks of
 *   other classes, getmeta, resize — goes to the next layer.
 * Slots (model language → macro, default):
 *   size_handle=[lo, hi] → MT_SIZE_HANDLE (0, 32768): hi must be finite.
 *   sizeclass=POLICY     → MT_SIZECLASS (log2b); best the policy of the layer
 *                          below, so blocks come back in whole classes.
 *   cache_size=BYTES     → MT_CACHE_SIZE (1 MiB): each thread's budget, shared
 *                          evenly by the classes of size_handle.
 *   Tuning (not model slots): MT_TARRCACHE_SLOTS (64), a magazine's most
 *   slots. Class c holds at most cap(c) = min(MT_TARRCACHE_SLOTS,
 *   max(1, cache_size / classes / size(c))) blocks; a miss takes
 *   max(1, cap(c) / 2) blocks below, a full magazine gives cap(c) / 2 back
 *   (at least 1). MT_CACHE_BINS: see layers/cache/classes.h.
 * Needs from below: getmeta answering the usable size of every block it owns
 *   (the class hint when the policy is the same), class-sized allocs, and one
 *   allocation of sum(cap(c)) pointers per thread for the slot arrays
 *   (40 classes with the defaults: at most 40 × 64 × 8 = 20 KiB).
 * Time: hit: alloc = class index + pop from the array (no atomic, no lock,
 *   no read of the block); free = the owner's getmeta + push. Miss: up to
 *   cap(c) / 2 allocs below; full magazine: cap(c) / 2 frees below plus
 *   moving the other half down (O(MT_TARRCACHE_SLOTS)). thread_exit and
 *   purge: O(cached blocks).
 * Space: MT_CACHE_BINS × 16 bytes of TLS per thread (the magazines' counts
 *   and array pointers), the slot arrays (above) and the cached blocks: at
 *   most sum(cap(c) × size(c)) <= cache_size + one block per class.
 * Thread safety: all state is per thread (initial-exec TLS); no locks, so
 *   nothing to take at fork: the child keeps the forking thread's magazines.
 *   A thread's first miss or free attaches it (mt_thread_attach), which
 *   allocates its slot arrays below; at its exit every cached block and the
 *   arrays go back below, and later frees of the thread go straight below.
 *   Blocks freed by another thread land in that thread's magazines.
 * Fails: only when the layer below fails (ctx->err from it). If the slot
 *   arrays cannot be allocated, the thread does not cache (every request
 *   goes below) — never an error.
 * Example:
 *   mmap_heap
 *     :: segfit_lk(sync=spinlock, size_handle=[0, 262144])
 *     :: tarrcache(size_handle=[0, 32768], cache_size=1MB)
 *     :: malloc_socket
 */
/* The layer's descriptor (core/describe.h): the data tools/describe_layers.py
 * reads and core/layer_end.h checks the slots against. */
#define MT_DESCRIPTOR_tarrcache(LAYER, SLOT)              \
    LAYER(tarrcache, addon, 0, (), ())                    \
    MT_OPS(SLOT, create, alloc, free, thread_exit, purge) \
    MT_SLOT_SIZE_HANDLE(SLOT, 0, 32768)                   \
    MT_SLOT_SIZECLASS(SLOT, log2b)                        \
    SLOT(cache_size, MT_CACHE_SIZE, BYTES, 1 << 20, (1, SIZE_MAX), ())
#ifndef MT_DESCRIBE /* describe mode reads the descriptor alone */
#include "../core/layer.h"
#include "../policy/sizeclass/sizeclass.h"
#include "cache/magazine.h"

#ifdef MT_NAME /* another instance name: the names below become its own */
#include "../names/tarrcache.h"
#else
#define MT_NAME tarrcache
#endif
#ifndef MT_SIZE_HANDLE
#define MT_SIZE_HANDLE 0, 32768
#endif
#ifndef MT_CACHE_SIZE
#define MT_CACHE_SIZE ((size_t)1 << 20)
#endif
#ifndef MT_TARRCACHE_SLOTS
#define MT_TARRCACHE_SLOTS 64
#endif
_Static_assert(MT_TARRCACHE_SLOTS >= 1 && MT_TARRCACHE_SLOTS <= 65536,
               "tarrcache: MT_TARRCACHE_SLOTS out of range");

MT_DECLARE_BELOW(alloc); /* the slot arrays */
MT_DECLARE_BELOW(getmeta);
MT_DECLARE_BELOW(free);

#include "../written/tarrcache/policy_sizeclass_slot.inl"
#include "../written/tarrcache/cache_classes.inl"

static MT_TLS struct {
    mt_magazine mag[tarrcache_bins];
    int state;    /* cache/thread_state.h */
    void **store; /* every magazine's slots, one block from below */
} tarrcache_tl;

#include "../written/tarrcache/cache_thread_state.inl"

/* The thread's first use: slot arrays for every cached class, from below. */
MT_SLOW void tarrcache_start(void)
{
    uint32_t caps[tarrcache_bins];
    void **store =
        mt_magazine_store(tarrcache_caps(caps, MT_CACHE_SIZE, MT_TARRCACHE_SLOTS), MT_BELOW(alloc));
    tarrcache_tl.state = store ? mt_cache_on : mt_cache_off;
    if (!store)
        return;
    tarrcache_tl.store = store;
    mt_magazine_carve(&tarrcache_tl.mag[tarrcache_first()], &caps[tarrcache_first()],
                      tarrcache_end() - tarrcache_first(), store);
}

/* Alloc's slow path: requests it does not take go below; a miss serves the
 * request from below and fills half the magazine for the next ones. */
MT_SLOW void *tarrcache_alloc_slow(mt_ctx *ctx, mt_lfunc *next)
{
    if (!tarrcache_takes(ctx->size, ctx->align) || !tarrcache_ready())
        return next(ctx);
    size_t c = tarrcache_class_index(ctx->size);
    mt_magazine *m = &tarrcache_tl.mag[c];
    size_t csize = tarrcache_class_size(c);
    ctx->size = csize; /* a whole class, so the block serves any size of it */
    void *first = next(ctx);
    if (first && m->n == 0 && m->cap > 1)
        m->n = (uint32_t)mt_cache_take(m->slot, m->cap / 2, csize, next);
    return first;
}

/* Free's slow path: a block of a class it does not keep, a full magazine
 * (its older half goes below first), or a thread that does not cache. */
MT_SLOW void tarrcache_free_slow(void *p, size_t c, mt_lfunc *next)
{
    if (tarrcache_covers(c) && tarrcache_ready()) {
        mt_magazine *m = &tarrcache_tl.mag[c];
        if (m->n >= m->cap)
            mt_magazine_drain(m, (m->cap + 1) / 2, next);
        m->slot[m->n++] = p;
        return;
    }
    mt_cache_free_block(p, next);
}

MT_INLINE mt_magazine *tarrcache_magazine(size_t c) { return &tarrcache_tl.mag[c]; }
MT_INLINE bool tarrcache_accepts(size_t c, void *p) { return (void)c, (void)p, true; }
#include "../written/tarrcache/cache_magazine_ops.inl" /* alloc, free: pop and push; stop */

/* Give every cached block back below. True if there was any. */
MT_SLOW bool tarrcache_flush_all(void)
{
    size_t any = 0;
    for (size_t c = tarrcache_first(); c < tarrcache_end(); c++)
        any += mt_magazine_drain(&tarrcache_tl.mag[c], SIZE_MAX, MT_BELOW(free));
    return any != 0;
}

#include "../written/tarrcache/cache_check.inl" /* cached_in, check_magazine */

/* The calling thread's magazines (other threads check their own). */
#define MT_HAS_INVARIANTS /* check: these, then the layers below (core/ops.h) */
MT_SLOW MT_UNUSED const char *tarrcache_invariants(void)
{
    const char *broken = NULL;
    for (size_t c = tarrcache_first(); c < tarrcache_end() && !broken; c++)
        broken = tarrcache_check_magazine(&tarrcache_tl.mag[c], c);
    return broken;
}

#define MT_DESCRIPTOR MT_DESCRIPTOR_tarrcache
#include "../core/layer_end.h"
/* Forget this instance's slots: the next instance starts from the defaults. */
#undef MT_SIZE_HANDLE
#undef MT_SIZECLASS
#undef MT_SIZECLASS_STEP
#undef MT_CACHE_SIZE
#undef MT_TARRCACHE_SLOTS
#ifdef MT_NAMES_tarrcache
#include "../names/tarrcache.h" /* forget them */
#endif
#endif /* MT_DESCRIBE */

/* mortise/layers/cache/magazine.h — arrays of cached block pointers and the
 * batch exchange of blocks with the layer below, shared by the cache layers.
 *
 * A magazine is a fixed-size array of block pointers (Bonwick's magazines):
 * `n` blocks in slot[0 .. n), the newest on top, at most `cap`. Unlike a
 * free list threaded through the blocks it never writes into a cached block,
 * so a pop reads no memory of the block it returns. Layers keep the
 * magazine of their fast path where one load reaches it (TLS, a per-CPU
 * record) and the slot arrays elsewhere (a block from the layer below).
 *
 *   mt_cache_free_block(p, free_below)       route p by the page map and
 *                                            free it to the chain below
 *   mt_cache_take(out, want, size, below)    up to `want` blocks of `size`
 *                                            bytes from the alloc chain
 *                                            below into out[], the last
 *                                            taken first: how many
 *   mt_cache_give(blocks, n, free_below)     free n blocks below
 *   mt_magazine_pop(m, n), mt_magazine_push(m, n, p)   the fast paths
 *   mt_magazine_drain(m, count, free_below)  free the `count` oldest blocks
 *                                            of m below (the newest, the
 *                                            ones most likely still in the
 *                                            CPU's cache, stay): how many
 *   mt_magazine_unload(m, count, out)        the same into out[], to free
 *                                            them after a lock is dropped
 *   mt_magazine_store(slots, alloc_below)    one block from below for them
 *   mt_magazine_carve(mags, caps, n, store)  point n magazines at
 *                                            consecutive parts of one store
 * Time: O(blocks moved); the below calls are the layer below's cost.
 */
#ifndef MORTISE_LAYERS_CACHE_MAGAZINE_H
#define MORTISE_LAYERS_CACHE_MAGAZINE_H

#include "../../core/pagemap.h"

typedef struct {
    void **slot;  /* cap entries; NULL while the magazine has none */
    uint32_t n;   /* blocks held: slot[0 .. n) */
    uint32_t cap; /* bound; 0 while the cache is not set up (every free misses) */
} mt_magazine;

/* The fast paths' pop and push; n is m->n, already read and checked
 * (n > 0 to pop, n < cap to push). A cached slot is never NULL: saying so
 * lets the compiler drop the socket's NULL test of an allocation's result. */
MT_INLINE void *mt_magazine_pop(mt_magazine *m, uint32_t n)
{
    void *p = m->slot[--n];
    m->n = n;
    if (!p)
        __builtin_unreachable();
    return p;
}
MT_INLINE void mt_magazine_push(mt_magazine *m, uint32_t n, void *p)
{
    m->slot[n] = p;
    m->n = n + 1;
}

MT_UNUSED static void mt_cache_free_block(void *p, mt_lfunc *free_below)
{
    mt_ctx sub = mt_ctx_for_alloc(0, 1);
    mt_ctx_route(&sub, p);
    free_below(&sub);
}

MT_UNUSED static size_t mt_cache_take(void **out, size_t want, size_t size, mt_lfunc *alloc_below)
{
    size_t got = 0;
    while (got < want) {
        mt_ctx sub = mt_ctx_for_alloc(size, 1);
        void *p = alloc_below(&sub);
        if (!p)
            break;
        out[got++] = p;
    }
    /* Newest first: a magazine filled from out[0] pops the blocks in the
     * order below handed them out, ascending from fresh memory, the order
     * a hardware prefetcher follows. */
    for (size_t i = 0, j = got; i + 1 < j; i++, j--) {
        void *t = out[i];
        out[i] = out[j - 1];
        out[j - 1] = t;
    }
    return got;
}

MT_UNUSED static void mt_cache_give(void *const *blocks, size_t n, mt_lfunc *free_below)
{
    for (size_t i = 0; i < n; i++)
        mt_cache_free_block(blocks[i], free_below);
}

/* Forget the oldest `count` blocks of m (count <= n): the rest move down. */
MT_INLINE void mt_magazine_drop_oldest(mt_magazine *m, size_t count)
{
    size_t n = m->n;
    for (size_t i = count; i < n; i++)
        m->slot[i - count] = m->slot[i];
    m->n = (uint32_t)(n - count);
}

MT_UNUSED static size_t mt_magazine_drain(mt_magazine *m, size_t count, mt_lfunc *free_below)
{
    count = count < m->n ? count : m->n;
    mt_cache_give(m->slot, count, free_below);
    mt_magazine_drop_oldest(m, count);
    return count;
}

/* Moves the oldest `count` blocks of m into out[], to be freed below once a
 * lock is dropped (carrcache_lk). Returns how many. */
MT_UNUSED static size_t mt_magazine_unload(mt_magazine *m, size_t count, void **out)
{
    count = count < m->n ? count : m->n;
    for (size_t i = 0; i < count; i++)
        out[i] = m->slot[i];
    mt_magazine_drop_oldest(m, count);
    return count;
}

/* One block from below for `slots` pointers (a cache's slot arrays). */
MT_UNUSED static void **mt_magazine_store(size_t slots, mt_lfunc *alloc_below)
{
    mt_ctx sub = mt_ctx_for_alloc(slots * sizeof(void *), MT_CACHELINE);
    return alloc_below(&sub);
}

MT_UNUSED static void mt_magazine_carve(mt_magazine *mags, const uint32_t *caps, size_t n, void **store)
{
    for (size_t i = 0; i < n; i++) {
        mags[i].slot = store;
        mags[i].n = 0;
        mags[i].cap = caps[i];
        store += caps[i];
    }
}

#endif

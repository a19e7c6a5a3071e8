/* mortise/layers/glk/record_pool.h — out-of-line metadata records for trunk
 * layers (buddy_glk's chunk records).
 *
 * A pool hands out records of one size, carved from granules it takes from
 * the layer below and never gives back (metadata is bounded by the layer's
 * peak of slabs or chunks); a record given back is reused first. Keeping
 * records out of the blocks they describe lets a layer give whole spans
 * back (their pages untouched) and find a block's metadata through the page
 * map without reading memory in front of a pointer.
 * State: a zero-filled mt_record_pool is an empty pool (static storage, no
 * constructor). Thread safety: its own spinlock; it calls the layer below
 * while holding it, so in the lock order it comes after the layer's own
 * locks and before the layer below (fork handlers: mt_record_pool_lock
 * after the layer's locks, unlock before them).
 * Time: O(1) per record; one call below per granule / record size records.
 * Fails: mt_record_get returns NULL when the layer below does.
 */
#ifndef MORTISE_LAYERS_GLK_RECORD_POOL_H
#define MORTISE_LAYERS_GLK_RECORD_POOL_H

#include "../../core/ctx.h"
#include "../../policy/sync/spinlock.h"

typedef struct mt_record_pool {
    mt_sync_spinlock lock;
    void *free;         /* records given back; the next one in the first word */
    uintptr_t cur, end; /* the granule being carved (integers: no arithmetic on NULL) */
} mt_record_pool;

/* A record of `size` bytes (a multiple of 16, at most MT_GRANULE / 4),
 * aligned to 16 (to 64 when size is a multiple of 64); its contents are
 * undefined. `alloc_below` is the alloc chain below the layer. */
MT_SLOW MT_UNUSED void *mt_record_get(mt_record_pool *pool, size_t size, mt_lfunc *alloc_below)
{
    void *rec;
    mt_sync_spinlock_lock(&pool->lock);
    if ((rec = pool->free)) {
        pool->free = *(void **)rec;
    } else {
        if (pool->end - pool->cur < size) {
            mt_ctx sub = mt_ctx_for_alloc(MT_GRANULE, MT_GRANULE);
            char *chunk = alloc_below(&sub);
            if (!chunk) {
                mt_sync_spinlock_unlock(&pool->lock);
                return NULL;
            }
            pool->cur = (uintptr_t)chunk;
            pool->end = (uintptr_t)chunk + MT_GRANULE;
        }
        rec = (void *)pool->cur;
        pool->cur += size;
    }
    mt_sync_spinlock_unlock(&pool->lock);
    return rec;
}

MT_SLOW MT_UNUSED void mt_record_put(mt_record_pool *pool, void *rec)
{
    mt_sync_spinlock_lock(&pool->lock);
    *(void **)rec = pool->free;
    pool->free = rec;
    mt_sync_spinlock_unlock(&pool->lock);
}

MT_INLINE void mt_record_pool_lock(mt_record_pool *pool) { mt_sync_spinlock_lock(&pool->lock); }
MT_INLINE void mt_record_pool_unlock(mt_record_pool *pool) { mt_sync_spinlock_unlock(&pool->lock); }
MT_INLINE void mt_record_pool_reset(mt_record_pool *pool) { mt_sync_spinlock_init(&pool->lock); }

#endif

/* mortise/policy/sync/records.h — request records for the combining policies
 * (ccsynch, flatcombine).
 *
 * A combining lock publishes each request in a record that another thread
 * (the combiner) reads and answers. Records therefore cannot live in the
 * requesting thread's TLS or stack: a combiner may still read one after its
 * thread has gone, and ccsynch hands records from thread to thread. They come
 * from a process-wide pool instead:
 *
 *   - chunks of MT_SYNC_POOL_CHUNK records (64 bytes each, one cache line)
 *     mapped from the OS on demand, never unmapped, up to MT_SYNC_POOL_CHUNKS
 *     chunks (65536 records by default), so a record's memory stays valid;
 *   - a lock-free free list (a stack whose head carries a version tag against
 *     ABA); no lock anywhere, so the pool is consistent in a fork child
 *     whatever the parent's other threads were doing;
 *   - every record has an index; mt_sync_pool_at(i) for i < count walks all
 *     records ever made (flatcombine's publication list);
 *   - a thread's record goes back to the free list when the thread exits
 *     (the port layer's thread-exit key; mt_sync_pool_bind).
 * The pool never allocates with malloc (it runs inside allocators). When the
 * OS refuses a chunk, or all chunks are used, mt_sync_pool_get returns NULL and
 * the policy takes its fallback path.
 */
#ifndef MORTISE_POLICY_SYNC_RECORDS_H
#define MORTISE_POLICY_SYNC_RECORDS_H

#include "wait.h"

#ifndef MT_SYNC_POOL_CHUNK
#define MT_SYNC_POOL_CHUNK 1024
#endif
#ifndef MT_SYNC_POOL_CHUNKS
#define MT_SYNC_POOL_CHUNKS 64
#endif

typedef void *mt_sync_cs(void *);

typedef struct MT_CACHE_ALIGNED mt_sync_rec {
    _Atomic(struct mt_sync_rec *) next; /* ccsynch: queue successor */
    _Atomic(mt_sync_cs *) cs;           /* the request: cs(arg) */
    _Atomic(void *) arg;
    _Atomic(void *) lock;        /* flatcombine: the lock it is for */
    void *ret;                   /* the answer */
    _Atomic(uint32_t) state;     /* the policy's hand-over word (futex) */
    uint32_t completed;          /* ccsynch: answered by a combiner */
    _Atomic(uint32_t) free_next; /* pool: index + 1 of the next free record */
    uint32_t index;              /* pool: this record's index */
} mt_sync_rec;

typedef struct {
    _Atomic(uint64_t) free;  /* (version << 32) | (index + 1) of the first free record */
    _Atomic(uint32_t) count; /* records handed out fresh so far */
    _Atomic(mt_sync_rec *) chunk[MT_SYNC_POOL_CHUNKS];
    mt_once key_state; /* 0 none, being created, MT_ONCE_DONE, MT_ONCE_FAILED */
    mt_pal_key key;
} mt_sync_pool; /* zero-filled = empty and ready */

/* Record i, or NULL if its chunk is not mapped (yet). */
MT_INLINE mt_sync_rec *mt_sync_pool_at(mt_sync_pool *p, uint32_t i)
{
    if (i >= (uint32_t)MT_SYNC_POOL_CHUNK * MT_SYNC_POOL_CHUNKS)
        return NULL;
    mt_sync_rec *c = mt_load_acquire(&p->chunk[i / MT_SYNC_POOL_CHUNK]);
    return c ? &c[i % MT_SYNC_POOL_CHUNK] : NULL;
}

/* How many indices to scan to see every record in use. */
MT_INLINE uint32_t mt_sync_pool_count(mt_sync_pool *p)
{
    uint32_t n = mt_load_acquire(&p->count);
    uint32_t max = (uint32_t)MT_SYNC_POOL_CHUNK * MT_SYNC_POOL_CHUNKS;
    return n < max ? n : max;
}

MT_SLOW mt_sync_rec *mt_sync_pool_fresh(mt_sync_pool *p)
{
    uint32_t i = mt_faa(&p->count, 1);
    if (i >= (uint32_t)MT_SYNC_POOL_CHUNK * MT_SYNC_POOL_CHUNKS)
        return NULL;
    _Atomic(mt_sync_rec *) *slot = &p->chunk[i / MT_SYNC_POOL_CHUNK];
    if (!mt_load_acquire(slot)) {
        size_t len = sizeof(mt_sync_rec) * MT_SYNC_POOL_CHUNK;
        void *m = mt_pal_map(len);
        if (!m)
            return NULL; /* index i stays unused; a later chunk install makes it idle */
        mt_sync_rec *expect = NULL;
        if (!mt_cas(slot, &expect, (mt_sync_rec *)m))
            mt_pal_unmap(m, len); /* another thread mapped this chunk first */
    }
    mt_sync_rec *r = mt_sync_pool_at(p, i);
    r->index = i;
    return r;
}

/* A record for the caller (zero-filled fields are not promised: the policy
 * sets what it uses), or NULL when the pool cannot grow. Lock-free. */
MT_INLINE mt_sync_rec *mt_sync_pool_get(mt_sync_pool *p)
{
    uint64_t head = mt_load_acquire(&p->free);
    while ((uint32_t)head) {
        mt_sync_rec *r = mt_sync_pool_at(p, (uint32_t)head - 1);
        uint64_t next = ((head >> 32) + 1) << 32 | mt_load_relaxed(&r->free_next);
        if (atomic_compare_exchange_weak_explicit(&p->free, &head, next, memory_order_acq_rel,
                                                  memory_order_acquire))
            return r;
    }
    return mt_sync_pool_fresh(p);
}

MT_INLINE void mt_sync_pool_put(mt_sync_pool *p, mt_sync_rec *r)
{
    uint64_t head = mt_load_relaxed(&p->free);
    do
        mt_store_relaxed(&r->free_next, (uint32_t)head);
    while (!atomic_compare_exchange_weak_explicit(&p->free, &head, ((head >> 32) + 1) << 32 | (r->index + 1),
                                                  memory_order_release, memory_order_relaxed));
}

/* Give the thread's record *mine back (from the thread's exit hook). */
MT_INLINE void mt_sync_pool_put_mine(mt_sync_pool *p, mt_sync_rec **mine)
{
    mt_sync_rec *r = *mine;
    *mine = NULL;
    if (r)
        mt_sync_pool_put(p, r);
}

/* Arrange for `done` to run when the calling thread exits (a thread-exit
 * key whose destructor gives the thread's record back). Called once per
 * thread, on its first request. Setting a key allocates nothing for the
 * first 32 keys of a process (glibc); if the key cannot be made, the
 * thread's record is simply never given back. */
MT_SLOW void mt_sync_pool_bind(mt_sync_pool *p, void (*done)(void *))
{
    /* mt_once (platform.h): a fork child that inherited a creation under
     * way creates the key itself */
    uintptr_t state = mt_load_acquire(&p->key_state);
    if (!mt_once_final(state) && (state = mt_once_enter(&p->key_state)) == 0) {
        state = mt_pal_key_create(&p->key, done) ? MT_ONCE_DONE : MT_ONCE_FAILED;
        mt_once_leave(&p->key_state, state);
    }
    if (state == MT_ONCE_DONE)
        mt_pal_key_set(p->key, (void *)1);
}

#endif

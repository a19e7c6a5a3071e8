/* The batch operations (alloc_batch, free_batch; core/ctx.h) between
 * thread_cache and slab_lk, counted with a sync policy that counts lock
 * acquisitions: a miss of the cache takes its whole batch under one
 * class-lock acquisition, and the blocks are distinct block starts of the
 * class, in ascending addresses, that the invariant checker accounts as in
 * use. The same for a chain the cache frees below (a full hand-off slot's
 * old chain): one acquisition for the chain. Between them, a layer that
 * implements alloc and free (count) gets the batches one block at a time
 * by default (it counts every block: one acquisition per block), and a
 * layer that implements neither (fake) passes them on (one acquisition).
 * model: mmap_heap::slab_lk(sync=counted, size_handle=[0, 32768])
 *          ::thread_cache(sizeclass=tc, size_handle=[0, 32768])::custom_socket(prefix=t_)
 *        and the same with count (BATCH_BETWEEN=1) or fake (BATCH_BETWEEN=2)
 *        between slab_lk and thread_cache, built as three programs. */
#include <mortise/mortise.h>

/* sync=counted: a spinlock that counts its acquisitions. */
typedef struct {
    mt_sync_spinlock inner;
} mt_sync_counted;
static _Atomic long counted_locks;
MT_INLINE void mt_sync_counted_init(mt_sync_counted *l) { mt_sync_spinlock_init(&l->inner); }
MT_INLINE void mt_sync_counted_lock(mt_sync_counted *l)
{
    mt_sync_spinlock_lock(&l->inner);
    atomic_fetch_add(&counted_locks, 1);
}
MT_INLINE void mt_sync_counted_unlock(mt_sync_counted *l) { mt_sync_spinlock_unlock(&l->inner); }
MT_INLINE void *mt_sync_counted_exec(mt_sync_counted *l, void *(*cs)(void *), void *arg)
{
    mt_sync_counted_lock(l);
    void *r = cs(arg);
    mt_sync_counted_unlock(l);
    return r;
}

#include <mortise/os/mmap_heap.h>

#define MT_SYNC counted
#define MT_SIZE_HANDLE 0, 32768
#include <mortise/layers/slab_lk.h>

#if BATCH_BETWEEN == 1
#include <mortise/layers/count.h>
#elif BATCH_BETWEEN == 2
#include <mortise/layers/fake.h>
#endif

#define MT_SIZECLASS tc
#define MT_SIZE_HANDLE 0, 32768
#include <mortise/layers/thread_cache.h>

#define MT_PREFIX t_
#include <mortise/sockets/custom_socket.h>

#if BATCH_BETWEEN == 1
MT_COMPOSE(mmap_heap, slab_lk, count, thread_cache, custom_socket)
#elif BATCH_BETWEEN == 2
MT_COMPOSE(mmap_heap, slab_lk, fake, thread_cache, custom_socket)
#else
MT_COMPOSE(mmap_heap, slab_lk, thread_cache, custom_socket)
#endif

#include "../../common/check.h"

static size_t cached(size_t cls)
{
    size_t n = 0;
    for (void *p = thread_cache_tl.head[cls]; p; p = *(void **)p)
        n++;
    return n;
}

int main(void)
{
    const size_t size = 48;
    size_t c = mt_szcls_tc_index(size);
    /* the first miss makes the slab (a lock to install it) and takes a
     * batch from it (a second lock); the second, on a class with a partial
     * slab, takes the batch and its block under one lock */
    void *warm = t_malloc(size);
    CHECK(warm != NULL);
    void *drain[512]; /* a batch: thread_cache's MT_THREAD_CACHE_BATCH_BYTES / 48 at most */
    size_t n = cached(c);
    CHECK(n <= sizeof drain / sizeof *drain);
    if (n > sizeof drain / sizeof *drain)
        n = sizeof drain / sizeof *drain;
    for (size_t i = 0; i < n; i++)
        drain[i] = t_malloc(size);
    CHECK(cached(c) == 0);
    long before = atomic_load(&counted_locks);
    void *p = t_malloc(size); /* a miss */
    long locks = atomic_load(&counted_locks) - before;
    size_t got = cached(c);
    CHECK(p != NULL && got >= 2);
    size_t batch = got + 1; /* the block returned and those cached */
    if (BATCH_BETWEEN == 1)
        CHECK(locks == (long)batch);
    else
        CHECK(locks == 1);
#if BATCH_BETWEEN == 1
    /* count saw every block of the batch, each as one alloc */
    CHECK(count_total().allocs == 1 + n + batch);
#endif
    /* fresh blocks in ascending addresses: p, then the list from its head */
    size_t descending = 0;
    for (void *q = p, *r = thread_cache_tl.head[c]; r; q = r, r = *(void **)r)
        descending += (char *)r < (char *)q;
    CHECK(descending == 0);
    /* every block is a distinct block start of the class, in use for slab_lk */
    size_t bad = 0;
    for (void *q = thread_cache_tl.head[c]; q; q = *(void **)q) {
        bad += q == p || t_malloc_usable_size(q) != mt_szcls_tc_size(c);
        for (void *r = *(void **)q; r; r = *(void **)r)
            bad += r == q;
    }
    CHECK(bad == 0);
    CHECK(t_check() == NULL);
    slab_lk_slab *s = (slab_lk_slab *)mt_payload_ptr(mt_entry_payload(mt_pagemap_get(p)));
    CHECK(s->inuse == 1 + n + batch);
    /* a chain freed below: one acquisition for all of it (the chain the
     * cache frees with the link below it, as its free path does) */
    void *chain = NULL;
    size_t k = 0;
    for (; k < 20; k++) {
        void *b = t_malloc(size);
        *(void **)b = chain; /* not freed: now the test's chain */
        chain = b;
    }
    size_t inuse = s->inuse;
    before = atomic_load(&counted_locks);
    size_t freed = thread_cache_free_chain(chain);
    CHECK(atomic_load(&counted_locks) - before == (BATCH_BETWEEN == 1 ? (long)k : 1));
    CHECK(freed == k && s->inuse == inuse - k);
#if BATCH_BETWEEN == 1
    CHECK(count_total().frees == k);
#endif
    CHECK(t_check() == NULL);
    t_free(p);
    t_free(warm);
    for (size_t i = 0; i < n; i++)
        t_free(drain[i]);
    t_malloc_trim(0);
    CHECK(t_check() == NULL);
    return check_report(BATCH_BETWEEN == 1   ? "batch_test(count between)"
                        : BATCH_BETWEEN == 2 ? "batch_test(fake between)"
                                             : "batch_test");
}

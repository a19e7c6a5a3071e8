/* The worked example of docs/writing-a-layer.md: the count layer composed
 * twice with different ranges (same layer type twice, invariant 3), above a
 * thread cache, checked against the requests made.
 * model: mmap_heap::segfit_lk::thread_cache::count(size_handle=[0, 1024])
 *          ::count(size_handle=[1024, SIZE_MAX])::custom_socket(prefix=t_) */
#include <mortise/mortise.h>
#include <mortise/os/mmap_heap.h>

#define MT_SYNC spinlock
#include <mortise/layers/segfit_lk.h>

#include <mortise/layers/thread_cache.h>

#define MT_NAME small_count
#define MT_SIZE_HANDLE 0, 1024
#include <mortise/layers/count.h>

#define MT_NAME large_count
#define MT_SIZE_HANDLE 1024, SIZE_MAX
#include <mortise/layers/count.h>

#define MT_PREFIX t_
#include <mortise/sockets/custom_socket.h>

MT_COMPOSE(mmap_heap, segfit_lk, thread_cache, small_count, large_count, custom_socket)

#include "../../common/check.h"
#include <pthread.h>

static void *worker(void *arg)
{
    void *p[10];
    (void)arg;
    for (int i = 0; i < 10; i++)
        p[i] = t_malloc(40); /* usable 48: bucket 5, [32, 64) */
    for (int i = 0; i < 10; i++)
        t_free(p[i]);
    return NULL;
}

int main(void)
{
    void *small[20], *large[3];
    for (int i = 0; i < 20; i++)
        small[i] = t_malloc(100); /* log2b: usable 112, bucket 6 [64, 128) */
    for (int i = 0; i < 3; i++)
        large[i] = t_malloc(5000); /* usable 5120, bucket 12 [4096, 8192) */
    CHECK(small_count_bucket(6).allocs == 20 && small_count_bucket(6).frees == 0);
    CHECK(large_count_bucket(12).allocs == 3);
    CHECK(large_count_bucket(6).allocs == 0);  /* out of its range */
    CHECK(small_count_bucket(12).allocs == 0); /* out of its range */

    for (int i = 0; i < 15; i++)
        t_free(small[i]);
    t_free(large[0]);
    CHECK(small_count_bucket(6).frees == 15);
    CHECK(large_count_bucket(12).frees == 1);

    /* a realloc that moves a block counts as a free and an alloc */
    void *moved = t_realloc(small[15], 3000); /* 112 → 3072: bucket 11 */
    CHECK(moved != NULL);
    CHECK(small_count_bucket(6).frees == 16);
    CHECK(large_count_bucket(11).allocs == 1);

    /* another thread's requests are counted too (process-wide counters) */
    pthread_t t;
    CHECK(pthread_create(&t, NULL, worker, NULL) == 0 && pthread_join(t, NULL) == 0);
    CHECK(small_count_bucket(5).allocs == 10 && small_count_bucket(5).frees == 10);

    for (int i = 16; i < 20; i++)
        t_free(small[i]);
    t_free(moved);
    t_free(large[1]);
    t_free(large[2]);
    mt_count_pair s = small_count_total(), l = large_count_total();
    CHECK(s.allocs == s.frees && l.allocs == l.frees); /* nothing live */
    CHECK(s.allocs == 30 && l.allocs == 4);
    return check_report("count_test");
}

/* wfslab's memory: the instance's chain (instances/wfslab_chain.h) under the
 * prefix x_, beside the system malloc. One case per run:
 *   sparse  64 KiB blocks (segfit_lf spans) touched only at their start: no
 *           huge-page advice on their memory, and only their first page
 *           resident (with huge pages each would be 64 KiB resident: the
 *           bench_malloc_test -m 65536 pathology, 155 MB of RSS)
 *   slabs   wfslab's slabs are blocks of segfit_lf's 64 KiB class, so they
 *           come from sparse spans: a thread filling 200 slabs of small
 *           blocks gets no huge-page advice either (the dense side of
 *           mmap_heap is tested on slab_wf alone, wfslab_dense_test.c)
 *   reuse   a loop of 64 KiB alloc/free pairs, in one thread and from a
 *           producer to a consumer thread, takes no new memory from the OS
 *           layer after the first span (mmap_heap's handed_out) */
#include <mortise/mortise.h>

#include "../../../instances/wfslab_chain.h"

#define MT_PREFIX x_
#include <mortise/sockets/custom_socket.h>

MT_COMPOSE(mmap_heap, segfit_lf, slab_wf, custom_socket)

#include "../../common/check.h"
#include "smaps.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Resident pages of [p, p + len) (mincore). */
static size_t resident_pages(void *p, size_t len)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), n = (len + page - 1) / page, count = 0;
    unsigned char *vec = malloc(n);
    if (!vec || mincore(p, len, vec)) {
        free(vec);
        return (size_t)-1;
    }
    for (size_t i = 0; i < n; i++)
        count += vec[i] & 1;
    free(vec);
    return count;
}

static size_t handed_out(void)
{
    mt_os_stats st;
    mt_os_stats_read(&st);
    return st.handed_out;
}

enum { SPARSE_BLOCKS = 256, BIG = 65536 };

static void test_sparse(void)
{
    static char *b[SPARSE_BLOCKS];
    for (int i = 0; i < SPARSE_BLOCKS; i++) {
        b[i] = x_malloc(BIG);
        CHECK(b[i] != NULL);
        memset(b[i], 0xa5, 16); /* the seal malloc_test writes */
    }
    size_t resident = 0;
    int advised = 0;
    for (int i = 0; i < SPARSE_BLOCKS; i++) {
        resident += resident_pages(b[i], BIG);
        advised += huge_advised(b[i]) == 1;
    }
    printf("sparse: %d blocks of 64 KiB, %zu pages resident, %d in huge-page mappings\n", SPARSE_BLOCKS,
           resident, advised);
    CHECK(advised == 0);
    CHECK(resident <= 2 * SPARSE_BLOCKS); /* the page written (and at most one more) */
    for (int i = 0; i < SPARSE_BLOCKS; i++)
        x_free(b[i]);
}

static void test_slabs(void)
{
    char **b = fill_small(x_malloc);
    CHECK(b != NULL);
    int first = huge_advised(b[0]), last = huge_advised(b[SMALL_BLOCKS - 1]);
    printf("slabs: first block's mapping huge-advised %d, last block's %d\n", first, last);
    CHECK(first == 0);
    CHECK(last == 0);
    free_small(b, x_free);
}

enum { RING = 1024, PAIRS = 20000 };
static void *ring[RING];
static _Atomic size_t ring_head, ring_tail;

static void *consumer(void *arg)
{
    (void)arg;
    for (size_t h = 0; h < PAIRS; h++) {
        while (atomic_load(&ring_tail) == h)
            sched_yield();
        x_free(ring[h % RING]);
        atomic_store(&ring_head, h + 1);
    }
    return NULL;
}

static void test_reuse(void)
{
    void *p = x_malloc(BIG);
    x_free(p);
    size_t base = handed_out();
    for (int i = 0; i < PAIRS; i++) {
        p = x_malloc(BIG);
        memset(p, 1, 16);
        x_free(p);
    }
    printf("reuse, one thread: handed_out grew by %zu bytes\n", handed_out() - base);
    CHECK(handed_out() == base);

    /* producer → consumer: at most RING + 1 blocks out at a time, so at most
     * that many blocks' spans (8 blocks and a header slot each) plus the
     * consumer's and producer's per-thread records */
    base = handed_out();
    pthread_t t;
    CHECK(pthread_create(&t, NULL, consumer, NULL) == 0);
    for (size_t i = 0; i < PAIRS; i++) {
        while (i - atomic_load(&ring_head) >= RING)
            sched_yield();
        ring[i % RING] = x_malloc(BIG);
        memset(ring[i % RING], 1, 16);
        atomic_store(&ring_tail, i + 1);
    }
    pthread_join(t, NULL);
    size_t grew = handed_out() - base, bound = ((RING + 1) / 8 + 2) * 9 * (size_t)BIG + 4 * (size_t)BIG;
    printf("reuse, producer and consumer: handed_out grew by %zu bytes (bound %zu)\n", grew, bound);
    CHECK(grew <= bound);
}

int main(int argc, char **argv)
{
    const char *c = argc > 1 ? argv[1] : "";
    if (!strcmp(c, "sparse"))
        test_sparse();
    else if (!strcmp(c, "slabs"))
        test_slabs();
    else if (!strcmp(c, "reuse"))
        test_reuse();
    else {
        fprintf(stderr, "usage: %s sparse|slabs|reuse\n", argv[0]);
        return 2;
    }
    return check_report(c);
}

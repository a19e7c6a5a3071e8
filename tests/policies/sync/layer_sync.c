/* Every sync policy in a layer: one allocator per policy P and trunk layer
 * (CMake compiles this file for each pair with -DTEST_SYNC=P and, for
 * tlsf_glk, -DTEST_TLSF):
 *   mmap_heap(sync=P)::segfit_lk(sync=P, size_handle=[0, 65536])::custom_socket(prefix=t_)
 *     segfit_lk takes its 168 class locks with lock/unlock; fork_prepare
 *     holds all of them at once, then mmap_heap's (nested, same policy);
 *   mmap_heap(sync=P)::tlsf_glk(sync=P)::custom_socket(prefix=t_)
 *     tlsf_glk runs every critical section through P's exec (a combiner or
 *     rcl's server runs other threads' allocations; purge frees chunks to
 *     mmap_heap from inside the critical section).
 * A short multithreaded stress runs on it: 8 threads allocate, fill, verify
 * and free blocks of 16 B to 96 KiB, half of them freed by the neighbouring
 * thread through shared slots, while the main thread forks (the socket's
 * fork handlers take every lock of both layers) and trims (purge). Each child
 * allocates and frees and must exit 0.
 */
#include <mortise/mortise.h>

#define MT_SYNC TEST_SYNC
#include <mortise/os/mmap_heap.h>

#if defined(TEST_TLSF)
#define MT_NAME trunk
#define MT_SYNC TEST_SYNC
#include <mortise/layers/tlsf_glk.h>
#define TRUNK "tlsf_glk"
#else
#define MT_NAME trunk
#define MT_SYNC TEST_SYNC
#define MT_SIZE_HANDLE 0, 65536
#include <mortise/layers/segfit_lk.h>
#define TRUNK "segfit_lk"
#endif

#define MT_PREFIX t_
#include <mortise/sockets/custom_socket.h>

MT_COMPOSE(mmap_heap, trunk, custom_socket)

#include "../../common/check.h"
#include "child.h"
#include <pthread.h>
#include <string.h>

enum { THREADS = 8, OPS = 12000, SLOTS = 64, LIVE = 32 };

typedef struct {
    size_t size;
    uint32_t seed;
} block_head; /* at the start of every block: what the rest must hold */

static _Atomic(void *) slots[THREADS][SLOTS];
static _Atomic long corrupt, failed_allocs;

static uint32_t next_rand(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

static void *make(size_t size, uint32_t seed)
{
    unsigned char *p = t_malloc(size);
    if (!p) {
        atomic_fetch_add(&failed_allocs, 1);
        return NULL;
    }
    block_head h = {size, seed};
    memcpy(p, &h, sizeof h);
    for (size_t i = sizeof h; i < size; i++)
        p[i] = (unsigned char)(seed + i);
    return p;
}

static void check_and_free(void *b)
{
    if (!b)
        return;
    unsigned char *p = b;
    block_head h;
    memcpy(&h, p, sizeof h);
    bool ok = t_malloc_usable_size(p) >= h.size;
    for (size_t i = sizeof h; ok && i < h.size; i++)
        ok = p[i] == (unsigned char)(h.seed + i);
    if (!ok)
        atomic_fetch_add(&corrupt, 1);
    t_free(p);
}

static void *stress(void *arg)
{
    unsigned id = (unsigned)(intptr_t)arg;
    uint32_t rnd = 0x9e3779b9u * (id + 1);
    void *live[LIVE] = {0};
    for (unsigned i = 0; i < OPS; i++) {
        uint32_t r = next_rand(&rnd);
        size_t size = sizeof(block_head) + (r % 32 == 0 ? r % 98304 : r % 2048);
        void *b = make(size, r);
        if (r & 1) { /* hand it to the neighbour, take what is there */
            void *old = atomic_exchange(&slots[(id + 1) % THREADS][r % SLOTS], b);
            check_and_free(old);
        } else {
            unsigned k = (r >> 8) % LIVE;
            check_and_free(live[k]);
            live[k] = b;
        }
    }
    for (unsigned k = 0; k < LIVE; k++)
        check_and_free(live[k]);
    return NULL;
}

static int child_work(void)
{
    void *b[100];
    for (int i = 0; i < 100; i++)
        b[i] = make(16 + (size_t)i * 300, (uint32_t)i);
    for (int i = 0; i < 100; i++)
        check_and_free(b[i]);
    return atomic_load(&corrupt) || atomic_load(&failed_allocs) ? 1 : 0;
}

int main(void)
{
    alarm(60);
    double t0 = now_s();
    pthread_t t[THREADS];
    for (intptr_t i = 0; i < THREADS; i++)
        CHECK(pthread_create(&t[i], NULL, stress, (void *)i) == 0);
    int bad_children = 0;
    for (int f = 0; f < 6; f++) {
        usleep(20000);
        double took;
        bad_children += !in_child(child_work, 10, &took);
        t_malloc_trim(0);
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < THREADS; i++)
        for (int k = 0; k < SLOTS; k++)
            check_and_free(atomic_exchange(&slots[i][k], NULL));
    CHECK(bad_children == 0);
    CHECK(atomic_load(&corrupt) == 0);
    CHECK(atomic_load(&failed_allocs) == 0);
    CHECK(t_malloc_trim(0) >= 0);
    printf("%s(sync=%s): %d threads x %d ops, 6 forks, %.2f s\n", TRUNK, MT_STR(TEST_SYNC), THREADS, OPS,
           now_s() - t0);
    return check_report("layer_sync(" TRUNK ", " MT_STR(TEST_SYNC) ")");
}

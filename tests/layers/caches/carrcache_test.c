/* carrcache_lk: a request is served from the magazine of the CPU it is for
 * (cmalloc's hint, else the CPU the thread runs on), a free goes to that
 * CPU's magazine, CPU numbers wrap onto the records, the per-CPU bound holds
 * and a full magazine gives its older half back, blocks it does not cover
 * pass through, malloc_trim empties every CPU, fork_prepare holds every
 * CPU's lock, fork works under load, and threads hammering four CPUs with
 * cross-thread frees never get a block twice.
 * model: mmap_heap::segfit_lk(sync=spinlock)::carrcache_lk(sync=spinlock, size_handle=[0, 4096], cache_size=64KB)::cmalloc_socket(prefix=c_) */
#include <mortise/mortise.h>
#include <mortise/os/mmap_heap.h>

#define MT_SYNC spinlock
#include <mortise/layers/segfit_lk.h>

#define MT_SYNC spinlock
#define MT_SIZE_HANDLE 0, 4096
#define MT_CACHE_SIZE 65536
#include <mortise/layers/carrcache_lk.h>

#define MT_PREFIX c_
#include <mortise/sockets/cmalloc_socket.h>

MT_COMPOSE(mmap_heap, segfit_lk, carrcache_lk, cmalloc_socket)

#include "../../common/addons.h"

static size_t cls(size_t size) { return mt_szcls_log2b_index(size); }
static mt_magazine *mag(int cpu, size_t size) { return &carrcache_lk_cpus[cpu].mag[cls(size)]; }
static bool below_free(void *p) { return list_has(segfit_lk_state.cls[segfit_lk_span_of(p)->cls].free, p); }
static bool holds(mt_magazine *m, const void *p)
{
    for (uint32_t i = 0; i < m->n; i++)
        if (m->slot[i] == p)
            return true;
    return false;
}

static void child(void)
{
    void *p = c_cmalloc(100, 0);
    CHECK(p != NULL);
    c_cmalloc_free(p, 0);
    CHECK(c_cmalloc(100, 0) == p); /* the record works in the child */
    void *q = c_cmalloc(3000, -1);
    CHECK(q != NULL);
    c_cmalloc_free(q, -1);
}

static void *m_alloc(size_t n) { return c_cmalloc(n, -1); }
static void m_free(void *p) { c_cmalloc_free(p, -1); }

/* Stress: 4 threads, 4 CPUs by hint, blocks exchanged through shared slots;
 * every block carries its owner's stamp, checked by whoever frees it. */
#define SLOTS 256
static _Atomic(uintptr_t) shared[SLOTS];
static _Atomic(int) corrupt;

static void *stress(void *arg)
{
    unsigned x = (unsigned)(uintptr_t)arg * 2654435761u + 1;
    for (int i = 0; i < 20000; i++) {
        x = x * 1103515245 + 12345;
        size_t size = 16 + (x >> 8) % 2000;
        int cpu = (int)((x >> 20) % 4);
        uintptr_t *p = c_cmalloc(size, cpu);
        if (!p) {
            atomic_store(&corrupt, 1);
            break;
        }
        p[0] = size;
        p[1] = (uintptr_t)p ^ 0x5a5a5a5a;
        uintptr_t old = atomic_exchange(&shared[(x >> 4) % SLOTS], (uintptr_t)p);
        if (old) {
            uintptr_t *q = (uintptr_t *)old;
            if (q[1] != (old ^ 0x5a5a5a5a) || c_cmalloc_usable_size(q) < q[0])
                atomic_store(&corrupt, 1);
            q[1] = 0;
            c_cmalloc_free(q, (int)((x >> 24) % 4));
        }
    }
    return NULL;
}

int main(void)
{
    size_t c = cls(100);
    size_t cap = 65536 / (cls(4095) + 1) / 112; /* 20 per CPU */
    CHECK(carrcache_lk_cap(65536, c, 64) == cap);

    /* first miss on CPU 0: the CPU gets its slot arrays and half a magazine */
    void *p = c_cmalloc(100, 0);
    CHECK(p && mag(0, 100)->cap == cap && mag(0, 100)->n == cap / 2);
    CHECK(mag(1, 100)->cap == 0); /* CPU 1 not set up yet */

    /* freed "on CPU 1" before CPU 1 has slot arrays: straight below */
    c_cmalloc_free(p, 1);
    CHECK(below_free(p));
    void *q = c_cmalloc(100, 1); /* CPU 1's first miss */
    CHECK(q && mag(1, 100)->cap == cap);

    /* a block freed for CPU 1 is served to the next request for CPU 1, not
     * to one for CPU 0 */
    c_cmalloc_free(q, 1);
    CHECK(holds(mag(1, 100), q) && !holds(mag(0, 100), q));
    CHECK(c_cmalloc(100, 0) != q);
    CHECK(c_cmalloc(100, 1) == q);

    /* CPU numbers beyond the records wrap: 64 + 3 uses record 3 */
    void *r3 = c_cmalloc(100, 64 + 3);
    CHECK(r3 && mag(3, 100)->cap == cap);
    c_cmalloc_free(r3, 3);
    CHECK(c_cmalloc(100, 64 + 3) == r3);

    /* no hint: the CPU the thread runs on (when it can be pinned) */
    if (pin_to(1)) {
        void *h = c_cmalloc(200, -1);
        c_cmalloc_free(h, -1);
        CHECK(holds(mag(1, 200), h));
        CHECK(c_cmalloc(200, 1) == h);
        unpin();
    } else {
        printf("carrcache_test: cannot pin to CPU 1, skipping the no-hint check\n");
    }

    /* the per-CPU bound: 400 frees on CPU 2 leave at most cap there; the
     * overflow gives the older half back below */
    void *blocks[400];
    c_cmalloc_free(c_cmalloc(100, 2), 2); /* CPU 2 gets its slot arrays */
    for (int i = 0; i < 400; i++)
        blocks[i] = c_cmalloc(100, 5);
    uint32_t before = mag(2, 100)->n;
    CHECK(before > 0 && before <= cap);
    size_t fill = cap - before;
    for (size_t i = 0; i < fill; i++)
        c_cmalloc_free(blocks[i], 2);
    CHECK(mag(2, 100)->n == cap);
    void *old[64];
    memcpy(old, mag(2, 100)->slot, cap * sizeof(void *));
    c_cmalloc_free(blocks[fill], 2);
    CHECK(mag(2, 100)->n == cap - (cap + 1) / 2 + 1);
    bool drained = true;
    for (size_t i = 0; i < (cap + 1) / 2; i++)
        drained &= below_free(old[i]);
    CHECK(drained);
    for (size_t i = fill + 1; i < 400; i++)
        c_cmalloc_free(blocks[i], 2);
    CHECK(mag(2, 100)->n <= cap);

    /* not covered: larger sizes and aligned requests go below */
    void *big = c_cmalloc(10000, 0), *al = c_cmalloc_aligned(256, 100, 0);
    CHECK(big && al && ((uintptr_t)al & 255) == 0);
    c_cmalloc_free(big, 0);
    CHECK(below_free(big));
    c_cmalloc_free(al, 0);
    CHECK(holds(mag(0, 256), al)); /* usable 256: a class it caches */
    int local = 7;
    c_cmalloc_free(&local, 0); /* foreign: ignored */
    CHECK(local == 7);

    /* fork_prepare holds every CPU's lock (taken before the layers below),
     * fork_parent releases them */
    mt_fork_prepare();
    bool held = true;
    for (int k = 0; k < 64; k++)
        held &= atomic_load(&carrcache_lk_cpus[k].lock.held) != 0;
    CHECK(held);
    mt_fork_parent();
    bool free_again = true;
    for (int k = 0; k < 64; k++)
        free_again &= atomic_load(&carrcache_lk_cpus[k].lock.held) == 0;
    CHECK(free_again);
    CHECK(fork_under_load(m_alloc, m_free, child, 50) == 0);

    /* 4 threads on 4 hinted CPUs with cross-thread frees */
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        CHECK(pthread_create(&t[i], NULL, stress, (void *)(uintptr_t)i) == 0);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    CHECK(atomic_load(&corrupt) == 0);
    for (int i = 0; i < SLOTS; i++)
        if (atomic_load(&shared[i]))
            c_cmalloc_free((void *)atomic_load(&shared[i]), 0);
    for (int k = 0; k < 4; k++)
        for (size_t j = cls(16); j <= cls(4095); j++)
            CHECK(carrcache_lk_cpus[k].mag[j].n <= carrcache_lk_cpus[k].mag[j].cap);

    /* purge (malloc_trim; cmalloc_socket has no entry point for it, so the
     * chain's) empties every CPU's magazines */
    CHECK(mag(1, 100)->n > 0);
    mt_ctx trim = mt_ctx_for_alloc(0, 1);
    CHECK(mt_chain_purge(&trim) != NULL);
    size_t left = 0;
    for (int k = 0; k < 64; k++)
        for (size_t j = 0; j < carrcache_lk_bins; j++)
            left += carrcache_lk_cpus[k].mag[j].n;
    CHECK(left == 0);
    return check_report("carrcache_test");
}

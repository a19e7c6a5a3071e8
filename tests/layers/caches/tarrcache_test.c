/* tarrcache: hits pop the thread's magazine without touching the block, a
 * miss takes half a magazine below, a full magazine gives its older half
 * back, the bound holds, blocks it does not cover pass through, foreign
 * pointers are ignored, another thread's frees land in its own magazine and
 * go back below at its exit with its slot arrays, frees after exit go
 * straight below, malloc_trim empties the cache, and fork works while
 * another thread allocates.
 * model: mmap_heap::segfit_lk(sync=spinlock)::tarrcache(size_handle=[0, 4096], cache_size=64KB)::custom_socket(prefix=t_) */
#include <mortise/mortise.h>
#include <mortise/os/mmap_heap.h>

#define MT_SYNC spinlock
#include <mortise/layers/segfit_lk.h>

#define MT_SIZE_HANDLE 0, 4096
#define MT_CACHE_SIZE 65536
#include <mortise/layers/tarrcache.h>

#define MT_PREFIX t_
#include <mortise/sockets/custom_socket.h>

MT_COMPOSE(mmap_heap, segfit_lk, tarrcache, custom_socket)

#include "../../common/addons.h"

static size_t cls(size_t size) { return mt_szcls_log2b_index(size); }
static mt_magazine *mag(size_t size) { return &tarrcache_tl.mag[cls(size)]; }
static bool below_free(void *p) { return list_has(segfit_lk_state.cls[segfit_lk_span_of(p)->cls].free, p); }

static void *other_thread(void *arg)
{
    void **blocks = arg; /* allocated by main: freed here */
    for (int i = 0; i < 4; i++)
        t_free(blocks[i]);
    CHECK(mag(100)->n == 4); /* in this thread's magazine */
    CHECK(mag(100)->slot[3] == blocks[3]);
    blocks[4] = tarrcache_tl.store; /* its slot arrays go back at exit */
    return NULL;
}

static void *exited_thread(void *arg)
{
    void **out = arg;
    void *p = t_malloc(100);
    CHECK(tarrcache_tl.state == mt_cache_on);
    mt_thread_detach(NULL); /* as if its TLS destructors ran */
    CHECK(tarrcache_tl.state == mt_cache_off && tarrcache_tl.store == NULL);
    t_free(p); /* straight below */
    CHECK(below_free(p));
    out[0] = p;
    out[1] = t_malloc(100); /* served below, not cached */
    CHECK(mag(100)->n == 0 && mag(100)->cap == 0);
    t_free(out[1]);
    return NULL; /* thread_exit runs again: harmless */
}

static void child(void)
{
    void *p = t_malloc(100), *q = t_malloc(3000);
    CHECK(p && q);
    memset(p, 1, 100);
    memset(q, 2, 3000);
    t_free(p);
    t_free(q);
    CHECK(t_malloc(100) == p); /* the forking thread's magazine */
}

static void *m_alloc(size_t n) { return t_malloc(n); }
static void m_free(void *p) { t_free(p); }

int main(void)
{
    size_t c = cls(100), classes = cls(4095) + 1;
    size_t cap = 65536 / classes / 112; /* 20: below MT_TARRCACHE_SLOTS */
    CHECK(tarrcache_cap(65536, c, 64) == cap);

    /* a miss: the block from below, and half a magazine more */
    void *a = t_malloc(100);
    CHECK(a != NULL && t_malloc_usable_size(a) == 112);
    CHECK(mag(100)->n == cap / 2 && mag(100)->cap == cap);

    /* a hit pops the newest; a free pushes; nothing is written into a
     * cached block (no link word, unlike thread_cache) */
    void *top = mag(100)->slot[mag(100)->n - 1];
    void *b = t_malloc(100);
    CHECK(b == top && mag(100)->n == cap / 2 - 1);
    memset(a, 0xab, 112);
    t_free(a);
    CHECK(mag(100)->slot[mag(100)->n - 1] == a);
    unsigned char *bytes = a;
    bool intact = true;
    for (int i = 0; i < 112; i++)
        intact &= bytes[i] == 0xab;
    CHECK(intact);
    CHECK(t_malloc(100) == a); /* LIFO reuse */
    t_free(a);
    t_free(b);

    /* full magazine: the older half goes below, the newer half stays */
    void *blocks[400];
    for (int i = 0; i < 400; i++)
        blocks[i] = t_malloc(100);
    CHECK(mag(100)->n <= cap);
    size_t before = mag(100)->n;
    for (size_t i = 0; i < cap - before; i++)
        t_free(blocks[i]);
    CHECK(mag(100)->n == cap);
    void *old[64];
    memcpy(old, mag(100)->slot, cap * sizeof(void *));
    t_free(blocks[cap - before]); /* one more: overflow */
    CHECK(mag(100)->n == cap - (cap + 1) / 2 + 1);
    bool drained = true, kept = true;
    for (size_t i = 0; i < (cap + 1) / 2; i++)
        drained &= below_free(old[i]);
    for (size_t i = (cap + 1) / 2; i < cap; i++)
        kept &= !below_free(old[i]) && mag(100)->slot[i - (cap + 1) / 2] == old[i];
    CHECK(drained && kept);
    for (size_t i = cap - before + 1; i < 400; i++)
        t_free(blocks[i]);
    CHECK(mag(100)->n <= cap && mag(100)->n >= cap / 2);

    /* the bound of every class: min(slots, share) */
    for (size_t k = cls(1); k < classes; k++)
        CHECK(tarrcache_tl.mag[k].cap == (tarrcache_share(65536, k) < 64 ? tarrcache_share(65536, k) : 64));
    CHECK(tarrcache_tl.mag[cls(16)].cap == 64); /* 2340 / 16 = 146 > 64 slots */

    /* not covered: larger sizes and aligned requests go below untouched */
    void *big = t_malloc(10000), *al = t_aligned_alloc(256, 100);
    CHECK(big && al && ((uintptr_t)al & 255) == 0);
    CHECK(mag(10000)->cap == 0); /* class outside size_handle: no magazine */
    t_free(big);
    CHECK(below_free(big));
    uint32_t n256 = mag(256)->n;
    t_free(al); /* usable 256: a cached class, fine for any request of it */
    CHECK(mag(256)->n == n256 + 1);

    /* a foreign pointer is never touched */
    int local = 7;
    t_free(&local);
    CHECK(local == 7);

    /* another thread's frees go to its own magazine, and back below at its
     * exit together with its slot arrays */
    void *theirs[5];
    for (int i = 0; i < 4; i++)
        theirs[i] = t_malloc(100);
    uint32_t mine = mag(100)->n;
    in_thread(other_thread, theirs);
    CHECK(mag(100)->n == mine); /* not in this thread's */
    for (int i = 0; i < 4; i++)
        CHECK(below_free(theirs[i]));
    CHECK(theirs[4] != NULL && below_free(theirs[4]));

    /* after its thread_exit a thread caches nothing: frees go below */
    void *gone[2];
    in_thread(exited_thread, gone);

    /* fork while another thread allocates: every child runs */
    CHECK(fork_under_load(m_alloc, m_free, child, 50) == 0);

    /* malloc_trim empties the calling thread's magazines */
    CHECK(t_malloc_trim(0) == 1);
    size_t left = 0;
    for (size_t k = 0; k < classes; k++)
        left += tarrcache_tl.mag[k].n;
    CHECK(left == 0);
    return check_report("tarrcache_test");
}

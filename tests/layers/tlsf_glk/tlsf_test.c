/* tlsf_glk white-box: the invariant checker after every stretch of a long
 * random sequence (malloc, aligned, realloc in place or moved, free) with
 * every block's contents verified; merging back to one free block per region
 * once everything is freed; purge giving every chunk back below; resize in
 * place; foreign pointers; a four-thread stress checked at the end.
 * Built several times (CMakeLists.txt):
 *   tlsf_test      mmap_heap::tlsf_glk(sync=spinlock)::custom_socket(prefix=t_)
 *   tlsf_brk_test  brk_heap::tlsf_glk(sync=posix_mutex)::custom_socket(prefix=t_)
 *                  (TLSF_TEST_BRK: chunks from the break join one region)
 *   tlsf_SYNC_test mmap_heap::tlsf_glk(sync=SYNC) for the other policies that
 *                  exist (TLSF_TEST_SYNC=SYNC), ccsynch among them: critical
 *                  sections run on a combining thread */
#include <mortise/mortise.h>
#if defined(TLSF_TEST_BRK)
#include <mortise/os/brk_heap.h>
#define OS_LAYER brk_heap
#define OS_LAYER_BRK 1
#define MT_SYNC posix_mutex
#else
#include <mortise/os/mmap_heap.h>
#define OS_LAYER mmap_heap
#define OS_LAYER_BRK 0
#if defined(TLSF_TEST_SYNC)
#define MT_SYNC TLSF_TEST_SYNC
#else
#define MT_SYNC spinlock
#endif
#endif

#define POOL (256 << 10)
#define MT_POOL_SIZE POOL
static const char *const test_name =
    OS_LAYER_BRK ? "tlsf_brk_test sync=" MT_STR(MT_SYNC) : "tlsf_test sync=" MT_STR(MT_SYNC);
#include <mortise/layers/tlsf_glk.h>

#define MT_PREFIX t_
#include <mortise/sockets/custom_socket.h>

MT_COMPOSE(OS_LAYER, tlsf_glk, custom_socket)

#include "../../common/check.h"
#include "../../common/trunk_test.h"
#include <pthread.h>
#include <string.h>

/* ---- helpers ---- */

/* Sizes from 0 to 2 MiB, most of them small. */
static size_t random_size(void)
{
    unsigned r = (unsigned)(rng() % 100);
    if (r < 60)
        return rng() % 256;
    if (r < 90)
        return rng() % 8192;
    if (r < 99)
        return rng() % (256 << 10);
    return rng() % (2 << 20);
}

static unsigned char pattern(uint64_t id, size_t i) { return (unsigned char)(id * 131 + i * 7 + 1); }

/* Fill or verify the first and last 256 bytes (all of a smaller block). */
static void stamp(unsigned char *p, size_t len, uint64_t id)
{
    for (size_t i = 0; i < len && i < 256; i++)
        p[i] = pattern(id, i);
    for (size_t i = len > 256 ? len - 256 : 256; i < len; i++)
        p[i] = pattern(id, i);
}
static bool intact(const unsigned char *p, size_t len, uint64_t id)
{
    for (size_t i = 0; i < len && i < 256; i++)
        if (p[i] != pattern(id, i))
            return false;
    for (size_t i = len > 256 ? len - 256 : 256; i < len; i++)
        if (p[i] != pattern(id, i))
            return false;
    return true;
}

static bool heap_ok(const char *when) { return invariants_hold("t_check", t_check(), when); }

static bool all_free_merged(mt_tlsf_stats *s)
{
    return !tlsf_glk_walk(s) && s->used_blocks == 0 && s->free_blocks == s->regions;
}

/* ---- random sequence against the checker ---- */

#define LIVE 1500
static struct {
    unsigned char *p;
    size_t len;
    uint64_t id;
} live[LIVE];

static void test_random_sequence(void)
{
    uint64_t next_id = 1;
    size_t bad_content = 0, bad_align = 0, checks_failed = 0;
    for (int op = 0; op < 60000; op++) {
        size_t k = rng() % LIVE;
        unsigned kind = (unsigned)(rng() % 10);
        if (live[k].p && kind < 4) { /* free */
            bad_content += !intact(live[k].p, live[k].len, live[k].id);
            t_free(live[k].p);
            live[k].p = NULL;
        } else if (live[k].p && kind < 7) { /* realloc: in place or moved */
            size_t len = random_size();
            bad_content += !intact(live[k].p, live[k].len, live[k].id);
            unsigned char *q = t_realloc(live[k].p, len ? len : 1);
            if (q) {
                size_t keep = len < live[k].len ? len : live[k].len;
                bad_content += keep && !intact(q, keep < 256 ? keep : 256, live[k].id) ? 1 : 0;
                live[k].p = q;
                live[k].len = len ? len : 1;
                stamp(q, live[k].len, live[k].id);
            }
        } else if (!live[k].p) { /* malloc or an aligned allocation */
            size_t len = random_size(), align = kind == 9 ? (size_t)32 << (rng() % 12) : 16;
            unsigned char *p = align > 16 ? t_aligned_alloc(align, len) : t_malloc(len);
            CHECK(p != NULL);
            if (!p)
                continue;
            bad_align += ((uintptr_t)p & (align - 1)) != 0;
            CHECK(t_malloc_usable_size(p) >= len);
            live[k].p = p;
            live[k].len = len;
            live[k].id = next_id++;
            stamp(p, len, live[k].id);
        }
        if (op % 500 == 0)
            checks_failed += !heap_ok("a random stretch");
    }
    CHECK(bad_content == 0);
    CHECK(bad_align == 0);
    CHECK(checks_failed == 0);
    for (size_t k = 0; k < LIVE; k++) {
        if (live[k].p) {
            CHECK(intact(live[k].p, live[k].len, live[k].id));
            t_free(live[k].p);
            live[k].p = NULL;
        }
    }
    mt_tlsf_stats s;
    CHECK(all_free_merged(&s));
    if (!all_free_merged(&s))
        fprintf(stderr, "after freeing all: %zu regions, %zu free blocks, %zu used\n", s.regions,
                s.free_blocks, s.used_blocks);
}

/* ---- merging back to a single free block ---- */

static void test_merge_to_one_block(void)
{
    /* a fragmented heap: 4000 blocks of every size, freed in an order that
     * merges with the left, the right and both neighbours */
    enum { N = 4000 };
    static void *blocks[N];
    for (int i = 0; i < N; i++)
        blocks[i] = t_malloc(16 + (size_t)(i * 37) % 3000);
    mt_tlsf_stats before;
    CHECK(tlsf_glk_walk(&before) == NULL && before.used_blocks >= N);
    for (int i = 0; i < N; i += 3)
        t_free(blocks[i]);
    for (int i = 2; i < N; i += 3)
        t_free(blocks[i]);
    CHECK(heap_ok("two thirds freed"));
    for (int i = 1; i < N; i += 3)
        t_free(blocks[i]); /* each merges with both neighbours */
    mt_tlsf_stats s;
    CHECK(all_free_merged(&s));
    CHECK(s.free_bytes + s.regions * MT_TLSF_RESERVE == s.heap_bytes);
    if (OS_LAYER_BRK)
        CHECK(s.regions == 1); /* one contiguous heap: one region, one free block */
}

/* ---- purge gives every chunk back ---- */

static void test_purge(void)
{
    enum { N = 64 };
    void *big[N];
    for (int i = 0; i < N; i++)
        big[i] = t_malloc(300 << 10);
    mt_tlsf_stats s;
    CHECK(tlsf_glk_walk(&s) == NULL && s.heap_bytes >= (size_t)N * (300 << 10));
    for (int i = 0; i < N; i++)
        t_free(big[i]);
    mt_os_stats os0;
    mt_os_stats_read(&os0);
    CHECK(t_malloc_trim(0) == 1);
    CHECK(tlsf_glk_walk(&s) == NULL);
    CHECK(s.regions == 0 && s.heap_bytes == 0 && s.free_blocks == 0);
    mt_os_stats os1;
    mt_os_stats_read(&os1);
    CHECK(os1.handed_out + (size_t)N * (300 << 10) <= os0.handed_out);
    for (int i = 0; i < N; i++)
        CHECK(owner_of(big[i]) != tlsf_glk_id);

    /* a live block pins only its own chunk: the free chunks around it go */
    void *keep = NULL;
    for (int i = 0; i < N; i++)
        big[i] = t_malloc(300 << 10);
    keep = t_malloc(100);
    for (int i = 0; i < N; i++)
        t_free(big[i]);
    t_malloc_trim(0);
    CHECK(tlsf_glk_walk(&s) == NULL);
    CHECK(s.used_blocks == 1 && s.heap_bytes <= 2 * POOL);
    t_free(keep);
    t_malloc_trim(0);
    CHECK(tlsf_glk_walk(&s) == NULL && s.heap_bytes == 0);
}

/* ---- resize in place ---- */

static void test_resize_in_place(void)
{
    char *a = t_malloc(1000), *b = t_malloc(1000), *c = t_malloc(1000);
    CHECK(a && b && c && b == a + t_malloc_usable_size(a) + MT_TLSF_HDR - MT_TLSF_OVERLAP);
    memset(a, 'a', 1000);
    t_free(b);
    char *a2 = t_realloc(a, 1900); /* grows into b's free block */
    CHECK(a2 == a && t_malloc_usable_size(a) >= 1900);
    CHECK(a[999] == 'a');
    char *a3 = t_realloc(a, 100); /* shrinks, the tail merges with the rest */
    CHECK(a3 == a && t_malloc_usable_size(a) < 200);
    CHECK(heap_ok("resize"));
    char *d = t_malloc(1800); /* fits in the freed tail */
    CHECK(d > a && d < c);
    t_free(d);
    t_free(a);
    t_free(c);
    CHECK(heap_ok("resize frees"));
}

/* ---- pointers it does not own ---- */

static void test_foreign(void)
{
    char local[64];
    memset(local, 7, sizeof local);
    t_free(local);
    CHECK(t_malloc_usable_size(local) == 0);
    CHECK(t_realloc(local, 10) == NULL);
    CHECK(local[0] == 7 && local[63] == 7);
    CHECK(heap_ok("foreign frees"));
}

/* ---- threads ---- */

static void *worker(void *arg)
{
    uint64_t seed = (uint64_t)(uintptr_t)arg * 0x2545f4914f6cdd1dull + 1;
    void *mine[256] = {0};
    size_t bad = 0;
    for (int i = 0; i < 40000; i++) {
        uint64_t r = xorshift(&seed);
        size_t k = r % 256, len = (r >> 16) % 4000 + 1;
        if (mine[k]) {
            bad += *(uint64_t *)mine[k] != (uint64_t)(uintptr_t)mine[k];
            t_free(mine[k]);
            mine[k] = NULL;
        } else if ((mine[k] = t_malloc(len < 8 ? 8 : len))) {
            *(uint64_t *)mine[k] = (uint64_t)(uintptr_t)mine[k];
        }
    }
    for (int k = 0; k < 256; k++)
        t_free(mine[k]);
    return (void *)bad;
}

static void test_threads(void)
{
    enum { THREADS = 6 }; /* more threads than cores: waiters queue up */
    pthread_t t[THREADS];
    for (uintptr_t i = 0; i < THREADS; i++)
        CHECK(pthread_create(&t[i], NULL, worker, (void *)(i + 1)) == 0);
    for (int i = 0; i < THREADS; i++) {
        void *bad = (void *)1;
        pthread_join(t[i], &bad);
        CHECK(bad == NULL);
    }
    mt_tlsf_stats s;
    CHECK(all_free_merged(&s));
}

int main(void)
{
    test_resize_in_place();
    test_foreign();
    test_random_sequence();
    test_merge_to_one_block();
    test_threads();
    test_purge();
    return check_report(test_name);
}

/* segfit_lf white-box: the checker after a random sequence; getmeta's class
 * hint; alignment by class; sizes above max_block pass below; purge hands
 * every fully free span back (page map and OS counters) and leaves the rest;
 * purges racing with threads that pop and push blocks of spans being
 * released (spans of the 1 MiB class are 9 MiB, which mmap_heap unmaps on
 * release, and every pop yields inside its race window: a purge that did
 * not wait for pops in flight would let a pop read unmapped memory);
 * threads' pop-announcement words are reused after they exit.
 * model: mmap_heap::segfit_lf(sizeclass=log2b)::custom_socket(prefix=t_) */
#include <mortise/mortise.h>
#include <sched.h>

/* Widen the window between reading a block's next pointer and the CAS. */
static _Thread_local unsigned pop_hook_count;
static _Atomic(int) pop_hook_on;
#define MT_SEGFIT_LF_POP_HOOK()                                                    \
    do {                                                                           \
        if (atomic_load_explicit(&pop_hook_on, memory_order_relaxed) &&            \
            (++pop_hook_count & 7) == 0)                                           \
            sched_yield();                                                         \
    } while (0)

#include <mortise/os/mmap_heap.h>
#include <mortise/layers/segfit_lf.h>

#define MT_PREFIX t_
#include <mortise/sockets/custom_socket.h>

MT_COMPOSE(mmap_heap, segfit_lf, custom_socket)

#include "../common/check.h"
#include <pthread.h>
#include <string.h>

static uint64_t rng_state = 0x2545f4914f6cdd1dull;
static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static bool layer_ok(const char *when)
{
    const char *broken = segfit_lf_check(NULL);
    if (broken)
        fprintf(stderr, "segfit_lf_check after %s: %s\n", when, broken);
    return broken == NULL;
}

static uintptr_t owner_of(const void *p) { return mt_entry_owner(mt_pagemap_get(p)); }

static void test_classes_and_alignment(void)
{
    void *a = t_malloc(100);
    mt_ctx q = mt_ctx_for_alloc(0, 1);
    mt_ctx_route(&q, a);
    CHECK(mt_chain_getmeta(&q) == a);
    CHECK(q.usable == 112 && q.szcls == mt_szcls_log2b_index(100) && q.szcls_key == MT_SZCLS_log2b_KEY);
    t_free(a);
    CHECK(t_malloc(100) == a); /* LIFO */
    t_free(a);
    for (size_t align = 32; align <= 65536; align *= 2) {
        void *p = t_aligned_alloc(align, 100);
        CHECK(p && ((uintptr_t)p & (align - 1)) == 0 && owner_of(p) == segfit_lf_id);
        t_free(p);
    }
    void *big = t_malloc((1 << 20) + 1), *top = t_malloc(1 << 20);
    CHECK(owner_of(big) == mmap_heap_id); /* above max_block: the layer below */
    CHECK(owner_of(top) == segfit_lf_id && t_malloc_usable_size(top) == 1 << 20);
    t_free(big);
    t_free(top);
    int local;
    t_free(&local); /* not ours: ignored */
    CHECK(t_malloc_usable_size(&local) == 0);
    CHECK(layer_ok("classes"));
}

#define LIVE 2000
static void *live[LIVE];
static size_t live_len[LIVE];

static void test_random_sequence(void)
{
    size_t bad = 0, failed = 0;
    for (int op = 0; op < 100000; op++) {
        size_t k = rng() % LIVE;
        if (live[k]) {
            bad += ((unsigned char *)live[k])[live_len[k] - 1] != (unsigned char)k;
            t_free(live[k]);
            live[k] = NULL;
        } else {
            size_t len = rng() % 100 < 90 ? rng() % 1024 + 1 : rng() % (300 << 10) + 1;
            live[k] = t_malloc(len);
            live_len[k] = len;
            CHECK(live[k] && t_malloc_usable_size(live[k]) >= len);
            memset(live[k], (int)k, len);
        }
        if (op % 5000 == 0)
            failed += !layer_ok("a random stretch");
    }
    CHECK(bad == 0 && failed == 0);
    for (size_t k = 0; k < LIVE; k++) {
        t_free(live[k]);
        live[k] = NULL;
    }
    CHECK(layer_ok("freeing all"));
}

static void test_purge(void)
{
    enum { N = 5000 };
    static void *b[N];
    t_malloc_trim(0);
    mt_os_stats s0, s1, s2;
    mt_os_stats_read(&s0);
    for (int i = 0; i < N; i++)
        b[i] = t_malloc(i % 2 ? 200 : 3000);
    mt_os_stats_read(&s1);
    CHECK(s1.handed_out >= s0.handed_out + (N / 2) * (200 + 3000));
    void *keep = b[N / 2 + 1]; /* pins its span */
    for (int i = 0; i < N; i++)
        if (b[i] != keep)
            t_free(b[i]);
    CHECK(t_malloc_trim(0) == 1);
    mt_os_stats_read(&s2);
    CHECK(layer_ok("purge"));
    CHECK(s2.handed_out <= s0.handed_out + 2 * MT_GRANULE);
    CHECK(owner_of(keep) == segfit_lf_id);
    size_t gone = 0;
    for (int i = 0; i < N; i++)
        gone += owner_of(b[i]) != segfit_lf_id;
    CHECK(gone > N * 9 / 10);
    /* free blocks are left only in spans still being carved, and in keep's */
    size_t carving = 0;
    for (size_t i = 0; i < segfit_lf_classes_used(); i++) {
        mt_lf_tagged *b = &segfit_lf_state.cls[i].bump;
        carving += b->s.ptr && (uintptr_t)b->s.ptr + segfit_lf_class_size(i) <= b->s.tag;
    }
    mt_lf_stats st;
    CHECK(segfit_lf_check(&st) == NULL && st.spans_with_free <= carving + 1);
    t_free(keep);
    /* what is left still works */
    void *again = t_malloc(200);
    CHECK(again && owner_of(again) == segfit_lf_id);
    t_free(again);
    CHECK(layer_ok("purge and reuse"));
}

/* ---- purges racing with pops ---- */

static _Atomic(int) stop;

static void *churn(void *arg)
{
    size_t bad = 0, size = (uintptr_t)arg;
    void *mine[8] = {0};
    while (!atomic_load(&stop)) {
        for (int i = 0; i < 8; i++) {
            mine[i] = t_malloc(size);
            if (mine[i])
                memcpy(mine[i], &mine[i], sizeof(void *)), ((char *)mine[i])[size - 1] = 'z';
        }
        for (int i = 0; i < 8; i++) {
            if (mine[i])
                bad += memcmp(mine[i], &mine[i], sizeof(void *)) || ((char *)mine[i])[size - 1] != 'z';
            t_free(mine[i]);
        }
    }
    return (void *)bad;
}

static void test_purge_races_pops(void)
{
    pthread_t t[4];
    atomic_store(&pop_hook_on, 1);
    for (int i = 0; i < 4; i++)
        CHECK(pthread_create(&t[i], NULL, churn, (void *)(uintptr_t)(i % 2 ? 1 << 20 : 100000)) == 0);
    int released = 0;
    for (int round = 0; round < 300; round++) {
        released += t_malloc_trim(0);
        sched_yield();
    }
    atomic_store(&stop, 1);
    for (int i = 0; i < 4; i++) {
        void *bad = (void *)1;
        pthread_join(t[i], &bad);
        CHECK(bad == NULL);
    }
    atomic_store(&pop_hook_on, 0);
    CHECK(released > 0); /* spans really went back while threads popped */
    CHECK(layer_ok("purges racing with pops"));
}

/* ---- pop-announcement words come back when threads exit ---- */

static void *one_pop(void *arg)
{
    (void)arg;
    t_free(t_malloc(48));
    return NULL;
}

static void test_reader_words_reused(void)
{
    for (int i = 0; i < 3 * MT_LF_READERS; i++) {
        pthread_t t;
        CHECK(pthread_create(&t, NULL, one_pop, NULL) == 0 && pthread_join(t, NULL) == 0);
    }
    int taken = 0;
    for (int i = 0; i < MT_LF_READERS; i++)
        taken += atomic_load(&segfit_lf_state.readers[i].taken);
    CHECK(taken <= 2); /* this thread's, at most one exiting thread's late pop */
    CHECK(atomic_load(&segfit_lf_state.shared.seq) == 0);
}

int main(void)
{
    test_classes_and_alignment();
    test_random_sequence();
    test_purge();
    test_purge_races_pops();
    test_reader_words_reused();
    return check_report("segfit_lf_test");
}

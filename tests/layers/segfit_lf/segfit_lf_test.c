/* segfit_lf white-box: the checker after a random sequence; getmeta's class
 * hint; alignment by class; sizes above max_block pass below; purge hands
 * every fully free span back (page map and OS counters) and leaves the rest;
 * purge and a pop in flight: a thread is parked inside a pop right after
 * loading the top of a stack whose span is all free; a purge started then
 * must not give the span back until the thread has left the pop (a test
 * layer below segfit_lf, quarantine, makes released spans of more than 64
 * granules inaccessible and never reuses their addresses, so a read of one
 * would fault); purges racing with four threads popping and pushing, with
 * every block's contents checked; threads' pop-announcement words are reused
 * after they exit.
 * model: mmap_heap::quarantine::segfit_lf(sizeclass=log2b)::custom_socket(prefix=t_) */
#include <mortise/mortise.h>
#include <sched.h>
#include <time.h>

/* A pop's race windows: a thread with park_here set stops at stage 0
 * (top loaded, its next pointer not yet read) until released; during the
 * racing purges every 8th pop sleeps 20 us in either window. */
static _Thread_local bool park_here;
static _Thread_local unsigned pop_hook_count;
static _Atomic(int) pop_hook_on, parked, unpark;
static void pop_hook(int stage)
{
    if (stage == 0 && park_here) {
        park_here = false;
        atomic_store(&parked, 1);
        while (!atomic_load(&unpark))
            nanosleep(&(struct timespec){0, 1000000}, NULL);
    } else if (atomic_load_explicit(&pop_hook_on, memory_order_relaxed) && (++pop_hook_count & 7) == 0) {
        nanosleep(&(struct timespec){0, 20000}, NULL);
    }
}
#define MT_SEGFIT_LF_POP_HOOK(stage) pop_hook(stage)

#include <mortise/os/mmap_heap.h>

/* quarantine (test only): while on, a chunk of more than 64 granules freed
 * to mmap_heap is mapped PROT_NONE in place and leaked instead. */
static _Atomic(int) quarantine_on, quarantined;
MT_INLINE void *quarantine_free(mt_ctx *ctx, mt_lfunc *next)
{
    if (atomic_load(&quarantine_on) && ctx->owner == mmap_heap_id && ctx->meta > 64 &&
        ((uintptr_t)ctx->ptr & (MT_GRANULE - 1)) == 0) {
        mt_pagemap_set(ctx->ptr, MT_GRANULE, 0);
        atomic_fetch_add(&quarantined, 1);
        mmap(ctx->ptr, ctx->meta << MT_GRANULE_SHIFT, PROT_NONE,
             MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        return NULL;
    }
    return next(ctx);
}
#define MT_IMPLEMENTS_free
MT_LAYER_OPS_DEFAULTS(quarantine) /* forwards all but free */
#undef MT_IMPLEMENTS_free
enum { quarantine_traits = 0 }; /* (core/layer_end.h gives a layer's traits; this one has none) */

#include <mortise/layers/segfit_lf.h>

#define MT_PREFIX t_
#include <mortise/sockets/custom_socket.h>

MT_COMPOSE(mmap_heap, quarantine, segfit_lf, custom_socket)

#include "../../common/check.h"
#include "../../common/trunk_test.h"
#include <pthread.h>
#include <string.h>
#include <time.h>

static bool layer_ok(const char *when) { return invariants_hold("t_check", t_check(), when); }

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
    CHECK(segfit_lf_walk(&st) == NULL && st.spans_with_free <= carving + 1);
    t_free(keep);
    /* what is left still works */
    void *again = t_malloc(200);
    CHECK(again && owner_of(again) == segfit_lf_id);
    t_free(again);
    CHECK(layer_ok("purge and reuse"));
}

/* ---- a purge waits for a pop in flight ---- */

static void *parked_pop(void *arg)
{
    park_here = true;
    *(void **)arg = t_malloc(700 << 10);
    return NULL;
}
static void *purger(void *arg)
{
    (void)arg;
    t_malloc_trim(0);
    return NULL;
}

static void test_purge_waits_for_pops(void)
{
    enum { BLOCKS = 8 }; /* the 768 KiB class: one span of 8 blocks, 108 granules */
    void *b[BLOCKS], *got = NULL;
    for (int i = 0; i < BLOCKS; i++)
        b[i] = t_malloc(700 << 10);
    CHECK(segfit_lf_span_of(b[0]) == segfit_lf_span_of(b[BLOCKS - 1]));
    for (int i = 0; i < BLOCKS; i++)
        t_free(b[i]);
    atomic_store(&quarantine_on, 1);
    pthread_t popper, purging;
    CHECK(pthread_create(&popper, NULL, parked_pop, &got) == 0);
    while (!atomic_load(&parked))
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    CHECK(pthread_create(&purging, NULL, purger, NULL) == 0);
    nanosleep(&(struct timespec){0, 200000000}, NULL);
    CHECK(atomic_load(&quarantined) == 0); /* the span is still there: purge waits */
    atomic_store(&unpark, 1);
    pthread_join(popper, NULL);
    pthread_join(purging, NULL);
    CHECK(atomic_load(&quarantined) == 1); /* and goes once the pop has left */
    CHECK(got && owner_of(got) == segfit_lf_id && segfit_lf_span_of(got) != segfit_lf_span_of(b[0]));
    t_free(got);
    atomic_store(&quarantine_on, 0);
    CHECK(layer_ok("a purge waiting for a pop"));
}

/* ---- purges racing with pops ---- */

static _Atomic(int) stop;

static struct timespec now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t;
}

/* Threads of the 1 MiB class hold one block at a time but 8 every 16th
 * round, so that its 8-block spans get carved to the end and are then often
 * all free while another thread is inside a pop. */
static void *churn(void *arg)
{
    size_t bad = 0, size = (uintptr_t)arg, hold = 8;
    void *mine[8] = {0};
    for (unsigned round = 0; !atomic_load(&stop); round++) {
        if (size == 1 << 20)
            hold = round % 16 ? 1 : 8;
        for (size_t i = 0; i < hold; i++) {
            mine[i] = t_malloc(size);
            if (mine[i])
                memcpy(mine[i], &mine[i], sizeof(void *)), ((char *)mine[i])[size - 1] = 'z';
        }
        for (size_t i = 0; i < hold; i++) {
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
        CHECK(pthread_create(&t[i], NULL, churn, (void *)(uintptr_t)(i ? 1 << 20 : 100000)) == 0);
    int released = 0; /* purge for about a second */
    for (struct timespec t0 = now(), t1 = t0; t1.tv_sec - t0.tv_sec < 1 || t1.tv_nsec < t0.tv_nsec;
         t1 = now()) {
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
    test_purge_waits_for_pops();
    test_purge_races_pops();
    test_reader_words_reused();
    return check_report("segfit_lf_test");
}

/* The statistics layers and lock statistics in one composition, checked
 * against a known request sequence (white-box: the counters are read from
 * the instances' state), and the report through the API at any time.
 *   mmap_heap::segfit_lk(sync=ticket, lock_stat=1)
 *     ::szcls_stat(sizeclass=log2b)::perf_stat::wcet_stat::custom_socket(prefix=st_)
 * Usage: layers_test [JSON_PATH]  — with a path, also writes the report there
 * mid-run (check_report.py validates it) and prints the expected counts. */
#include <mortise/mortise.h>
#include <mortise/os/mmap_heap.h>

#define MT_SYNC ticket
#define MT_LOCK_STAT 1
#define MT_SIZE_HANDLE 0, 262144
#include <mortise/layers/segfit_lk.h>

#define MT_SIZECLASS log2b
#include <mortise/layers/szcls_stat.h>

#include <mortise/layers/perf_stat.h>

#include <mortise/layers/wcet_stat.h>

#define MT_PREFIX st_
#include <mortise/sockets/custom_socket.h>

MT_COMPOSE(mmap_heap, segfit_lk, szcls_stat, perf_stat, wcet_stat, custom_socket)

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "stats_check.h"

/* ---- sums over the slots ---- */

static uint64_t szcls_allocs(size_t cls) { return SLOTS_SUM(szcls_stat_state, allocs[cls]); }
static uint64_t szcls_resizes(size_t cls) { return SLOTS_SUM(szcls_stat_state, resizes[cls]); }
static uint64_t szcls_frees(void) { return SLOTS_SUM(szcls_stat_state, frees); }
static uint64_t perf_count(unsigned kind) { return SLOTS_SUM(perf_stat_state, count[kind]); }
static uint64_t wcet_count(unsigned kind, uint64_t *samples)
{
    *samples = SLOTS_SUM(wcet_stat_state, op[kind].samples);
    return SLOTS_SUM(wcet_stat_state, op[kind].count);
}
typedef struct {
    uint64_t acquisitions, contended, wait;
    unsigned locks;
} lock_sum;
static lock_sum segfit_locks(void)
{
    lock_sum s = {0, 0, 0, 0};
    for (size_t i = 0; i < sizeof segfit_lk_state.cls / sizeof segfit_lk_state.cls[0]; i++) {
        mt_lockstat_rec *r = &segfit_lk_state.cls[i].lock.stat;
        s.acquisitions += r->acquisitions;
        s.contended += r->contended;
        s.wait += r->wait;
        s.locks += r->layer != NULL;
    }
    return s;
}

/* ---- a known sequence ---- */

static const size_t sizes[] = {1, 16, 16, 17, 100, 100, 100, 129, 1000, 4096, 5000, 70000};
#define NSIZES (sizeof sizes / sizeof sizes[0])

static void test_sequence(void)
{
    size_t classes = MT_SZCLS_CLASSES(log2b);
    uint64_t before_allocs[MT_SZCLS_CLASSES(log2b) + 1], samples0;
    for (size_t c = 0; c <= classes; c++)
        before_allocs[c] = szcls_allocs(c);
    uint64_t frees0 = szcls_frees(), palloc0 = perf_count(MT_PERF_ALLOC), pfree0 = perf_count(MT_PERF_FREE),
             presize0 = perf_count(MT_PERF_RESIZE);
    uint64_t walloc0 = wcet_count(MT_WCET_ALLOC, &samples0);
    lock_sum l0 = segfit_locks();

    enum { ROUNDS = 100 };
    void *p[NSIZES];
    for (int r = 0; r < ROUNDS; r++) {
        for (size_t i = 0; i < NSIZES; i++)
            CHECK_MSG((p[i] = st_malloc(sizes[i])) != NULL, "malloc %zu", sizes[i]);
        for (size_t i = 0; i < NSIZES; i++)
            st_free(p[i]);
    }
    /* expected per class, computed independently of the layer's own path */
    uint64_t want[MT_SZCLS_CLASSES(log2b) + 1] = {0};
    for (size_t i = 0; i < NSIZES; i++)
        want[mt_szcls_log2b_index(sizes[i])] += ROUNDS;
    for (size_t c = 0; c <= classes; c++)
        CHECK_MSG(szcls_allocs(c) - before_allocs[c] == want[c], "class %zu: %llu allocs, want %llu", c,
                  ULL(szcls_allocs(c) - before_allocs[c]), ULL(want[c]));
    /* spot checks of the policy itself: 1 and 16 bytes share a class, 17 does not */
    CHECK_MSG(want[mt_szcls_log2b_index(16)] == 3 * ROUNDS && want[mt_szcls_log2b_index(17)] == ROUNDS,
              "class bookkeeping of the test");
    CHECK_MSG(szcls_frees() - frees0 == NSIZES * ROUNDS, "frees %llu", ULL(szcls_frees() - frees0));
    CHECK_MSG(perf_count(MT_PERF_ALLOC) - palloc0 == NSIZES * ROUNDS, "perf allocs %llu",
              ULL(perf_count(MT_PERF_ALLOC) - palloc0));
    CHECK_MSG(perf_count(MT_PERF_FREE) - pfree0 == NSIZES * ROUNDS, "perf frees");
    CHECK_MSG(perf_count(MT_PERF_RESIZE) == presize0, "no resizes yet");
    uint64_t samples1, walloc1 = wcet_count(MT_WCET_ALLOC, &samples1);
    CHECK_MSG(walloc1 - walloc0 == NSIZES * ROUNDS, "wcet allocs %llu", ULL(walloc1 - walloc0));
    /* one thread, one slot: every 8th of its requests of a kind is timed */
    CHECK_MSG(samples1 == walloc1 / 8, "wcet samples %llu of %llu", ULL(samples1), ULL(walloc1));
    lock_sum l1 = segfit_locks();
    CHECK_MSG(l1.acquisitions - l0.acquisitions == 2 * NSIZES * ROUNDS, "lock acquisitions %llu, want %llu",
              ULL(l1.acquisitions - l0.acquisitions), ULL(2 * NSIZES * ROUNDS));
    CHECK_MSG(l1.contended == 0 && l1.wait == 0, "single thread: %llu contended", ULL(l1.contended));

    /* realloc that cannot stay: one resize request (class of the new size),
     * then the socket moves the block: one more alloc and free */
    void *q = st_malloc(100);
    uint64_t rs0 = szcls_resizes(mt_szcls_log2b_index(100000));
    q = st_realloc(q, 100000);
    CHECK_MSG(q != NULL, "realloc");
    CHECK_MSG(szcls_resizes(mt_szcls_log2b_index(100000)) - rs0 == 1, "resize counted in its class");
    CHECK_MSG(perf_count(MT_PERF_RESIZE) - presize0 == 1, "perf resize %llu",
              ULL(perf_count(MT_PERF_RESIZE) - presize0));
    st_free(q);
}

/* ---- contention, forced ---- */

static void *grab(void *arg)
{
    void *p = st_malloc(100);
    st_free(p);
    *(void **)arg = p;
    return NULL;
}

static void test_contention(void)
{
    size_t cls = segfit_lk_class_for(100, 1);
    mt_lockstat_ticket *lock = &segfit_lk_state.cls[cls].lock;
    lock_sum l0 = segfit_locks();
    uint64_t c0 = lock->stat.contended;

    /* Hold the class lock of 100-byte blocks; a second thread's malloc(100)
     * must then arrive while it is held. */
    mt_lockstat_ticket_lock("segfit_lk", lock);
    void *got = NULL;
    pthread_t t;
    CHECK_MSG(pthread_create(&t, NULL, grab, &got) == 0, "thread");
    while (atomic_load(&lock->stat.inside) < 2) /* it is waiting */
        sched_yield();
    for (int i = 0; i < 1000; i++) /* let it wait a measurable while */
        sched_yield();
    mt_lockstat_ticket_unlock("segfit_lk", lock);
    pthread_join(t, NULL);
    CHECK_MSG(got != NULL, "the other thread's malloc");

    lock_sum l1 = segfit_locks();
    CHECK_MSG(lock->stat.contended - c0 == 1, "one contended acquisition, got %llu",
              ULL(lock->stat.contended - c0));
    CHECK_MSG(l1.contended - l0.contended == 1, "one contended in the layer");
    CHECK_MSG(l1.wait > l0.wait && lock->stat.wait_max > 0, "the wait was measured");
    /* ours + its malloc + its free */
    CHECK_MSG(l1.acquisitions - l0.acquisitions == 3, "acquisitions %llu",
              ULL(l1.acquisitions - l0.acquisitions));
    CHECK_MSG(atomic_load(&lock->stat.inside) == 0, "nobody inside");
}

/* The exec path (combining policies run the critical section elsewhere),
 * through the wrapper of a policy no layer here uses. */
static mt_lockstat_ccsynch cc;
static long counter;
static void *bump(void *arg)
{
    counter += (long)(intptr_t)arg;
    return (void *)(intptr_t)counter;
}
static void *exec_once(void *arg)
{
    (void)arg;
    mt_lockstat_ccsynch_exec("cc_test", &cc, bump, (void *)1);
    return NULL;
}

static void test_exec(void)
{
    for (int i = 0; i < 10; i++)
        CHECK_MSG((intptr_t)mt_lockstat_ccsynch_exec("cc_test", &cc, bump, (void *)1) == i + 1,
                  "exec result");
    CHECK_MSG(cc.stat.acquisitions == 10 && cc.stat.contended == 0, "exec: %llu acquisitions",
              ULL(cc.stat.acquisitions));
    mt_lockstat_ccsynch_lock("cc_test", &cc);
    pthread_t t;
    CHECK_MSG(pthread_create(&t, NULL, exec_once, NULL) == 0, "thread");
    while (atomic_load(&cc.stat.inside) < 2)
        sched_yield();
    mt_lockstat_ccsynch_unlock("cc_test", &cc);
    pthread_join(t, NULL);
    CHECK_MSG(counter == 11, "the waiting exec ran");
    CHECK_MSG(cc.stat.acquisitions == 12 && cc.stat.contended == 1, "exec contended: %llu of %llu",
              ULL(cc.stat.contended), ULL(cc.stat.acquisitions));
}

/* ---- threads: one slot each, counts merged ---- */

enum { THREADS = 4, PER_THREAD = 1000 };
static void *churn(void *arg)
{
    (void)arg;
    for (int i = 0; i < PER_THREAD; i++)
        st_free(st_malloc(48));
    return NULL;
}

static void test_threads(void)
{
    uint64_t s0, a0 = wcet_count(MT_WCET_ALLOC, &s0), p0 = perf_count(MT_PERF_ALLOC);
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, churn, NULL);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    uint64_t s1, a1 = wcet_count(MT_WCET_ALLOC, &s1);
    CHECK_MSG(a1 - a0 == THREADS * PER_THREAD, "wcet allocs of the threads %llu", ULL(a1 - a0));
    CHECK_MSG(perf_count(MT_PERF_ALLOC) - p0 == THREADS * PER_THREAD, "perf allocs of the threads");
    /* each thread's slot counted from where the last owner left it: the
     * samples grow by about 1 in 8, at most one more or less per thread */
    uint64_t ds = s1 - s0, want = THREADS * PER_THREAD / 8;
    CHECK_MSG(ds + THREADS >= want && ds <= want + THREADS, "samples %llu, about %llu", ULL(ds), ULL(want));
    unsigned held = 0;
    for (unsigned i = 0; i < MT_STATS_THREADS; i++)
        held += wcet_stat_state.used[i];
    CHECK_MSG(held == 1, "ended threads gave their slots back (%u held)", held);
}

int main(int argc, char **argv)
{
    test_sequence();
    test_contention();
    test_exec();
    test_threads();

    /* The API, mid-run: a table to a pipe-less fd and JSON to a file. */
    char path[] = "/tmp/mortise_stats_XXXXXX";
    int fd = mkstemp(path);
    CHECK_MSG(fd >= 0, "temp file");
    st_stats_print(fd);
    char text[65536];
    ssize_t n = pread(fd, text, sizeof text - 1, 0);
    text[n > 0 ? n : 0] = 0;
    close(fd);
    unlink(path);
    CHECK_MSG(
        strstr(text,
               "Mortise statistics: mmap_heap::segfit_lk::szcls_stat::perf_stat::wcet_stat::custom_socket"),
        "table title:\n%s", text);
    CHECK_MSG(strstr(text, "wcet_stat wcet_stat: latency in ns"), "wcet table");
    CHECK_MSG(strstr(text, "perf_stat perf_stat: every request timed"), "perf table");
    CHECK_MSG(strstr(text, "szcls_stat szcls_stat (sizeclass=log2b)"), "szcls table");
    CHECK_MSG(strstr(text, "lock_stat segfit_lk (sync=ticket)"), "lock table");
    CHECK_MSG(strstr(text, "lock_stat cc_test (sync=ccsynch)"), "lock table of the exec test");
    if (getenv("LAYERS_TEST_MALLOC_STATS"))
        st_malloc_stats(); /* glibc's call prints the table after the summary */
    if (argc > 1) {
        CHECK_MSG(st_stats_json(argv[1]) == 0, "json to %s", argv[1]);
        uint64_t s;
        lock_sum l = segfit_locks();
        /* what check_report.py compares the JSON with */
        printf("expect wcet_stat ops.alloc.count %llu\n", ULL(wcet_count(MT_WCET_ALLOC, &s)));
        printf("expect wcet_stat ops.alloc.samples %llu\n", ULL(s));
        printf("expect perf_stat ops.alloc.count %llu\n", ULL(perf_count(MT_PERF_ALLOC)));
        printf("expect szcls_stat frees %llu\n", ULL(szcls_frees()));
        printf("expect lock_stat/segfit_lk acquisitions %llu\n", ULL(l.acquisitions));
        printf("expect lock_stat/segfit_lk contended %llu\n", ULL(l.contended));
        printf("expect lock_stat/segfit_lk locks %u\n", l.locks);
    }
    return check_report("layers_test");
}

/* hslab's core-aware thread cache, on hslab itself: this program is built
 * from instances/hslab.c (included below, so its malloc is hslab's, not a
 * look-alike) and looks at the thread cache's per-thread state.
 *
 *   hslab_core_test hetero   run with MORTISE_CORE_CACHE=0:256K,1:1M, an
 *                            emulated big.LITTLE pair (docs/instances.md):
 *                            a thread pinned to CPU 0 may cache a quarter of
 *                            what a thread pinned to CPU 1 may, and really
 *                            holds more blocks on CPU 1 than CPU 0 allows;
 *                            a thread moved from CPU 1 to CPU 0 gives the
 *                            excess back within hslab's re-check interval.
 *   hslab_core_test homo     run without it: sysfs describes this machine's
 *                            cores; where they are alike, every thread gets
 *                            the whole 2 MiB budget wherever it runs.
 * The mechanism alone (syntax, hints, sysfs reader, small bounds) is
 * tests/layers/caches/thread_cache_core_test.c; this checks hslab's composition and
 * parameters: tc classes over slab_lk, cache_size=2MB, the default interval.
 * Exits 77 (skipped) where the process may not run on both CPU 0 and 1. */
#include "../../../instances/hslab.c"

#include "../../common/addons.h"
#include <stdio.h>
#include <string.h>

enum { SMALL = 100, CHURN = 4096 };
static const size_t BUDGET = (size_t)2 << 20; /* hslab's cache_size */

typedef struct {
    int cpu;
    size_t budget, bound, cached; /* what the thread's cache says at the end */
} probe;

static size_t cls(void) { return thread_cache_class_index(SMALL); }
static size_t cached(size_t c) { return list_len(thread_cache_tl.head[c]); }
static size_t bound(size_t c) { return cached(c) + thread_cache_tl.room[c]; }

/* Allocate CHURN small blocks, then free them all: the class's list fills to
 * its bound (and is halved each time it overflows), the rest goes below. */
static void churn(void)
{
    static void *p[CHURN];
    for (int i = 0; i < CHURN; i++)
        CHECK((p[i] = malloc(SMALL)) != NULL);
    for (int i = 0; i < CHURN; i++)
        free(p[i]);
}

static void look(probe *out)
{
    size_t c = cls();
    out->cpu = thread_cache_tl.cpu;
    out->budget = thread_cache_tl.budget;
    out->bound = bound(c);
    out->cached = cached(c);
}

static void *pinned_thread(void *arg)
{
    probe *out = arg;
    CHECK(sched_getcpu() == out->cpu); /* pinned before it started */
    churn();
    look(out);
    return NULL;
}

/* A new thread that runs on `cpu` only from its first instruction. */
static probe on_cpu(int cpu)
{
    probe out = {.cpu = cpu};
    pthread_attr_t attr;
    cpu_set_t set;
    pthread_t t;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    CHECK(pthread_attr_init(&attr) == 0);
    CHECK(pthread_attr_setaffinity_np(&attr, sizeof set, &set) == 0);
    CHECK(pthread_create(&t, &attr, pinned_thread, &out) == 0);
    CHECK(pthread_join(t, NULL) == 0);
    pthread_attr_destroy(&attr);
    printf("  thread on CPU %d: budget %zu KiB, class of %d bytes: bound %zu, cached %zu\n", out.cpu,
           out.budget >> 10, SMALL, out.bound, out.cached);
    return out;
}

static bool may_run_on_0_and_1(void)
{
    cpu_set_t set;
    return sched_getaffinity(0, sizeof set, &set) == 0 && CPU_ISSET(0, &set) && CPU_ISSET(1, &set);
}

static void hetero(void)
{
    size_t c = cls();
    CHECK(mt_cpu_cache_size(0) == 256 << 10 && mt_cpu_cache_size(1) == 1 << 20);
    size_t little = thread_cache_share(BUDGET / 4, c), big = thread_cache_share(BUDGET, c);
    CHECK(little < big);

    probe l = on_cpu(0), b = on_cpu(1);
    CHECK(l.cpu == 0 && l.budget == BUDGET / 4 && l.bound == little && l.cached <= little);
    CHECK(b.cpu == 1 && b.budget == BUDGET && b.bound == big);
    CHECK(b.cached > little); /* the big core really holds more than the little one may */

    /* The main thread fills its cache on CPU 1, then moves to CPU 0: at the
     * next look at the CPU (MT_COREAWARE_INTERVAL slow-path events: each
     * churn overflows the list many times) the bound shrinks and the
     * blocks above it go back below. */
    CHECK(pin_to(1));
    churn();
    CHECK(thread_cache_tl.cpu == 1 && bound(c) == big && cached(c) > little);
    CHECK(pin_to(0));
    churn();
    CHECK(thread_cache_tl.cpu == 0 && bound(c) == little && cached(c) <= little);
    unpin();
}

static void homo(void)
{
    size_t c = cls();
    size_t size0 = mt_cpu_cache_size(0), size1 = mt_cpu_cache_size(1);
    printf("  sysfs: CPU 0 cache %zu KiB, CPU 1 cache %zu KiB\n", size0 >> 10, size1 >> 10);
    probe p0 = on_cpu(0), p1 = on_cpu(1);
    CHECK(p0.budget == mt_cpu_cache_scaled(BUDGET, 0) && p1.budget == mt_cpu_cache_scaled(BUDGET, 1));
    if (size0 == size1) { /* alike (or both unknown): the whole budget on each */
        CHECK(p0.budget == BUDGET && p1.budget == BUDGET);
        CHECK(p0.bound == thread_cache_share(BUDGET, c) && p1.bound == p0.bound);
    }
}

int main(int argc, char **argv)
{
    bool emulated = argc > 1 && !strcmp(argv[1], "hetero");
    if (argc < 2 || (!emulated && strcmp(argv[1], "homo"))) {
        fprintf(stderr, "usage: hslab_core_test hetero|homo\n");
        return 2;
    }
    const char *spec = getenv("MORTISE_CORE_CACHE");
    if (emulated != (spec != NULL)) {
        fprintf(stderr, "hslab_core_test: %s needs MORTISE_CORE_CACHE %s\n", argv[1],
                emulated ? "set (0:256K,1:1M)" : "unset");
        return 2;
    }
    if (!may_run_on_0_and_1()) {
        printf("hslab_core_test: this process may not run on CPUs 0 and 1: skipped\n");
        return 77;
    }
    if (emulated)
        hetero();
    else
        homo();
    return check_report(emulated ? "hslab_core_test(hetero)" : "hslab_core_test(homo)");
}

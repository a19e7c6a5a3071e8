/* sync_bench — every sync policy on one machine in one run.
 *
 *   sync_bench [milliseconds per point (300)] [max threads (16)] [policy] [point]
 *
 * For each policy: the cost of an uncontended lock+unlock pair and of an
 * uncontended exec (ns, one thread, warm), then the throughput of exec under
 * contention with 1, 2, 4, 8, 16 threads (million critical sections per
 * second, all threads on one lock). The critical section updates four
 * counters on four cache lines: the data a combiner or an rcl server keeps
 * in its cache while the lock would otherwise carry it between cores.
 *
 * With `point`, only the throughput at max threads, and what it cost the
 * process (getrusage around it): CPU time, the cores it kept busy, context
 * switches, and throughput per CPU-second. On a shared machine the CPU time
 * a run gets varies more than what it does with it, so the last figure is
 * the steadier one.
 */
#include <mortise/policy/sync/sync.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static struct {
    long v;
    char pad[56];
} shared[4];

static void *cs(void *arg)
{
    for (int i = 0; i < 4; i++)
        shared[i].v++;
    return arg;
}

typedef struct {
    const char *name;
    void (*pair)(void);
    void (*exec)(void);
} policy;

static _Atomic int go, stop;
static double run_ms = 300;

/* One policy's lock, and its three probes. */
#define BENCH_POLICY(P)                   \
    static MT_SYNC_T(P) lock_##P;         \
    static void pair_##P(void)            \
    {                                     \
        MT_SYNC_FN(P, lock)(&lock_##P);   \
        cs(NULL);                         \
        MT_SYNC_FN(P, unlock)(&lock_##P); \
    }                                     \
    static void exec_##P(void) { MT_SYNC_FN(P, exec)(&lock_##P, cs, NULL); }

BENCH_POLICY(spinlock)
BENCH_POLICY(ticket)
BENCH_POLICY(mcslock)
BENCH_POLICY(posix_mutex)
BENCH_POLICY(posix_spin)
BENCH_POLICY(ccsynch)
BENCH_POLICY(flatcombine)
BENCH_POLICY(rcl)

static const policy policies[] = {
#define ROW(P)                 \
    {                          \
#P, pair_##P, exec_##P \
    }
    ROW(spinlock),   ROW(ticket),  ROW(mcslock),     ROW(posix_mutex),
    ROW(posix_spin), ROW(ccsynch), ROW(flatcombine), ROW(rcl),
};

static double ns_per_call(void (*f)(void))
{
    for (int i = 0; i < 100000; i++)
        f();
    long n = 0;
    double t0 = now_s(), t;
    do {
        for (int i = 0; i < 10000; i++)
            f();
        n += 10000;
    } while ((t = now_s() - t0) < run_ms / 1e3 / 2);
    return t * 1e9 / (double)n;
}

typedef struct {
    void (*f)(void);
    long done;
} worker_arg;

static void *worker(void *p)
{
    worker_arg *w = p;
    while (!atomic_load(&go))
        ;
    long n = 0;
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        w->f();
        n++;
    }
    w->done = n;
    return NULL;
}

static double mops(void (*f)(void), int threads)
{
    pthread_t t[64];
    worker_arg a[64];
    atomic_store(&go, 0);
    atomic_store(&stop, 0);
    for (int i = 0; i < threads; i++) {
        a[i] = (worker_arg){f, 0};
        pthread_create(&t[i], NULL, worker, &a[i]);
    }
    double t0 = now_s();
    atomic_store(&go, 1);
    long ns = (long)(run_ms * 1e6); /* 1 s and more: nanosleep refuses tv_nsec >= 1e9 */
    struct timespec d = {ns / 1000000000L, ns % 1000000000L};
    nanosleep(&d, NULL);
    atomic_store(&stop, 1);
    long n = 0;
    for (int i = 0; i < threads; i++) {
        pthread_join(t[i], NULL);
        n += a[i].done;
    }
    return (double)n / (now_s() - t0) / 1e6;
}

static double seconds(struct timeval t) { return (double)t.tv_sec + t.tv_usec / 1e6; }

/* One thread count alone, with its cost to the process. */
static void point(const policy *p, int threads)
{
    struct rusage a, b;
    p->exec(); /* the thread's record exists before the count starts */
    getrusage(RUSAGE_SELF, &a);
    double t0 = now_s();
    double m = mops(p->exec, threads);
    double wall = now_s() - t0;
    getrusage(RUSAGE_SELF, &b);
    double user = seconds(b.ru_utime) - seconds(a.ru_utime);
    double sys = seconds(b.ru_stime) - seconds(a.ru_stime);
    printf("%-12s %3dT %8.2f M/s  user %.3f s  sys %.3f s  cores busy %.2f  "
           "switches: %ld voluntary, %ld involuntary  %.1f M per CPU-s\n",
           p->name, threads, m, user, sys, (user + sys) / wall, b.ru_nvcsw - a.ru_nvcsw,
           b.ru_nivcsw - a.ru_nivcsw, user + sys > 0 ? m * wall / (user + sys) : 0.0);
}

int main(int argc, char **argv)
{
    if (argc > 1)
        run_ms = atof(argv[1]);
    int max_threads = argc > 2 ? atoi(argv[2]) : 16;
    const char *only = argc > 3 ? argv[3] : NULL;
    if (argc > 4 && !strcmp(argv[4], "point")) {
        for (size_t i = 0; i < sizeof policies / sizeof policies[0]; i++)
            if (!only || !strcmp(only, policies[i].name))
                point(&policies[i], max_threads);
        return 0;
    }
    printf("%-12s %9s %9s", "policy", "pair ns", "exec ns");
    for (int t = 1; t <= max_threads; t *= 2)
        printf(" %7dT", t);
    printf("   (exec, million critical sections/s)\n");
    for (size_t i = 0; i < sizeof policies / sizeof policies[0]; i++) {
        const policy *p = &policies[i];
        if (only && strcmp(only, p->name))
            continue;
        printf("%-12s %9.1f %9.1f", p->name, ns_per_call(p->pair), ns_per_call(p->exec));
        fflush(stdout);
        for (int t = 1; t <= max_threads; t *= 2) {
            printf(" %8.2f", mops(p->exec, t));
            fflush(stdout);
        }
        printf("\n");
    }
    return 0;
}

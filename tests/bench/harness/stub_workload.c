/* A stand-in benchmark program for the harness's tests (tests/bench/harness):
 * the workload interface of bench/workloads (-t THREADS, -s SCALE, a final
 * "ok ..." line) with a known result, built as bench_stub, and as
 * bench_stubcrash, which dies of SIGSEGV on purpose after printing, so the
 * harness must record a crash although the output looked fine.
 * STUB_SLOW=TEXT: when LD_PRELOAD contains TEXT the ok line reports
 * wall_s=2.0, otherwise 1.0 (a driver's own time replaces the harness's), so
 * a test can make one allocator miss a target without depending on load. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct job {
    long iterations;
    unsigned long sum;
};

static void *churn(void *arg)
{
    struct job *job = arg;
    for (long i = 0; i < job->iterations; i++) {
        size_t size = 16 + (size_t)(i % 200);
        unsigned char *p = malloc(size);
        if (!p)
            return NULL;
        memset(p, (int)(i & 0xff), size);
        job->sum += p[size - 1];
        free(p);
    }
    return arg;
}

int main(int argc, char **argv)
{
    long threads = 1;
    double scale = 1;
    int opt;
    while ((opt = getopt(argc, argv, "t:s:")) != -1) {
        if (opt == 't')
            threads = strtol(optarg, NULL, 10);
        else if (opt == 's')
            scale = strtod(optarg, NULL);
        else
            return 2;
    }
    long iterations = (long)(scale * 1000);
    if (threads < 1 || threads > 64 || iterations < 1) {
        printf("FAIL bad arguments\n");
        return 1;
    }
    pthread_t tid[64];
    struct job jobs[64];
    for (long t = 0; t < threads; t++) {
        jobs[t] = (struct job){.iterations = iterations, .sum = 0};
        if (pthread_create(&tid[t], NULL, churn, &jobs[t]) != 0) {
            printf("FAIL pthread_create\n");
            return 1;
        }
    }
    unsigned long sum = 0;
    for (long t = 0; t < threads; t++) {
        pthread_join(tid[t], NULL);
        sum += jobs[t].sum;
    }
    /* each thread's sum is the same known number: the low bytes of i */
    unsigned long want = 0;
    for (long i = 0; i < iterations; i++)
        want += (unsigned long)(i & 0xff);
    if (sum != want * (unsigned long)threads) {
        printf("FAIL sum %lu, expected %lu\n", sum, want * (unsigned long)threads);
        return 1;
    }
    const char *slow = getenv("STUB_SLOW"), *preload = getenv("LD_PRELOAD");
    if (slow && *slow)
        printf("ok sum=%lu threads=%ld blocks=%ld wall_s=%.1f\n", sum, threads, iterations * threads,
               preload && strstr(preload, slow) ? 2.0 : 1.0);
    else
        printf("ok sum=%lu threads=%ld blocks=%ld\n", sum, threads, iterations * threads);
#ifdef STUB_CRASH
    fflush(stdout);
    raise(SIGSEGV);
#endif
    return 0;
}

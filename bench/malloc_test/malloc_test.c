/* bench_malloc_test: the test harness of the lock-contention article
 * ("How memory allocation affects multithreaded program performance", its "malloc_test"), written anew.
 *
 * -t N allocation threads, each paired with its own free thread. An
 * allocation thread makes loops of -n allocations (at most 5000); each
 * block (size -m, or with -r a random size up to -m drawn with rand_r) is
 * optionally filled with memset (-s 1) and handed to its free thread
 * through a bounded queue, and the free thread frees it. The measure is
 * loops per second, sampled every -i seconds:
 *   -c COUNT  run COUNT samples, print each, then stop (default 3)
 *   -f LOOPS  run a fixed number of loops (all allocation threads
 *             together), then stop; samples are printed meanwhile
 * When the run stops, every thread stops and the free threads free what is
 * still queued; then the resident set (/proc/self/statm) is read, as the
 * article measured RSS just before exit.
 *
 * Output: a `sample K: L loops/s at T s` line per sample (T: seconds since
 * the threads started, so a plot of the samples shows the start-up ramp), then
 *   ok loops_per_sec=<median of the samples> rss_kb=<RSS after the frees>
 *      loops=<total> threads=<t> max_size=<m>
 * With -f, loops_per_sec is loops / elapsed time (exact even when the run
 * ends before the first sample). The article's samples were 3 s long; the
 * default here is 1 s (-i 3 for the article's setting).
 *
 * Checks: every block carries a seal in its first 16 bytes (and with -s 1
 * its fill byte at the end) that the free thread verifies; the blocks freed
 * must be the blocks allocated.
 */
#include <sched.h>
#include <stdatomic.h>
#include <time.h>

#include "../workloads/workload.h"

#define RING 1024
#define MAX_PER_LOOP 5000

struct item {
    void *p;
    size_t size;
};

/* One allocation thread and its free thread. */
struct pair {
    _Alignas(64) _Atomic size_t head; /* next slot the free thread takes */
    _Alignas(64) _Atomic size_t tail; /* next slot the allocation thread fills */
    _Alignas(64) struct item ring[RING];
    _Atomic int producer_done;
    unsigned seed;
    int index;
    uint64_t made_sum, freed_sum, made, freed;
};

static struct {
    int threads, per_loop, fill, random_sizes, samples;
    size_t max_size;
    unsigned long fixed_loops;
    double interval;
} opt = {1, MAX_PER_LOOP, 0, 0, 3, 1024, 0, 1.0};

static _Atomic unsigned long loops_done, loops_claimed;
static _Atomic int stop;

static void usage(const char *name)
{
    fprintf(stderr,
            "usage: %s [-h] [-t THREADS] [-m MAX_SIZE] [-n PER_LOOP] [-s 0|1] [-r] [-f LOOPS] [-c SAMPLES] "
            "[-i SECONDS]\n"
            "  -t  allocation threads, each with its own free thread (default 1)\n"
            "  -m  largest allocation in bytes (default 1024)\n"
            "  -n  allocations per loop, at most %d (default %d)\n"
            "  -s  memset every block: 0 = no, 1 = yes (default 0)\n"
            "  -r  random sizes up to -m (rand_r) instead of always -m\n"
            "  -f  run this many loops in all, then stop (default 0: run -c samples)\n"
            "  -c  samples to take (default 3)\n"
            "  -i  seconds per sample (default 1; the article used 3)\n",
            name, MAX_PER_LOOP, MAX_PER_LOOP);
}

static long number(const char *name, int flag, const char *arg, long lo, long hi)
{
    char *end;
    long v = strtol(arg, &end, 10);
    if (*end || v < lo || v > hi) {
        fprintf(stderr, "%s: -%c wants %ld..%ld\n", name, flag, lo, hi);
        exit(2);
    }
    return v;
}

static void parse(int argc, char **argv)
{
    int c;
    while ((c = getopt(argc, argv, "ht:m:n:s:rf:c:i:")) != -1) {
        switch (c) {
        case 't': opt.threads = (int)number(argv[0], c, optarg, 1, 2048); break;
        case 'm': opt.max_size = (size_t)number(argv[0], c, optarg, WL_MIN_SEALED, 1L << 30); break;
        case 'n': opt.per_loop = (int)number(argv[0], c, optarg, 1, MAX_PER_LOOP); break;
        case 's': opt.fill = number(argv[0], c, optarg, 0, 1000000) != 0; break;
        case 'r': opt.random_sizes = 1; break;
        case 'f': opt.fixed_loops = (unsigned long)number(argv[0], c, optarg, 0, 1L << 40); break;
        case 'c': opt.samples = (int)number(argv[0], c, optarg, 1, 1000000); break;
        case 'i': {
            char *end;
            opt.interval = strtod(optarg, &end);
            if (*end || !(opt.interval > 0)) {
                fprintf(stderr, "%s: -i wants a positive number of seconds\n", argv[0]);
                exit(2);
            }
            break;
        }
        case 'h': usage(argv[0]); exit(0);
        default: usage(argv[0]); exit(2);
        }
    }
    if (optind != argc) {
        usage(argv[0]);
        exit(2);
    }
}

/* Claims one loop; 0 once the run is over. */
static int claim_loop(void)
{
    if (atomic_load_explicit(&stop, memory_order_relaxed))
        return 0;
    if (!opt.fixed_loops)
        return 1;
    return atomic_fetch_add_explicit(&loops_claimed, 1, memory_order_relaxed) < opt.fixed_loops;
}

static void *allocation_thread(void *arg)
{
    struct pair *pr = arg;
    size_t tail = 0;
    while (claim_loop()) {
        for (int i = 0; i < opt.per_loop; i++) {
            size_t size = opt.max_size;
            if (opt.random_sizes) {
                size = (size_t)rand_r(&pr->seed) % opt.max_size + 1;
                if (size < WL_MIN_SEALED)
                    size = WL_MIN_SEALED;
            }
            void *p = wl_malloc(size, "malloc_test");
            uint64_t id = wl_mix(((uint64_t)pr->index << 44) ^ ++pr->made);
            if (opt.fill)
                memset(p, (int)(id & 0xff), size);
            wl_seal(p, WL_MIN_SEALED, id);
            pr->made_sum += id;
            while (tail - atomic_load_explicit(&pr->head, memory_order_acquire) >= RING)
                sched_yield();
            pr->ring[tail % RING] = (struct item){p, size};
            atomic_store_explicit(&pr->tail, ++tail, memory_order_release);
        }
        if (opt.fixed_loops) {
            unsigned long n = atomic_fetch_add(&loops_done, 1) + 1;
            if (n >= opt.fixed_loops)
                atomic_store(&stop, 1);
        } else {
            atomic_fetch_add_explicit(&loops_done, 1, memory_order_relaxed);
        }
    }
    atomic_store_explicit(&pr->producer_done, 1, memory_order_release);
    return NULL;
}

static void *free_thread(void *arg)
{
    struct pair *pr = arg;
    size_t head = 0;
    for (;;) {
        size_t tail = atomic_load_explicit(&pr->tail, memory_order_acquire);
        if (head == tail) {
            if (atomic_load_explicit(&pr->producer_done, memory_order_acquire) &&
                head == atomic_load_explicit(&pr->tail, memory_order_acquire))
                break;
            sched_yield();
            continue;
        }
        while (head != tail) {
            struct item it = pr->ring[head % RING];
            uint64_t id = wl_open(it.p, WL_MIN_SEALED, "free thread");
            if (opt.fill && it.size > WL_MIN_SEALED &&
                ((unsigned char *)it.p)[it.size - 1] != (unsigned char)(id & 0xff))
                wl_fail("free thread: block %p lost its fill", it.p);
            free(it.p);
            pr->freed_sum += id;
            pr->freed++;
            atomic_store_explicit(&pr->head, ++head, memory_order_release);
        }
    }
    return NULL;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static long rss_kb(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long size = 0, resident = -1;
    if (f) {
        if (fscanf(f, "%ld %ld", &size, &resident) != 2)
            resident = -1;
        fclose(f);
    }
    return resident < 0 ? -1 : resident * (sysconf(_SC_PAGESIZE) / 1024);
}

int main(int argc, char **argv)
{
    parse(argc, argv);
    int n = opt.threads;
    struct pair *pairs = aligned_alloc(64, sizeof(struct pair) * (size_t)n);
    pthread_t *tid = calloc(2 * (size_t)n, sizeof *tid);
    double *lps = calloc((size_t)opt.samples + 1, sizeof *lps);
    if (!pairs || !tid || !lps)
        wl_fail("no memory for %d thread pairs", n);
    memset(pairs, 0, sizeof(struct pair) * (size_t)n);
    double start = now();
    for (int i = 0; i < n; i++) {
        pairs[i].index = i;
        pairs[i].seed = 0x5eed + (unsigned)i;
        if (pthread_create(&tid[2 * i + 1], NULL, free_thread, &pairs[i]) ||
            pthread_create(&tid[2 * i], NULL, allocation_thread, &pairs[i]))
            wl_fail("cannot start thread pair %d", i);
    }
    int taken = 0;
    double last_t = start;
    unsigned long last_loops = 0;
    while (!atomic_load(&stop)) {
        /* Sleep one interval in short naps, so a fixed run ends promptly. */
        double until = last_t + opt.interval;
        while (!atomic_load(&stop) && now() < until) {
            struct timespec nap = {0, 10 * 1000 * 1000};
            nanosleep(&nap, NULL);
        }
        if (atomic_load(&stop))
            break;
        double t = now();
        unsigned long loops = atomic_load(&loops_done);
        double rate = (double)(loops - last_loops) / (t - last_t);
        printf("sample %d: %.0f loops/s at %.3f s\n", taken + 1, rate, t - start);
        fflush(stdout);
        if (taken < opt.samples)
            lps[taken] = rate;
        taken++;
        last_t = t;
        last_loops = loops;
        if (!opt.fixed_loops && taken >= opt.samples)
            atomic_store(&stop, 1);
    }
    for (int i = 0; i < 2 * n; i++)
        pthread_join(tid[i], NULL);
    double elapsed = now() - start;
    uint64_t made = 0;
    for (int i = 0; i < n; i++) {
        if (pairs[i].made != pairs[i].freed || pairs[i].made_sum != pairs[i].freed_sum)
            wl_fail("pair %d: %llu blocks allocated, %llu freed", i, (unsigned long long)pairs[i].made,
                    (unsigned long long)pairs[i].freed);
        made += pairs[i].made;
    }
    unsigned long loops = atomic_load(&loops_done);
    if (made != (uint64_t)loops * (uint64_t)opt.per_loop)
        wl_fail("%llu blocks for %lu loops of %d", (unsigned long long)made, loops, opt.per_loop);
    if (opt.fixed_loops && loops != opt.fixed_loops)
        wl_fail("%lu loops of %lu", loops, opt.fixed_loops);
    double rate;
    if (opt.fixed_loops || taken == 0) {
        rate = (double)loops / elapsed;
    } else {
        int k = taken < opt.samples ? taken : opt.samples;
        qsort(lps, (size_t)k, sizeof *lps, cmp_double);
        rate = k % 2 ? lps[k / 2] : (lps[k / 2 - 1] + lps[k / 2]) / 2;
    }
    long rss = rss_kb();
    printf("ok loops_per_sec=%.1f rss_kb=%ld loops=%lu threads=%d max_size=%zu blocks=%llu\n", rate, rss,
           loops, n, opt.max_size, (unsigned long long)made);
    free(lps);
    free(tid);
    free(pairs);
    return 0;
}

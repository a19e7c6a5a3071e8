/* bench_wcet_test: the worst-case latency microbenchmark of the paper
 * (§4.2), written anew.
 *
 * It drives the allocator as hard as it can so that the slowest requests
 * show: T threads (default: online CPUs), 7 groups run one after another;
 * group g asks only for sizes in the class (16·2^g, 32·2^g] bytes, i.e.
 * (16,32], (32,64], ..., (1024,2048]. In a group each thread allocates
 * 2·10^5·SCALE objects (the paper: 10^7, i.e. -s 50) in batches of unequal
 * size: thread t's batch in round r is (1 + (7t + 3r) mod 8)/8 of 8 MiB, so
 * the threads' loads differ and change from round to round, and no thread
 * holds more than 8 MiB of new objects at once. A batch is shuffled and
 * published on one global list; the thread then frees as many objects as
 * it allocated, taken from that list, most of them allocated by other
 * threads, before its next batch. At the end of a group the list is drained
 * by all threads together.
 *
 * Latencies are measured by the wcet_stat layer, not here: bin/
 * bench_wcet_test is linked with libmortise-wcet_stat_malloc.a (when the
 * build has it), whose malloc times 1 in 8 requests, pins threads, and
 * passes every request on to the next malloc, the allocator under test
 * given with LD_PRELOAD. MORTISE_STATS=json:PATH writes the percentiles
 * (docs/stats.md). bin/bench_wcet_test_nostat is the same program on the
 * plain process malloc.
 *
 * Checks: every object carries its id and a check word, verified before it
 * is freed and before its list link is followed; the ids freed must add up
 * to those allocated in every group. Ends with `ok checksum=... ` (the
 * checksum depends only on -t and -s).
 */
#include <sched.h>
#include <stdatomic.h>

#include "../workloads/workload.h"

#define GROUPS 7
#define BATCH_BYTES (8u << 20)
#define TAKE 256

struct obj {
    struct obj *next;
    uint32_t id, check;
};

static int nthreads;
static size_t per_thread;
static pthread_barrier_t barrier;
static pthread_mutex_t list_lock = PTHREAD_MUTEX_INITIALIZER;
static struct obj *list_head;
static struct wl_ledger ledger[GROUPS];

static uint32_t check_of(uint32_t id, int group) { return (uint32_t)wl_mix(((uint64_t)group << 32) | id); }

static void publish(struct obj **v, size_t n)
{
    for (size_t i = 0; i + 1 < n; i++)
        v[i]->next = v[i + 1];
    pthread_mutex_lock(&list_lock);
    v[n - 1]->next = list_head;
    list_head = v[0];
    pthread_mutex_unlock(&list_lock);
}

/* Takes up to TAKE objects off the global list into v; returns how many. */
static size_t take(struct obj **v, int group)
{
    size_t n = 0;
    pthread_mutex_lock(&list_lock);
    struct obj *o = list_head;
    while (o && n < TAKE) {
        if (o->check != check_of(o->id, group))
            wl_fail("group %d: object %p damaged on the list", group, (void *)o);
        v[n++] = o;
        o = o->next;
    }
    list_head = o;
    pthread_mutex_unlock(&list_lock);
    return n;
}

static uint64_t free_objects(struct obj **v, size_t n, int group)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i]->check != check_of(v[i]->id, group))
            wl_fail("group %d: object %p damaged", group, (void *)v[i]);
        sum += wl_mix(v[i]->id);
        free(v[i]);
    }
    return sum;
}

static void worker(int t, void *arg)
{
    (void)arg;
    size_t cap = BATCH_BYTES / 17 + 1;
    struct obj **batch = wl_malloc(cap * sizeof *batch, "batch array");
    struct obj *taken[TAKE];
    struct wl_rng rng = wl_rng_seed(0x3cee7 + (uint64_t)t);
    uint32_t serial = (uint32_t)t << 26;
    for (int g = 0; g < GROUPS; g++) {
        size_t lo = (size_t)16 << g, hi = (size_t)32 << g;
        struct wl_tally tl = {0};
        size_t left = per_thread;
        for (unsigned r = 0; left > 0; r++) {
            size_t budget = (size_t)BATCH_BYTES * (1 + (7 * (unsigned)t + 3 * r) % 8) / 8;
            size_t count = budget / ((lo + hi) / 2);
            if (count > left)
                count = left;
            if (count == 0)
                count = 1;
            for (size_t i = 0; i < count; i++) {
                struct obj *o = wl_malloc(wl_range(&rng, lo + 1, hi), "wcet_test");
                o->id = ++serial;
                o->check = check_of(o->id, g);
                tl.made_sum += wl_mix(o->id);
                batch[i] = o;
            }
            tl.made += count;
            for (size_t i = count; i > 1; i--) {
                size_t j = wl_below(&rng, i);
                struct obj *x = batch[i - 1];
                batch[i - 1] = batch[j];
                batch[j] = x;
            }
            publish(batch, count);
            left -= count;
            for (size_t done = 0, n; done < count && (n = take(taken, g)) > 0; done += n) {
                tl.freed_sum += free_objects(taken, n, g);
                tl.freed += n;
            }
        }
        pthread_barrier_wait(&barrier);
        for (size_t n; (n = take(taken, g)) > 0;) {
            tl.freed_sum += free_objects(taken, n, g);
            tl.freed += n;
        }
        wl_ledger_add(&ledger[g], &tl);
        pthread_barrier_wait(&barrier);
    }
    free(batch);
}

int main(int argc, char **argv)
{
    struct wl_args a =
        wl_parse(argc, argv, "worst-case latency stress (paper 4.2): 7 size groups, shuffled remote frees");
    nthreads = a.threads;
    per_thread = wl_scaled(200000, a.scale, 1);
    pthread_barrier_init(&barrier, NULL, (unsigned)nthreads);
    wl_run_threads(nthreads, worker, NULL);
    pthread_barrier_destroy(&barrier);
    uint64_t checksum = 0, total = 0;
    for (int g = 0; g < GROUPS; g++) {
        char what[16];
        snprintf(what, sizeof what, "group %d", g);
        total += wl_ledger_check(&ledger[g], what);
        checksum = wl_mix(checksum ^ atomic_load(&ledger[g].made_sum));
    }
    printf("ok checksum=%016llx threads=%d groups=%d objects=%llu\n", (unsigned long long)checksum, nthreads,
           GROUPS, (unsigned long long)total);
    return 0;
}

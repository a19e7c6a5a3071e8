/* bench_pareto: Pareto-distributed request sizes (like alloc-test in the
 * paper).
 *
 * Each thread keeps a working set of 3000 blocks and replaces a random one
 * at a time; sizes follow a Pareto law (minimum 16 bytes, shape 1.1, capped
 * at 512 KiB), so most requests are tiny and a heavy tail reaches into the
 * sizes that allocators serve from separate large-block paths. Each new
 * block's first 64 bytes are written. Every 1024 replacements a thread
 * swaps its whole working set with the shared exchange, so blocks also die
 * on threads that did not allocate them. 5·10^6·SCALE replacements shared
 * among the threads.
 *
 * The (id, size) pairs of the blocks freed must add up to those allocated;
 * sizes depend only on -t and -s.
 */
#include <math.h>
#include <stdatomic.h>

#include "workload.h"

#define WORKING_SET 3000
#define SWAP_EVERY 1024
#define MIN_SIZE 16.0
#define SHAPE 1.1
#define MAX_SIZE (512u << 10)

struct slot {
    void *p;
    size_t size;
};

static int nthreads;
static size_t total_ops;
static pthread_mutex_t exchange_lock = PTHREAD_MUTEX_INITIALIZER;
static struct slot *exchange; /* a working set left by some thread, or NULL */
static struct wl_ledger ledger;
static _Atomic uint64_t tail_blocks;

static size_t pareto_size(struct wl_rng *r)
{
    double u = ((double)(wl_next(r) >> 11) + 1) / 9007199254740993.0; /* (0, 1] */
    double s = MIN_SIZE / pow(u, 1.0 / SHAPE);
    return s > MAX_SIZE ? MAX_SIZE : (size_t)s;
}

static void worker(int t, void *arg)
{
    (void)arg;
    size_t ops = wl_share(total_ops, t, nthreads);
    struct wl_rng rng = wl_rng_seed(0xa1e70 + (uint64_t)t);
    struct slot *set = calloc(WORKING_SET, sizeof *set);
    if (!set)
        wl_fail("no memory for a working set");
    uint64_t serial = 0, big = 0;
    struct wl_tally tl = {0};
    for (size_t k = 0; k < ops; k++) {
        struct slot *s = &set[wl_below(&rng, WORKING_SET)];
        if (s->p) {
            tl.freed_sum += wl_mix(wl_free_sealed(s->p, s->size, "pareto replace") + s->size);
            tl.freed++;
        }
        uint64_t id = wl_mix(((uint64_t)t << 40) ^ ++serial);
        s->size = pareto_size(&rng);
        big += s->size >= 65536;
        s->p = wl_malloc(s->size, "pareto");
        memset(s->p, (int)(id & 0xff), s->size < 64 ? s->size : 64);
        wl_seal(s->p, s->size, id);
        tl.made_sum += wl_mix(id + s->size);
        if (k % SWAP_EVERY == SWAP_EVERY - 1) {
            pthread_mutex_lock(&exchange_lock);
            struct slot *other = exchange;
            exchange = set;
            pthread_mutex_unlock(&exchange_lock);
            set = other ? other : calloc(WORKING_SET, sizeof *set);
            if (!set)
                wl_fail("no memory for a working set");
        }
    }
    for (int i = 0; i < WORKING_SET; i++)
        if (set[i].p) {
            tl.freed_sum += wl_mix(wl_free_sealed(set[i].p, set[i].size, "pareto end") + set[i].size);
            tl.freed++;
        }
    free(set);
    tl.made = serial;
    wl_ledger_add(&ledger, &tl);
    atomic_fetch_add(&tail_blocks, big);
}

int main(int argc, char **argv)
{
    struct wl_args a = wl_parse(argc, argv, "Pareto-distributed sizes over per-thread working sets");
    nthreads = a.threads;
    total_ops = wl_scaled(5000000, a.scale, (size_t)nthreads);
    wl_run_threads(nthreads, worker, NULL);
    if (exchange) {
        struct wl_tally tl = {0};
        for (int i = 0; i < WORKING_SET; i++)
            if (exchange[i].p) {
                tl.freed_sum += wl_mix(wl_free_sealed(exchange[i].p, exchange[i].size, "pareto exchange") +
                                       exchange[i].size);
                tl.freed++;
            }
        free(exchange);
        wl_ledger_add(&ledger, &tl);
    }
    uint64_t blocks = wl_ledger_check(&ledger, "pareto");
    printf("ok checksum=%016llx threads=%d blocks=%llu large=%llu\n",
           (unsigned long long)wl_mix(atomic_load(&ledger.made_sum)), nthreads, (unsigned long long)blocks,
           (unsigned long long)atomic_load(&tail_blocks));
    return 0;
}

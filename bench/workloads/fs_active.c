/* bench_fs_active: active false sharing probe (like cache-thrash, the
 * active counterpart of the paper's cscratch).
 *
 * Every thread, over and over, allocates four 8-byte objects at once and
 * hammers them with writes (5000 increments each, through volatile), checks
 * them and frees them. Nothing is shared between threads; an allocator that
 * hands small objects of different threads out of one cache line makes the
 * threads fight over that line and the run slow. 6·10^4·SCALE rounds of
 * four objects are shared among the threads.
 *
 * Each object starts at a value derived from its id and must end exactly
 * 5000 higher.
 */
#include <stdatomic.h>

#include "workload.h"

#define OBJECTS 4
#define WRITES 5000

static size_t total_rounds;
static int nthreads;
static _Atomic uint64_t checksum;

static void worker(int t, void *arg)
{
    (void)arg;
    size_t rounds = wl_share(total_rounds, t, nthreads);
    uint64_t sum = 0;
    for (size_t r = 0; r < rounds; r++) {
        volatile uint64_t *obj[OBJECTS];
        uint64_t start[OBJECTS];
        for (int k = 0; k < OBJECTS; k++) {
            obj[k] = wl_malloc(sizeof(uint64_t), "object");
            start[k] = wl_mix(((uint64_t)t << 40) ^ (r * OBJECTS + (uint64_t)k)) >> 1;
            *obj[k] = start[k];
        }
        for (int w = 0; w < WRITES; w++)
            for (int k = 0; k < OBJECTS; k++)
                *obj[k] += 1;
        for (int k = 0; k < OBJECTS; k++) {
            if (*obj[k] != start[k] + WRITES)
                wl_fail("thread %d: object %p damaged", t, (void *)obj[k]);
            sum += *obj[k];
            free((void *)obj[k]);
        }
    }
    atomic_fetch_add(&checksum, sum);
}

int main(int argc, char **argv)
{
    struct wl_args a = wl_parse(argc, argv, "active false sharing: each thread writes its own small objects");
    nthreads = a.threads;
    total_rounds = wl_scaled(60000, a.scale, (size_t)nthreads);
    wl_run_threads(nthreads, worker, NULL);
    printf("ok checksum=%016llx threads=%d rounds=%zu\n", (unsigned long long)wl_mix(atomic_load(&checksum)),
           nthreads, total_rounds);
    return 0;
}

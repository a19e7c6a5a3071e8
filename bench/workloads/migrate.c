/* bench_migrate: objects migrate between threads and outlive them (like
 * mstress in the paper).
 *
 * 30 generations of T fresh threads each. A thread allocates objects (32–
 * 1024 bytes, one in 64 up to 16 KiB) into a local set of 600, frees random
 * local objects, and now and then swaps a local object with a random slot
 * of a global table of 2000·T slots (atomic exchange), adopting whatever
 * object some other thread, often one of an earlier generation that has
 * exited, left there. When it exits, a thread frees a third of its local
 * objects and leaves the rest in the global table, freeing what it takes
 * back out. So objects are freed by threads that did not allocate them,
 * long after their allocating thread is gone. Main frees what is left.
 * 6·10^6·SCALE allocations shared among all threads of all generations.
 *
 * The ids of the objects freed, by whatever thread, must add up to those
 * allocated; each thread's allocations depend only on -t and -s.
 */
#include <stdatomic.h>

#include "workload.h"

#define GENERATIONS 30
#define LOCAL 600
#define GLOBAL_PER_THREAD 2000

struct object {
    uint64_t id, seal;
    uint32_t size;
};

static int nthreads;
static size_t total_allocs, global_slots;
static int generation;
static _Atomic(struct object *) *global;
static struct wl_ledger ledger;

static void release(struct object *o, struct wl_tally *tl)
{
    if (!o)
        return;
    tl->freed++;
    tl->freed_sum += wl_free_sealed(o, o->size, "migrate"); /* the seal covers the size */
}

static void worker(int t, void *arg)
{
    (void)arg;
    int g = generation;
    size_t allocs = wl_share(total_allocs, g * nthreads + t, GENERATIONS * nthreads);
    struct wl_rng rng = wl_rng_seed(0x3572e55 + (uint64_t)(g * nthreads + t));
    struct object *local[LOCAL] = {0};
    uint64_t serial = 0;
    struct wl_tally tl = {0};
    for (size_t k = 0; k < allocs; k++) {
        int i = (int)wl_below(&rng, LOCAL);
        release(local[i], &tl);
        size_t size = wl_below(&rng, 64) ? wl_range(&rng, 32, 1024) : wl_range(&rng, 1025, 16384);
        uint64_t id = wl_mix(((uint64_t)g << 52) ^ ((uint64_t)t << 36) ^ ++serial);
        struct object *o = wl_malloc(size, "migrate");
        o->size = (uint32_t)size;
        wl_seal(o, size, id);
        tl.made_sum += id;
        local[i] = o;
        if (wl_below(&rng, 4) == 0) {
            int j = (int)wl_below(&rng, LOCAL);
            local[j] = atomic_exchange(&global[wl_below(&rng, global_slots)], local[j]);
        }
    }
    for (int i = 0; i < LOCAL; i++) {
        if (!local[i])
            continue;
        if (i % 3 == 0)
            release(local[i], &tl);
        else
            release(atomic_exchange(&global[wl_below(&rng, global_slots)], local[i]), &tl);
    }
    tl.made = serial;
    wl_ledger_add(&ledger, &tl);
}

int main(int argc, char **argv)
{
    struct wl_args a = wl_parse(argc, argv, "objects migrate between threads and outlive them");
    nthreads = a.threads;
    total_allocs = wl_scaled(6000000, a.scale, (size_t)(GENERATIONS * nthreads));
    global_slots = (size_t)GLOBAL_PER_THREAD * (size_t)nthreads;
    global = calloc(global_slots, sizeof *global);
    if (!global)
        wl_fail("no memory for the global table");
    for (generation = 0; generation < GENERATIONS; generation++)
        wl_run_threads(nthreads, worker, NULL);
    struct wl_tally tl = {0};
    for (size_t i = 0; i < global_slots; i++)
        release(atomic_load(&global[i]), &tl);
    free(global);
    wl_ledger_add(&ledger, &tl);
    uint64_t objects = wl_ledger_check(&ledger, "migrate");
    printf("ok checksum=%016llx threads=%d generations=%d objects=%llu\n",
           (unsigned long long)wl_mix(atomic_load(&ledger.made_sum)), nthreads, GENERATIONS,
           (unsigned long long)objects);
    return 0;
}

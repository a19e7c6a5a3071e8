/* bench_fs_passive: passive false sharing probe (like cache-scratch, the
 * paper's cscratch).
 *
 * The main thread allocates one 8-byte object per worker, back to back, so
 * they likely share cache lines, and hands object i to worker i. Each
 * worker frees the object it was given and from then on allocates its own
 * 8-byte objects and hammers each with 5000 writes. An allocator that gives
 * the freed slot (still in the main thread's line, next to the other
 * workers' slots) back to the worker keeps the workers fighting over one
 * line. A worker frees its previous object only after allocating the next,
 * so two of its objects are live at once. 3·10^5·SCALE objects in all.
 *
 * Each object starts at a value derived from its id and must end exactly
 * 5000 higher.
 */
#include <stdatomic.h>

#include "workload.h"

#define WRITES 5000

static size_t total_objects;
static int nthreads;
static uint64_t **handed;
static _Atomic uint64_t checksum;

static void worker(int t, void *arg)
{
    (void)arg;
    if (*handed[t] != (uint64_t)t)
        wl_fail("worker %d: handed object damaged", t);
    free(handed[t]);
    size_t n = wl_share(total_objects, t, nthreads);
    uint64_t sum = 0, prev_start = 0;
    volatile uint64_t *prev = NULL;
    for (size_t r = 0; r < n; r++) {
        volatile uint64_t *obj = wl_malloc(sizeof(uint64_t), "object");
        uint64_t start = wl_mix(((uint64_t)t << 40) ^ r) >> 1;
        *obj = start;
        if (prev) {
            if (*prev != prev_start + WRITES)
                wl_fail("worker %d: object %p damaged", t, (void *)prev);
            sum += *prev;
            free((void *)prev);
        }
        for (int w = 0; w < WRITES; w++)
            *obj += 1;
        prev = obj;
        prev_start = start;
    }
    if (prev) {
        if (*prev != prev_start + WRITES)
            wl_fail("worker %d: object %p damaged", t, (void *)prev);
        sum += *prev;
        free((void *)prev);
    }
    atomic_fetch_add(&checksum, sum);
}

int main(int argc, char **argv)
{
    struct wl_args a =
        wl_parse(argc, argv, "passive false sharing: workers free objects the main thread allocated");
    nthreads = a.threads;
    total_objects = wl_scaled(300000, a.scale, (size_t)nthreads);
    handed = wl_malloc((size_t)nthreads * sizeof *handed, "handed");
    for (int t = 0; t < nthreads; t++) {
        handed[t] = wl_malloc(sizeof(uint64_t), "handed object");
        *handed[t] = (uint64_t)t;
    }
    wl_run_threads(nthreads, worker, NULL);
    free(handed);
    printf("ok checksum=%016llx threads=%d objects=%zu\n", (unsigned long long)wl_mix(atomic_load(&checksum)),
           nthreads, total_objects);
    return 0;
}

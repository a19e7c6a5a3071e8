/* bench_server: a server simulation in the style of larson (paper: larson).
 *
 * T slot tables of 2000 blocks (16–1024 bytes) each. A worker thread owns
 * one table for a round: it replaces random slots (frees the old block,
 * allocates one of a new random size) 20000 times, then starts its own
 * successor thread on the same table and exits. The successor frees blocks
 * its predecessor allocated, so most frees are remote frees from a thread
 * that did not allocate the block, into the heap of a thread that is gone.
 * T chains of such threads run at once; the 600·SCALE rounds are shared
 * among them, so the work does not grow with -t.
 *
 * Each table carries its own random stream from thread to thread, so the
 * sequence of sizes and the checksum depend only on -t and -s. Every block
 * is sealed and opened before it is freed. bench_larson is the same
 * pattern as the original larson runs it (docs/workloads.md).
 */
#include "workload.h"

#define SLOTS 2000
#define REPLACE 20000
#define MIN_SIZE 16
#define MAX_SIZE 1024

struct table {
    int index;
    size_t rounds_left;
    struct wl_rng rng;
    uint64_t serial;
    struct wl_tally tl;
    struct wl_slot slot[SLOTS];
};

static int round_step(void *arg)
{
    struct table *t = arg;
    for (int k = 0; k < REPLACE; k++)
        wl_slot_replace(t->slot, SLOTS, &t->rng, MIN_SIZE, MAX_SIZE,
                        wl_mix(((uint64_t)t->index << 48) ^ ++t->serial), &t->tl, "server replace");
    return --t->rounds_left > 0;
}

int main(int argc, char **argv)
{
    struct wl_args a =
        wl_parse(argc, argv, "larson-style server: successor threads free their predecessors' blocks");
    int n = a.threads;
    size_t rounds = wl_scaled(600, a.scale, (size_t)n);
    struct table *tables = calloc((size_t)n, sizeof *tables);
    if (!tables)
        wl_fail("no memory for %d tables", n);
    for (int i = 0; i < n; i++) {
        tables[i].index = i;
        tables[i].rounds_left = wl_share(rounds, i, n);
        tables[i].rng = wl_rng_seed(0x1a450 + (uint64_t)i);
    }
    wl_run_chains(n, round_step, tables, sizeof *tables);
    uint64_t checksum = 0, blocks = 0;
    for (int i = 0; i < n; i++) {
        struct table *t = &tables[i];
        for (int j = 0; j < SLOTS; j++)
            if (t->slot[j].p)
                wl_slot_free(&t->slot[j], &t->tl, "server end");
        uint64_t expect = 0;
        for (uint64_t k = 1; k <= t->serial; k++)
            expect += wl_mix(((uint64_t)i << 48) ^ k);
        if (t->tl.made != t->tl.freed || expect != t->tl.freed_sum)
            wl_fail("table %d: the blocks freed are not the blocks allocated", i);
        checksum = wl_mix(checksum ^ t->tl.freed_sum);
        blocks += t->serial;
    }
    free(tables);
    printf("ok checksum=%016llx threads=%d rounds=%zu blocks=%llu\n", (unsigned long long)checksum, n, rounds,
           (unsigned long long)blocks);
    return 0;
}

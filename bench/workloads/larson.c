/* bench_larson: Larson and Krishnan's server benchmark as mimalloc-bench
 * runs it (larsonN: sizes 8–1000, 5000 blocks per thread), written anew.
 *
 * T tables of 5000 slots. The main thread warms every table up the way the
 * original does: it fills the slots with blocks of random sizes between 8
 * and 1000 bytes, then replaces 4·5000 random ones. Then T chains of
 * threads run at once: a thread replaces random slots of its table (frees
 * the block, allocates one of a new random size) 50 000 times, starts a new
 * thread on the same table and exits. So the first generation frees blocks
 * of the main thread, which is still alive, and every later one frees
 * blocks of a thread that has exited: remote frees into live and abandoned
 * heaps, with a live set (about 2.5 MB a table) larger than a core's cache.
 * bench_server is the same hand-over with 2000 blocks of 16–1024 bytes and
 * no warm-up. 10^7·SCALE replacements in all, shared among the chains.
 *
 * Each table carries its own random stream, so sizes and the checksum
 * depend only on -t and -s. Every block is checked before it is freed
 * (sealed, or for blocks under 16 bytes the seal word alone); each table's
 * ids freed must add up to those allocated.
 */
#include "workload.h"

#define SLOTS 5000
#define WARMUP (4 * SLOTS)
#define GENERATION 50000
#define MIN_SIZE WL_MIN_TAGGED
#define MAX_SIZE 1000

struct table {
    int index;
    size_t generations_left;
    struct wl_rng rng;
    uint64_t serial;
    struct wl_tally tl;
    struct wl_slot slot[SLOTS];
};

static uint64_t next_id(struct table *t) { return wl_mix(((uint64_t)t->index << 48) ^ ++t->serial); }

static int generation(void *arg)
{
    struct table *t = arg;
    for (int k = 0; k < GENERATION; k++)
        wl_slot_replace(t->slot, SLOTS, &t->rng, MIN_SIZE, MAX_SIZE, next_id(t), &t->tl, "larson replace");
    return --t->generations_left > 0;
}

int main(int argc, char **argv)
{
    struct wl_args a =
        wl_parse(argc, argv, "larson: threads hand their random-size blocks over to new threads");
    int n = a.threads;
    size_t generations = wl_scaled(10000000, a.scale, (size_t)n * GENERATION) / GENERATION;
    struct table *tables = calloc((size_t)n, sizeof *tables);
    if (!tables)
        wl_fail("no memory for %d tables", n);
    for (int i = 0; i < n; i++) {
        struct table *t = &tables[i];
        t->index = i;
        t->generations_left = wl_share(generations, i, n);
        t->rng = wl_rng_seed(0x1a5507 + (uint64_t)i);
        for (int j = 0; j < SLOTS; j++)
            wl_slot_fill(&t->slot[j], wl_range(&t->rng, MIN_SIZE, MAX_SIZE), next_id(t), &t->tl,
                         "larson warm-up");
        for (int k = 0; k < WARMUP; k++)
            wl_slot_replace(t->slot, SLOTS, &t->rng, MIN_SIZE, MAX_SIZE, next_id(t), &t->tl,
                            "larson warm-up");
    }
    wl_run_chains(n, generation, tables, sizeof *tables);
    struct wl_ledger ledger = {0};
    uint64_t checksum = 0;
    for (int i = 0; i < n; i++) {
        struct table *t = &tables[i];
        for (int j = 0; j < SLOTS; j++)
            wl_slot_free(&t->slot[j], &t->tl, "larson end");
        if (t->tl.made != t->serial || t->tl.made != t->tl.freed || t->tl.made_sum != t->tl.freed_sum)
            wl_fail("table %d: the blocks freed are not the blocks allocated", i);
        wl_ledger_add(&ledger, &t->tl);
        checksum = wl_mix(checksum ^ t->tl.freed_sum);
    }
    free(tables);
    uint64_t blocks = wl_ledger_check(&ledger, "larson");
    printf("ok checksum=%016llx threads=%d generations=%zu blocks=%llu\n", (unsigned long long)checksum, n,
           generations, (unsigned long long)blocks);
    return 0;
}

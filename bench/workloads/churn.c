/* bench_churn: single-thread churn of random-size blocks.
 *
 * A working set of 4000 live blocks of uniformly random sizes between 8
 * and 500 bytes; each step frees one random live block and allocates a new
 * one of a new random size in its place. The live set stays at 4000 blocks
 * (about 1 MB) while its sizes keep moving, so the allocator reuses freed
 * blocks of one size for requests of another: the size-class and free-list
 * work of a long-running single-threaded program, without the tiny live set
 * of bignum or the realloc of strbuf. 10^7·SCALE steps; -t is ignored (one
 * thread, as the harness runs it).
 *
 * Every block is checked before it is freed (sealed, or for blocks under 16
 * bytes the seal word alone) and the ids freed must add up to those
 * allocated; sizes and the checksum depend only on -s.
 */
#include "workload.h"

#define LIVE 4000
#define MIN_SIZE WL_MIN_TAGGED
#define MAX_SIZE 500

int main(int argc, char **argv)
{
    struct wl_args a =
        wl_parse(argc, argv, "single-thread churn: random frees and allocations of 8–500 bytes");
    size_t steps = wl_scaled(10000000, a.scale, LIVE);
    struct wl_slot *set = calloc(LIVE, sizeof *set);
    if (!set)
        wl_fail("no memory for %d slots", LIVE);
    struct wl_rng rng = wl_rng_seed(0xc4021);
    struct wl_tally tl = {0};
    uint64_t serial = 0;
    for (size_t i = 0; i < LIVE; i++)
        wl_slot_fill(&set[i], wl_range(&rng, MIN_SIZE, MAX_SIZE), wl_mix(++serial), &tl, "churn fill");
    for (size_t k = 0; k < steps; k++)
        wl_slot_replace(set, LIVE, &rng, MIN_SIZE, MAX_SIZE, wl_mix(++serial), &tl, "churn step");
    for (size_t i = 0; i < LIVE; i++)
        wl_slot_free(&set[i], &tl, "churn end");
    free(set);
    struct wl_ledger ledger = {0};
    wl_ledger_add(&ledger, &tl);
    uint64_t blocks = wl_ledger_check(&ledger, "churn");
    printf("ok checksum=%016llx steps=%zu blocks=%llu\n", (unsigned long long)wl_mix(tl.made_sum), steps,
           (unsigned long long)blocks);
    return 0;
}

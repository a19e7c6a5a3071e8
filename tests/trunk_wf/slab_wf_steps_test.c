/* slab_wf: the step bound under contention. Built with MT_SLAB_WF_STEPS 1,
 * so every operation counts its loop iterations and atomic read-modify-writes
 * (operations that reached the layer below are outside the bound and not
 * counted). 8 threads allocate in a few classes, free half of their blocks
 * themselves and pass the other half through shared slots to whichever
 * thread comes next, which frees them remotely: remote frees into current,
 * partial and full slabs (notifications), refills that splice remote blocks,
 * carve, switch slabs. The largest count seen per kind of operation must not
 * exceed the constant the header derives (slab_wf_bound_*), whatever the
 * interleaving; and each kind must have reached its slow part at least once,
 * so that the bound was really exercised. */
#define MT_SLAB_WF_STEPS 1
#include "wf_compose.h"

#include <stdatomic.h>
#include <unistd.h>

enum { ST_THREADS = 8, ST_ROUNDS = 4000, ST_BATCH = 48, ST_SLOTS = 256 };
static void *_Atomic st_slots[ST_SLOTS];

static void *st_thread(void *arg)
{
    uint64_t me = (uint64_t)(uintptr_t)arg;
    wf_rng r = {0x2545F4914F6CDD1Dull * (me + 1)};
    static const size_t sizes[] = {16, 48, 144, 496};
    void *batch[ST_BATCH];
    for (int round = 0; round < ST_ROUNDS; round++) {
        size_t size = sizes[wf_next(&r) % 4];
        for (int i = 0; i < ST_BATCH; i++)
            batch[i] = w_malloc(size);
        for (int i = 0; i < ST_BATCH; i++) {
            if (wf_next(&r) & 1) {
                w_free(batch[i]);
            } else {
                void *theirs = atomic_exchange(&st_slots[wf_next(&r) % ST_SLOTS], batch[i]);
                w_free(theirs);
            }
        }
    }
    return NULL;
}

int main(void)
{
    alarm(120);
    pthread_t t[ST_THREADS];
    for (uintptr_t i = 0; i < ST_THREADS; i++)
        pthread_create(&t[i], NULL, st_thread, (void *)i);
    for (int i = 0; i < ST_THREADS; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < ST_SLOTS; i++)
        w_free(atomic_exchange(&st_slots[i], NULL));
    uint32_t alloc = slab_wf_steps_max(MT_SLAB_WF_OP_ALLOC);
    uint32_t local = slab_wf_steps_max(MT_SLAB_WF_OP_FREE_LOCAL);
    uint32_t remote = slab_wf_steps_max(MT_SLAB_WF_OP_FREE_REMOTE);
    printf("steps: alloc %u (bound %d), own free %u (bound %d), remote free %u (bound %d)\n", alloc,
           slab_wf_bound_alloc, local, slab_wf_bound_free_local, remote, slab_wf_bound_free_remote);
    CHECK(alloc <= slab_wf_bound_alloc);
    CHECK(local <= slab_wf_bound_free_local);
    CHECK(remote <= slab_wf_bound_free_remote);
    /* the slow parts ran: a refill walked a whole batch, a remote free
     * notified an owner */
    CHECK(alloc > slab_wf_collect);
    CHECK(remote == slab_wf_bound_free_remote);
    CHECK(local >= 1);
    CHECK(!wf_inconsistent("steps"));
    return check_report("slab_wf_steps");
}

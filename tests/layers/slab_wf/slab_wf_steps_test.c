/* slab_wf: the step bound under contention. Built with MT_SLAB_WF_STEPS 1,
 * so every operation counts its loop iterations and atomic read-modify-writes
 * (operations that reached the layer below are outside the bound and not
 * counted). 8 threads allocate in a few classes, free half of their blocks
 * themselves and pass the other half through shared slots to whichever
 * thread comes next, which frees them remotely: remote frees into current,
 * partial and full slabs (notifications), refills that splice remote blocks,
 * carve, switch slabs. The largest count seen per kind of operation must not
 * exceed the constant the header derives (slab_wf_bound_*), whatever the
 * interleaving. A prologue builds each slow part on purpose, so that the
 * counting is seen to reach it whatever the scheduling: a refill that splices
 * a whole batch of K remote blocks (K + 2 steps), a remote free that notifies
 * the owner of a full slab (4), an own free that empties a full slab and
 * resolves its mark (2). */
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

static void *free_all(void *arg)
{
    void **blocks = arg;
    for (size_t i = 0; blocks[i]; i++)
        w_free(blocks[i]);
    return NULL;
}

/* Another thread frees the NULL-terminated `blocks` (remote frees). */
static void free_elsewhere(void **blocks)
{
    pthread_t t;
    pthread_create(&t, NULL, free_all, blocks);
    pthread_join(t, NULL);
}

static void prologue(void)
{
    enum { K = slab_wf_collect };
    /* a whole batch waits in the current slab's remote stack */
    void *mine[4 * K + 1] = {0};
    for (int i = 0; i < 4 * K; i++)
        mine[i] = w_malloc(48);
    free_elsewhere(mine);
    for (int i = 0; i < 4 * K; i++) /* the bin's carved blocks, then a splice */
        mine[i] = w_malloc(48);
    /* the most is a carve's (the call and K - 1 links): a splice takes the
     * remote stack with one XCHG and pops, without a walk */
    CHECK(slab_wf_steps_max(MT_SLAB_WF_OP_ALLOC) == K);
    for (int i = 0; i < 4 * K; i++)
        w_free(mine[i]);

    /* a full slab (MARK): the first remote free notifies */
    size_t n;
    void **full = wf_fill_slab(300, &n);
    CHECK(mt_load_relaxed(&slab_of(full[0])->rhead) == MT_SLAB_WF_MARK);
    void *one[2] = {full[0], NULL};
    free_elsewhere(one);
    CHECK(slab_wf_steps_max(MT_SLAB_WF_OP_FREE_REMOTE) == 4);
    for (size_t i = 1; i < n; i++)
        w_free(full[i]);
    free(full);

    /* a full slab the owner empties itself: its last free resolves the mark */
    full = wf_fill_slab(1000, &n);
    for (size_t i = 0; i < n; i++)
        w_free(full[i]);
    free(full);
    CHECK(slab_wf_steps_max(MT_SLAB_WF_OP_FREE_LOCAL) == 2);
}

int main(void)
{
    alarm(120);
    prologue();
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
    CHECK(!wf_inconsistent("steps"));
    return check_report("slab_wf_steps");
}

/* batched_free: frees wait in the thread's batch (the layer below still
 * counts them allocated) until the batch is full, then all of it goes below
 * oldest first; blocks above size_handle go below at once; allocations and
 * usable sizes of live blocks are untouched; another thread's frees wait in
 * its own batch and go below at its exit; frees after a thread's exit go
 * straight below; malloc_trim flushes; fork works under load.
 * model: mmap_heap::segfit_lk(sync=spinlock)::batched_free(batch_size=8, size_handle=[0, 4096])::custom_socket(prefix=b_) */
#include <mortise/mortise.h>
#include <mortise/os/mmap_heap.h>

#define MT_SYNC spinlock
#include <mortise/layers/segfit_lk.h>

#define MT_BATCH_SIZE 8
#define MT_SIZE_HANDLE 0, 4096
#include <mortise/layers/batched_free.h>

#define MT_PREFIX b_
#include <mortise/sockets/custom_socket.h>

MT_COMPOSE(mmap_heap, segfit_lk, batched_free, custom_socket)

#include "../../common/addons.h"

static void *list_of(size_t size) { return segfit_lk_state.cls[mt_szcls_log2b_index(size)].free; }
static bool below_free(void *p) { return list_has(segfit_lk_state.cls[segfit_lk_span_of(p)->cls].free, p); }

static void *other_thread(void *arg)
{
    void **blocks = arg; /* allocated by main */
    for (int i = 0; i < 5; i++)
        b_free(blocks[i]);
    CHECK(batched_free_tl.n == 5);
    for (int i = 0; i < 5; i++)
        CHECK(!below_free(blocks[i])); /* pending in this thread's batch */
    return NULL;                       /* thread_exit hands them below */
}

static void *exited_thread(void *arg)
{
    void **out = arg;
    void *p = b_malloc(64), *q = b_malloc(64);
    b_free(p);              /* pending */
    mt_thread_detach(NULL); /* as if its TLS destructors ran */
    CHECK(below_free(p));   /* the batch went below */
    b_free(q);              /* after exit: straight below */
    CHECK(below_free(q) && batched_free_tl.n == 0);
    out[0] = q;
    return NULL;
}

static void child(void)
{
    void *p[20];
    for (int i = 0; i < 20; i++)
        p[i] = b_malloc(100);
    for (int i = 0; i < 20; i++)
        b_free(p[i]);
    CHECK(batched_free_tl.n >= 1 && batched_free_tl.n <= 8);
}

static void *m_alloc(size_t n) { return b_malloc(n); }
static void m_free(void *p) { b_free(p); }

int main(void)
{
    void *p[17];
    for (int i = 0; i < 17; i++)
        p[i] = b_malloc(100);
    size_t free_before = list_len(list_of(100));

    /* 8 frees fill the batch: nothing reaches segfit_lk yet */
    for (int i = 0; i < 8; i++)
        b_free(p[i]);
    CHECK(batched_free_tl.n == 8);
    CHECK(list_len(list_of(100)) == free_before);
    for (int i = 0; i < 8; i++)
        CHECK(batched_free_tl.pending[i].ptr == p[i]);

    /* the 9th: the batch goes below, oldest first (so p[7] is on top of
     * segfit_lk's LIFO list), and p[8] starts the next batch */
    b_free(p[8]);
    CHECK(batched_free_tl.n == 1 && batched_free_tl.pending[0].ptr == p[8]);
    CHECK(list_len(list_of(100)) == free_before + 8);
    CHECK(list_of(100) == p[7]);
    bool all_below = true;
    for (int i = 0; i < 8; i++)
        all_below &= below_free(p[i]);
    CHECK(all_below && !below_free(p[8]));

    /* live blocks are untouched: usable size, realloc in place */
    CHECK(b_malloc_usable_size(p[9]) == 112);
    CHECK(b_realloc(p[9], 100) == p[9]);

    /* above size_handle: straight below, the batch unchanged */
    void *big = b_malloc(8000);
    b_free(big);
    CHECK(below_free(big) && batched_free_tl.n == 1);

    /* a foreign pointer is ignored */
    int local = 7;
    b_free(&local);
    CHECK(local == 7 && batched_free_tl.n == 1);

    /* another thread's frees wait in its batch and go below at its exit */
    in_thread(other_thread, &p[9]);
    for (int i = 9; i < 14; i++)
        CHECK(below_free(p[i]));
    CHECK(batched_free_tl.n == 1);

    void *gone[1];
    in_thread(exited_thread, gone);

    /* malloc_trim flushes the calling thread's batch */
    b_free(p[14]);
    CHECK(batched_free_tl.n == 2);
    CHECK(b_malloc_trim(0) == 1);
    CHECK(batched_free_tl.n == 0 && below_free(p[8]) && below_free(p[14]));
    b_free(p[15]);
    b_free(p[16]);

    CHECK(fork_under_load(m_alloc, m_free, child, 50) == 0);
    return check_report("batched_free_test");
}

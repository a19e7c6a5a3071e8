/* thread_cache: hits reuse the thread's own blocks (LIFO), the per-class
 * bound holds (and is min_blocks where the class's share is less), blocks it
 * does not cover pass through, a full list hands its shed half to another
 * thread's miss, and a thread's cache goes back to the layer below when the
 * thread exits.
 * model: mmap_heap::segfit_lk::thread_cache(size_handle=[0, 4096], cache_size=64KB, min_blocks=4)::custom_socket(prefix=t_) */
#include <mortise/mortise.h>
#include <mortise/os/mmap_heap.h>

#define MT_SYNC spinlock
#include <mortise/layers/segfit_lk.h>

#define MT_SIZE_HANDLE 0, 4096
#define MT_CACHE_SIZE 65536
#define MT_CACHE_MIN_BLOCKS 4
#include <mortise/layers/thread_cache.h>

#define MT_PREFIX t_
#include <mortise/sockets/custom_socket.h>

MT_COMPOSE(mmap_heap, segfit_lk, thread_cache, custom_socket)

#include "../../common/check.h"
#include <pthread.h>
#include <string.h>

static size_t cached(size_t cls)
{
    size_t n = 0;
    for (void *p = thread_cache_tl.head[cls]; p; p = *(void **)p)
        n++;
    return n;
}

/* Blocks of class c free in segfit_lk (below the cache). */
static size_t free_below(size_t cls)
{
    size_t n = 0;
    for (void *p = segfit_lk_state.cls[cls].free; p; p = *(void **)p)
        n++;
    return n;
}

static size_t chain_length(void *p)
{
    size_t n = 0;
    for (; p; p = *(void **)p)
        n++;
    return n;
}

/* A thread's first miss on the class takes the chain in the hand-off slot. */
static void *taker(void *arg)
{
    size_t *got = arg;
    size_t c = mt_szcls_log2b_index(100);
    void *first = t_malloc(100);
    got[0] = (size_t)first;
    got[1] = cached(c);
    got[2] = (size_t)mt_load_relaxed(&thread_cache_handoff[c][0]);
    got[3] = thread_cache_tl.room[c];
    t_free(first);
    return NULL;
}

static void *worker(void *arg)
{
    void **out = arg;
    void *p = t_malloc(64);
    t_free(p);
    *out = p;
    return NULL; /* thread_exit hands the cached block back to segfit_lk */
}

int main(void)
{
    /* LIFO reuse of the same block on the hit path */
    void *a = t_malloc(100);
    CHECK(a != NULL);
    t_free(a);
    CHECK(t_malloc(100) == a);
    CHECK(t_malloc_usable_size(a) == 112);
    t_free(a);

    /* a miss took a batch: the class holds more than the one block */
    size_t c = mt_szcls_log2b_index(100);
    CHECK(cached(c) >= 2);

    /* the bound: 64 KiB over the 24 classes of [0, 4096), per class */
    size_t cap = 65536 / (mt_szcls_log2b_index(4095) + 1) / 112;
    void *blocks[400];
    for (int i = 0; i < 400; i++)
        blocks[i] = t_malloc(100);
    for (int i = 0; i < 400; i++)
        t_free(blocks[i]);
    CHECK(cached(c) <= cap);
    CHECK(cached(c) + thread_cache_tl.room[c] == cap);

    /* each overflow went to a hand-off slot as one chain (the newer half):
     * 400 frees overflow more often than there are slots, so every slot
     * holds a half; another thread's miss takes the first whole: the
     * chain's first block, the rest as its list, without asking the layer
     * below */
    CHECK(thread_cache_slots == 4);
    for (size_t i = 0; i < thread_cache_slots; i++)
        CHECK(chain_length(mt_load_relaxed(&thread_cache_handoff[c][i])) == (cap + 1) / 2);
    void *chain = mt_load_relaxed(&thread_cache_handoff[c][0]);
    size_t chain_n = chain_length(chain);
    CHECK(chain != NULL && chain_n == (cap + 1) / 2);
    size_t got[4];
    pthread_t tk;
    CHECK(pthread_create(&tk, NULL, taker, got) == 0 && pthread_join(tk, NULL) == 0);
    CHECK(got[0] == (size_t)chain);
    CHECK(got[1] == chain_n - 1);
    CHECK(got[2] == 0);
    CHECK(got[1] + got[3] == cap); /* the chain's length word, taken without a walk */
    /* its exit gave them back below, and the other slots' chains too */
    for (size_t i = 0; i < thread_cache_slots; i++)
        CHECK(mt_load_relaxed(&thread_cache_handoff[c][i]) == NULL);
    /* sheds fill the empty slots and free nothing below; with every slot
     * full the next shed's blocks go below themselves and the slots keep
     * their chains (segfit_lk's free list of the class grows by two) */
    void *six[6];
    for (int i = 0; i < 6; i++)
        six[i] = t_malloc(100);
    for (int i = 0; i < 6; i++)
        t_free(six[i]);
    size_t held = cached(c), below = free_below(c);
    CHECK(held >= 6);
    for (size_t i = 0; i < thread_cache_slots; i++)
        thread_cache_shed(c, 1);
    for (size_t i = 0; i < thread_cache_slots; i++)
        CHECK(chain_length(mt_load_relaxed(&thread_cache_handoff[c][i])) == 1);
    CHECK(cached(c) == held - 4 && free_below(c) == below);
    thread_cache_shed(c, 2);
    for (size_t i = 0; i < thread_cache_slots; i++)
        CHECK(chain_length(mt_load_relaxed(&thread_cache_handoff[c][i])) == 1);
    CHECK(cached(c) == held - 6 && free_below(c) == below + 2);
    for (int i = 0; i < 400; i++)
        blocks[i] = t_malloc(100);
    for (int i = 0; i < 400; i++)
        t_free(blocks[i]);
    for (size_t i = 0; i < thread_cache_slots; i++)
        CHECK(chain_length(mt_load_relaxed(&thread_cache_handoff[c][i])) == (cap + 1) / 2);
    /* a length word the program damaged after the free (beyond the room, or
     * 0) is not trusted: the taker walks the chain and counts it */
    size_t damaged[] = {SIZE_MAX, cap + 2, 0}; /* the taker's room is cap */
    for (size_t d = 0; d < sizeof damaged / sizeof *damaged; d++) {
        for (int i = 0; i < 400; i++)
            blocks[i] = t_malloc(100);
        for (int i = 0; i < 400; i++)
            t_free(blocks[i]);
        chain = mt_load_relaxed(&thread_cache_handoff[c][0]);
        CHECK(chain != NULL && chain_length(chain) == (cap + 1) / 2);
        ((size_t *)chain)[1] = damaged[d];
        CHECK(pthread_create(&tk, NULL, taker, got) == 0 && pthread_join(tk, NULL) == 0);
        CHECK(got[0] == (size_t)chain && got[1] == (cap + 1) / 2 - 1 && got[1] + got[3] == cap);
    }

    /* sizes above size_handle are not cached */
    void *big = t_malloc(10000), *al = t_aligned_alloc(256, 100);
    CHECK(big && al && ((uintptr_t)al & 255) == 0);
    size_t before = cached(mt_szcls_log2b_index(10000));
    t_free(big);
    CHECK(cached(mt_szcls_log2b_index(10000)) == before);
    t_free(al); /* usable 256: filed under its class, fine for any request of it */

    /* aligned requests: served from the smallest class that is a multiple
     * of the alignment (256 for 100 bytes at 256) when its head is aligned;
     * a miss refills that class from below */
    {
        size_t ca = mt_szcls_log2b_index(256);
        CHECK(thread_cache_aligned_class(100, 256) == ca);
        CHECK(thread_cache_aligned_class(16, 4096) == mt_szcls_log2b_index(4095));
        CHECK(thread_cache_aligned_class(100, 8192) == SIZE_MAX);
        void *al8[8];
        bool refilled = false;
        for (int i = 0; i < 8; i++) {
            al8[i] = t_aligned_alloc(256, 100);
            CHECK(al8[i] && ((uintptr_t)al8[i] & 255) == 0);
            refilled |= cached(ca) > 0; /* a miss refilled the class */
        }
        CHECK(refilled);
        for (int i = 0; i < 8; i++)
            t_free(al8[i]);
        size_t held = cached(ca), below = free_below(ca);
        CHECK(held >= 8);
        for (int i = 0; i < 8; i++) {
            al8[i] = t_aligned_alloc(256, 100);
            CHECK(al8[i] && ((uintptr_t)al8[i] & 255) == 0);
        }
        CHECK(cached(ca) == held - 8 && free_below(ca) == below); /* hits: nothing below */
        /* the head's address is checked: a misaligned head (a layer below
         * that does not align its blocks) is never returned */
        char *fake = (char *)al8[7] + 16;
        *(void **)fake = thread_cache_tl.head[ca];
        thread_cache_tl.head[ca] = fake;
        void *q = t_aligned_alloc(256, 100);
        CHECK(q && q != fake && ((uintptr_t)q & 255) == 0);
        CHECK(thread_cache_tl.head[ca] == fake);
        thread_cache_tl.head[ca] = *(void **)fake;
        t_free(q);
        for (int i = 0; i < 8; i++)
            t_free(al8[i]);
    }

    /* a foreign pointer is never touched */
    int local;
    t_free(&local);

    /* another thread's cache is its own and goes back at its exit: its block
     * is free in segfit_lk afterwards, so this thread's next miss may get it */
    void *theirs = NULL;
    pthread_t t;
    CHECK(pthread_create(&t, NULL, worker, &theirs) == 0 && pthread_join(t, NULL) == 0);
    CHECK(theirs != NULL);
    size_t c64 = mt_szcls_log2b_index(64);
    bool found = false;
    for (void *p = segfit_lk_state.cls[c64].free; p; p = *(void **)p)
        found |= p == theirs;
    CHECK(found);

    /* malloc_trim empties the calling thread's cache and the hand-off slots */
    t_malloc_trim(0);
    CHECK(cached(c) == 0);
    for (size_t i = 0; i < thread_cache_slots; i++)
        CHECK(mt_load_relaxed(&thread_cache_handoff[c][i]) == NULL);

    /* min_blocks: the 4 KiB class's share of 64 KiB over 24 classes is no
     * block at all; it keeps 4. From an empty list, 4 mallocs (two misses
     * with a batch of 2 each) leave it empty, and 4 frees fill it. */
    size_t cbig = mt_szcls_log2b_index(4000);
    CHECK(65536 / (mt_szcls_log2b_index(4095) + 1) / thread_cache_class_size(cbig) == 0);
    CHECK(thread_cache_capacity(cbig) == 4);
    CHECK(cached(cbig) == 0 && thread_cache_tl.room[cbig] == 4);
    void *big4[4];
    for (int i = 0; i < 4; i++)
        big4[i] = t_malloc(4000);
    CHECK(cached(cbig) == 0 && thread_cache_tl.room[cbig] == 4);
    for (int i = 0; i < 4; i++)
        t_free(big4[i]);
    CHECK(cached(cbig) == 4 && thread_cache_tl.room[cbig] == 0);
    for (size_t i = 0; i < thread_cache_slots; i++)
        CHECK(mt_load_relaxed(&thread_cache_handoff[cbig][i]) == NULL);
    return check_report("thread_cache_test");
}

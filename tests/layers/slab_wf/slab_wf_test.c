/* slab_wf: white-box and stress tests (tests/layers/slab_wf/wf_compose.h has the
 * composition). One case per run: slab_wf_test CASE.
 *   basic   classes, usable sizes and class hint, reuse of a freed block
 *           once the bin has run dry, aligned requests (the aligned classes,
 *           a shifted block above 32 KiB), large requests passed below,
 *           foreign pointers, calloc
 *   tllabs  a thread keeps at most tllabs empty slabs; the rest go below
 *   reclaim slabs emptied by another thread's frees serve the owner's next
 *           class without new slabs from below
 *   random  random sequences in 4 threads exchanging blocks; the invariant
 *           checker after every phase (each thread on its own heap while
 *           the others wait) and every 1000 operations of a single thread
 *   remote  4 producers, 4 consumers: every block verified and counted,
 *           every slab back below after the last free and malloc_trim
 *   exit    allocating threads exit while others still free their blocks;
 *           new threads adopt the abandoned heaps; nothing lost, every slab
 *           back below at the end
 *   twice   8 threads; a block handed out while it is live is caught
 *   late    allocations after the thread's own thread_exit (a later TLS
 *           destructor) borrow a heap and give it back
 *   repair  a remote free and a notification killed half way (as fork does
 *           to other threads) are repaired by fork_child's repair
 *   fork    children of a multithreaded parent free parent-era blocks of
 *           other threads' slabs, allocate, and pass the checker
 *   own     the owner's frees onto current and partial slabs' own lists,
 *           taken back when the bin runs dry; the checker catches a foreign
 *           and a duplicate link in them
 *   collect own frees and another thread's frees into the same slabs
 *           while the owner refills: no block handed out twice, all back */
#include "wf_compose.h"

#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void wf_sleep_ms(int ms)
{
    struct timespec ts = {0, (long)ms * 1000000L};
    nanosleep(&ts, NULL);
}

/* Every slab of the layer back below: all blocks are free, no thread holds a
 * heap but the caller's, and malloc_trim tidies them all. `heaps_before`:
 * the heap count when `base` (mmap_heap's handed_out) was read. */
static void check_all_returned(const char *where, size_t base, size_t heaps_before)
{
    w_malloc_trim(0);
    mt_slab_wf_stat st = slab_wf_stat();
    if (st.slabs != 0)
        fprintf(stderr, "%s: %zu slabs still held\n", where, st.slabs);
    CHECK(st.slabs == 0);
    CHECK(wf_handed_out() - base == (st.heaps - heaps_before) * MT_GRANULE);
    CHECK(!wf_inconsistent(where));
}

/* ---- basic ---- */
static void case_basic(void)
{
    for (size_t size = 0; size < 65536; size = size < 300 ? size + 7 : size * 9 / 8) {
        void *p = w_malloc(size);
        size_t c = mt_szcls_prime_index(size ? size : 1), usable = w_malloc_usable_size(p);
        CHECK(p && ((uintptr_t)p & 15) == 0);
        CHECK(usable == mt_szcls_prime_size(c));
        mt_slab_wf_slab *s = slab_of(p);
        CHECK(s && s->cls == c);
        mt_ctx q = mt_ctx_for_alloc(0, 1);
        mt_ctx_route(&q, p);
        CHECK(mt_chain_getmeta(&q) == p && q.szcls == c && q.szcls_key == MT_SZCLS_prime_KEY);
        memset(p, 0xAB, usable);
        w_free(p);
        /* an own free goes on its slab's list, which the bin takes over when
         * it runs dry: p is handed out again before the slab is used up */
        void **got = malloc((s->capacity + 1) * sizeof *got);
        size_t n = 0;
        while (n <= s->capacity && (got[n] = w_malloc(size)) != p)
            n++;
        CHECK(n <= s->capacity);
        for (size_t i = 0; i <= n && i <= s->capacity; i++)
            w_free(got[i]);
        free(got);
    }
    /* 65536 and up: passed to mmap_heap, whole granules */
    void *big = w_malloc(65536);
    CHECK(big && !slab_of(big));
    CHECK(big && w_malloc_usable_size(big) >= 65536 && ((uintptr_t)big & (MT_GRANULE - 1)) == 0);
    w_free(big);

    /* aligned: every power of two to 64 KiB, kept live together */
    void *keep[17 * 6];
    size_t n = 0;
    for (size_t a = 1; a <= 65536; a *= 2) {
        size_t sizes[6] = {0, 1, 24, a + 1, 3000, 20000};
        for (int i = 0; i < 6; i++) {
            char *p = w_aligned_alloc(a, sizes[i]);
            size_t usable = w_malloc_usable_size(p);
            CHECK(p && ((uintptr_t)p & (a - 1)) == 0 && usable >= sizes[i]);
            if (!p)
                continue;
            memset(p, (int)(n & 0xff), usable);
            keep[n++] = p;
        }
    }
    size_t overlaps = 0; /* [p, p + max(usable, 1)) of live blocks never meet */
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < i; j++) {
            uintptr_t pi = (uintptr_t)keep[i], pj = (uintptr_t)keep[j];
            size_t ui = w_malloc_usable_size(keep[i]), uj = w_malloc_usable_size(keep[j]);
            overlaps += pi < pj + (uj ? uj : 1) && pj < pi + (ui ? ui : 1);
        }
    CHECK(overlaps == 0);
    for (size_t i = 0; i < n; i++) {
        unsigned char *p = keep[i];
        size_t usable = w_malloc_usable_size(p), wrong = 0;
        for (size_t j = 0; j < usable; j++)
            wrong += p[j] != (unsigned char)(i & 0xff);
        CHECK(wrong == 0);
        w_free(p);
    }
    /* tiny aligned requests between tiny plain ones: a shifted address stays
     * inside its own block whatever the block's position */
    enum { TINY = 300 };
    char *tiny[TINY];
    size_t tiny_overlaps = 0;
    for (int i = 0; i < TINY; i++)
        tiny[i] = i % 2 ? w_malloc(1) : w_aligned_alloc((size_t)32 << (i / 2 % 3), (size_t)(i / 6 % 2));
    for (int i = 0; i < TINY; i++)
        for (int j = 0; j < i; j++) {
            size_t ui = w_malloc_usable_size(tiny[i]), uj = w_malloc_usable_size(tiny[j]);
            tiny_overlaps += tiny[i] < tiny[j] + (uj ? uj : 1) && tiny[j] < tiny[i] + (ui ? ui : 1);
        }
    CHECK(tiny_overlaps == 0);
    for (int i = 0; i < TINY; i++)
        w_free(tiny[i]);

    /* an aligned request no prime class is a multiple of: the aligned class
     * of 512-byte blocks, every block aligned, no slab flagged, and its free
     * the fast path's (onto the slab's own list) */
    char *pw = w_aligned_alloc(256, 300);
    mt_slab_wf_slab *ps = slab_of(pw);
    CHECK(pw && ps && ps->cls >= slab_wf_bins && ps->csize == 512);
    CHECK(ps && !(mt_load_relaxed(&ps->ostate) & MT_SLAB_WF_ALIGNED) && w_malloc_usable_size(pw) == 512);
    void *own = ps ? ps->free : NULL;
    w_free(pw);
    CHECK(ps && ps->free == pw && *(void **)pw == own);
    /* a prime class of the exact power of two serves instead (64 B) */
    char *p64 = w_aligned_alloc(64, 40);
    CHECK(p64 && slab_of(p64) && slab_of(p64)->cls < slab_wf_bins && slab_of(p64)->csize == 64);
    w_free(p64);
    /* above 32 KiB, a block inside a larger class: the slab's first block
     * is aligned as it is; the next one is shifted, its slab flagged, and
     * usable counts from the aligned address */
    char *al[2];
    for (int i = 0; i < 2; i++) {
        al[i] = w_aligned_alloc(16384, 40000);
        CHECK(al[i] && ((uintptr_t)al[i] & 16383) == 0 && w_malloc_usable_size(al[i]) >= 40000);
    }
    mt_slab_wf_slab *as = slab_of(al[1]);
    CHECK(as && slab_of(al[0]) == as && (mt_load_relaxed(&as->ostate) & MT_SLAB_WF_ALIGNED));
    CHECK(as && w_malloc_usable_size(al[1]) < as->csize);
    w_free(al[1]);
    w_free(al[0]);

    /* foreign pointers are ignored, never written */
    char local[64];
    memset(local, 0x5A, sizeof local);
    w_free(local + 16);
    CHECK(w_malloc_usable_size(local) == 0 && local[16] == 0x5A && local[0] == 0x5A);

    /* calloc zero-fills, also reused dirty blocks */
    for (int round = 0; round < 2; round++) {
        unsigned char *p[64];
        size_t nonzero = 0;
        for (int i = 0; i < 64; i++) {
            p[i] = w_calloc(1, 200);
            for (size_t j = 0; p[i] && j < 200; j++)
                nonzero += p[i][j] != 0;
        }
        CHECK(nonzero == 0);
        for (int i = 0; i < 64; i++) {
            memset(p[i], 0xFF, 200);
            w_free(p[i]);
        }
    }
    CHECK(!wf_inconsistent("basic"));
}

/* ---- tllabs ---- */
static void case_tllabs(void)
{
    size_t count = 50 * wf_capacity_most(64), capacity = wf_capacity_least(64);
    void **blocks = malloc(count * sizeof *blocks);
    size_t slabs0 = slab_wf_stat().slabs;
    for (size_t i = 0; i < count; i++)
        blocks[i] = w_malloc(64);
    CHECK(slab_wf_stat().slabs >= slabs0 + 50);
    for (size_t i = 0; i < count; i++)
        w_free(blocks[i]);
    /* the current slab, at most tllabs empty ones; the others went below */
    CHECK(slab_wf_stat().slabs <= slabs0 + 1 + WF_TLLABS);
    CHECK(!wf_inconsistent("tllabs after free"));
    size_t handed = wf_handed_out();
    for (size_t i = 0; i < (1 + WF_TLLABS) * capacity; i++)
        blocks[i] = w_malloc(64);
    CHECK(wf_handed_out() == handed); /* served from the kept slabs */
    for (size_t i = 0; i < (1 + WF_TLLABS) * capacity; i++)
        w_free(blocks[i]);
    free(blocks);
    w_malloc_trim(0);
    CHECK(slab_wf_stat().slabs == 0);
    CHECK(!wf_inconsistent("tllabs after trim"));
}

/* ---- reclaim ---- */
enum { RC_SLABS = 20 };
static void **rc_blocks;
static size_t rc_count;

static void *rc_free_all(void *arg)
{
    (void)arg;
    for (size_t i = 0; i < rc_count; i++)
        w_free(rc_blocks[i]);
    return NULL;
}

/* The owner fills RC_SLABS slabs of one class, another thread frees every
 * block (remote frees), then the owner asks for other sizes: the emptied
 * slabs, sitting in the first class's lists and notification stack, must
 * serve them (reclaim), not new slabs from below. */
static void case_reclaim(void)
{
    rc_count = RC_SLABS * wf_capacity_most(64);
    rc_blocks = malloc(rc_count * sizeof *rc_blocks);
    for (size_t i = 0; i < rc_count; i++)
        CHECK((rc_blocks[i] = w_malloc(64)) != NULL);
    pthread_t t;
    CHECK(pthread_create(&t, NULL, rc_free_all, NULL) == 0);
    CHECK(pthread_join(t, NULL) == 0);
    size_t handed = wf_handed_out();
    /* all but the current slab of 64 (and one of slack) come back for 256 */
    size_t again = (RC_SLABS - 2) * wf_capacity_least(256);
    for (size_t i = 0; i < again; i++)
        CHECK((rc_blocks[i] = w_malloc(256)) != NULL);
    if (wf_handed_out() != handed)
        fprintf(stderr, "reclaim: %zu bytes more from below\n", wf_handed_out() - handed);
    CHECK(wf_handed_out() == handed);
    CHECK(!wf_inconsistent("reclaim"));
    for (size_t i = 0; i < again; i++)
        w_free(rc_blocks[i]);
    free(rc_blocks);
    w_malloc_trim(0);
    CHECK(slab_wf_stat().slabs == 0);
    CHECK(!wf_inconsistent("reclaim after trim"));
}

/* ---- random ---- */
enum { RT_THREADS = 4, RT_PHASES = 12, RT_OPS = 8000, RT_LIVE = 256, RT_SHARED = 128 };
typedef struct {
    void *p;
    uint64_t id;
} rt_block;
static _Atomic(rt_block *) rt_shared[RT_SHARED];
static pthread_barrier_t rt_barrier;
static pthread_mutex_t rt_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic(int) rt_bad, rt_inconsistent;

/* One random step on a table of live blocks; blocks travel between threads
 * through rt_shared (a heap-allocated record each, from the system malloc). */
static void rt_step(wf_rng *r, rt_block *live, size_t nlive, uint64_t *ids)
{
    rt_block *b = &live[wf_next(r) % nlive];
    size_t roll = wf_next(r) % 100;
    if (b->p && !wf_intact(b->p, b->id))
        rt_bad++;
    if (roll < 45) { /* replace */
        if (b->p)
            w_free(b->p);
        size_t size = wf_next(r) % 50 ? wf_size(r) : 0;
        size_t kind = wf_next(r) % 10;
        b->p = kind < 7   ? w_malloc(size)
               : kind < 9 ? w_calloc(1, size)
                          : w_aligned_alloc((size_t)32 << wf_range(r, 0, 7), size);
        b->id = ++*ids;
        if (!b->p) {
            rt_bad++;
            return;
        }
        wf_fill(b->p, size < sizeof(wf_stamp) ? sizeof(wf_stamp) : size, b->id); /* every block has 16 */
    } else if (roll < 70) {                                                      /* free */
        w_free(b->p);
        b->p = NULL;
    } else if (roll < 80 && b->p) { /* realloc, the stamp moves along */
        size_t size = wf_size(r);
        wf_stamp st;
        memcpy(&st, b->p, sizeof st);
        void *q = w_realloc(b->p, size);
        if (!q) {
            rt_bad++;
            return;
        }
        b->p = q;
        wf_fill(q, size, b->id);
    } else if (b->p) { /* exchange with another thread */
        rt_block *mine = malloc(sizeof *mine);
        *mine = *b;
        rt_block *theirs = atomic_exchange(&rt_shared[wf_next(r) % RT_SHARED], mine);
        b->p = NULL;
        if (theirs) {
            *b = *theirs;
            free(theirs);
        }
    }
}

static void *rt_thread(void *arg)
{
    uint64_t index = (uint64_t)(uintptr_t)arg, ids = index << 40;
    wf_rng r = {0x9E3779B97F4A7C15ull * (index + 1)};
    rt_block live[RT_LIVE] = {{0}};
    for (int phase = 0; phase < RT_PHASES; phase++) {
        for (int op = 0; op < RT_OPS; op++)
            rt_step(&r, live, RT_LIVE, &ids);
        /* quiescent: every thread waits here, each checks its own heap in turn */
        pthread_barrier_wait(&rt_barrier);
        pthread_mutex_lock(&rt_lock);
        rt_inconsistent += wf_inconsistent("random (thread)");
        pthread_mutex_unlock(&rt_lock);
        pthread_barrier_wait(&rt_barrier);
    }
    for (int i = 0; i < RT_LIVE; i++)
        if (live[i].p) {
            rt_bad += !wf_intact(live[i].p, live[i].id);
            w_free(live[i].p);
        }
    return NULL;
}

static void case_random(void)
{
    size_t base = wf_handed_out(), heaps0 = slab_wf_stat().heaps;
    /* one thread, the checker every 1000 operations */
    {
        wf_rng r = {12345};
        rt_block live[64] = {{0}};
        uint64_t ids = 0;
        int inconsistent = 0;
        for (int op = 0; op < 60000; op++) {
            rt_step(&r, live, 64, &ids);
            if (op % 1000 == 999)
                inconsistent += wf_inconsistent("random (single)");
        }
        CHECK(inconsistent == 0);
        for (int i = 0; i < 64; i++)
            w_free(live[i].p);
        for (int i = 0; i < RT_SHARED; i++) {
            rt_block *b = atomic_exchange(&rt_shared[i], NULL);
            if (b) {
                w_free(b->p);
                free(b);
            }
        }
    }
    pthread_t t[RT_THREADS];
    pthread_barrier_init(&rt_barrier, NULL, RT_THREADS);
    for (uintptr_t i = 0; i < RT_THREADS; i++)
        pthread_create(&t[i], NULL, rt_thread, (void *)i);
    for (int i = 0; i < RT_THREADS; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < RT_SHARED; i++) {
        rt_block *b = atomic_exchange(&rt_shared[i], NULL);
        if (b) {
            rt_bad += !wf_intact(b->p, b->id);
            w_free(b->p);
            free(b);
        }
    }
    CHECK(rt_bad == 0);
    CHECK(rt_inconsistent == 0);
    CHECK(!wf_inconsistent("random (end)"));
    check_all_returned("random", base, heaps0);
}

/* ---- remote ---- */
enum { RM_PROD = 4, RM_CONS = 4, RM_BLOCKS = 100000, RM_RING = 512 };
typedef struct {
    _Atomic(size_t) head, tail;
    void *slot[RM_RING];
} rm_ring;
static rm_ring rm_rings[RM_PROD][RM_CONS];
static _Atomic(int) rm_producing = RM_PROD;
static _Atomic(size_t) rm_local, rm_remote, rm_bad;

static void *rm_producer(void *arg)
{
    size_t me = (size_t)(uintptr_t)arg;
    static const size_t sizes[] = {24, 48, 100, 200, 1000, 3000};
    wf_rng r = {0xABCDEFull + me};
    for (size_t i = 0; i < RM_BLOCKS; i++) {
        size_t size = sizes[wf_next(&r) % 6];
        uint64_t id = ((uint64_t)me << 32) | i;
        void *p = w_malloc(size);
        if (!p) {
            rm_bad++;
            continue;
        }
        wf_fill(p, size, id);
        if (i % 8 == 0) { /* some stay home */
            rm_bad += !wf_intact(p, id);
            w_free(p);
            rm_local++;
            continue;
        }
        rm_ring *ring = &rm_rings[me][i % RM_CONS];
        size_t tail = mt_load_relaxed(&ring->tail);
        while (tail - mt_load_acquire(&ring->head) == RM_RING)
            sched_yield();
        ring->slot[tail % RM_RING] = p;
        mt_store_release(&ring->tail, tail + 1);
    }
    rm_producing--;
    return NULL;
}

static void *rm_consumer(void *arg)
{
    size_t me = (size_t)(uintptr_t)arg;
    for (;;) {
        int producing = rm_producing, got = 0;
        for (size_t p = 0; p < RM_PROD; p++) {
            rm_ring *ring = &rm_rings[p][me];
            size_t head = mt_load_relaxed(&ring->head);
            while (head != mt_load_acquire(&ring->tail)) {
                void *b = ring->slot[head % RM_RING];
                wf_stamp st;
                memcpy(&st, b, sizeof st);
                rm_bad += (st.id >> 32) != p || !wf_intact(b, st.id);
                w_free(b);
                rm_remote++;
                mt_store_release(&ring->head, ++head);
                got = 1;
            }
        }
        if (!got) {
            if (!producing)
                return NULL;
            sched_yield();
        }
    }
}

static void case_remote(void)
{
    size_t base = wf_handed_out(), heaps0 = slab_wf_stat().heaps;
    pthread_t t[RM_PROD + RM_CONS];
    for (uintptr_t i = 0; i < RM_CONS; i++)
        pthread_create(&t[RM_PROD + i], NULL, rm_consumer, (void *)i);
    for (uintptr_t i = 0; i < RM_PROD; i++)
        pthread_create(&t[i], NULL, rm_producer, (void *)i);
    for (int i = 0; i < RM_PROD + RM_CONS; i++)
        pthread_join(t[i], NULL);
    printf("remote: %zu blocks freed by their thread, %zu by another\n", (size_t)rm_local, (size_t)rm_remote);
    CHECK(rm_bad == 0);
    CHECK(rm_local + rm_remote == (size_t)RM_PROD * RM_BLOCKS);
    CHECK(!wf_inconsistent("remote"));
    check_all_returned("remote", base, heaps0);
}

/* ---- exit ---- */
enum { EX_WAVES = 16, EX_ALLOCATORS = 4, EX_FREERS = 2, EX_BLOCKS = 3000 };
static void *_Atomic ex_pub[EX_WAVES * EX_ALLOCATORS * EX_BLOCKS];
static _Atomic(size_t) ex_published, ex_freed, ex_bad, ex_own;
static _Atomic(int) ex_done;

static void *ex_allocator(void *arg)
{
    size_t me = (size_t)(uintptr_t)arg;
    wf_rng r = {0x5151ull + me};
    for (size_t i = 0; i < EX_BLOCKS; i++) {
        size_t size = wf_range(&r, 16, 2000);
        void *p = w_malloc(size);
        if (!p) {
            ex_bad++;
            continue;
        }
        wf_fill(p, size, ((uint64_t)me << 32) | i);
        if (i % 10 == 0) {
            w_free(p);
            ex_own++;
            continue;
        }
        ex_pub[atomic_fetch_add(&ex_published, 1)] = p;
    }
    return NULL; /* exits with most blocks still out: the heap is abandoned */
}

static void *ex_freer(void *arg)
{
    size_t me = (size_t)(uintptr_t)arg, next = me, done;
    for (;;) {
        done = ex_done;
        size_t published = ex_published;
        for (; next < published; next += EX_FREERS) {
            void *p;
            while (!(p = ex_pub[next])) /* the slot is claimed, the store follows */
                sched_yield();
            wf_stamp st;
            memcpy(&st, p, sizeof st);
            ex_bad += !wf_intact(p, st.id);
            w_free(p);
            ex_freed++;
            if (next % 64 == 0)
                sched_yield(); /* slower than the allocators: frees outlive their threads */
        }
        if (done && next >= ex_published)
            return NULL;
        sched_yield();
    }
}

static void case_exit(void)
{
    size_t base = wf_handed_out(), heaps0 = slab_wf_stat().heaps;
    pthread_t f[EX_FREERS], a[EX_ALLOCATORS];
    for (uintptr_t i = 0; i < EX_FREERS; i++)
        pthread_create(&f[i], NULL, ex_freer, (void *)i);
    for (size_t w = 0; w < EX_WAVES; w++) {
        for (uintptr_t i = 0; i < EX_ALLOCATORS; i++)
            pthread_create(&a[i], NULL, ex_allocator, (void *)(w * EX_ALLOCATORS + i));
        for (int i = 0; i < EX_ALLOCATORS; i++)
            pthread_join(a[i], NULL);
    }
    ex_done = 1;
    for (int i = 0; i < EX_FREERS; i++)
        pthread_join(f[i], NULL);
    mt_slab_wf_stat st = slab_wf_stat();
    printf("exit: %d threads, %zu heaps, %zu blocks freed after their thread left, %zu slabs before trim\n",
           EX_WAVES * EX_ALLOCATORS, st.heaps - heaps0, (size_t)ex_freed, st.slabs);
    CHECK(ex_bad == 0);
    CHECK(ex_freed + ex_own == (size_t)EX_WAVES * EX_ALLOCATORS * EX_BLOCKS);
    CHECK(st.heaps - heaps0 <= 2 * EX_ALLOCATORS); /* exited threads' heaps were adopted */
    CHECK(!wf_inconsistent("exit"));
    check_all_returned("exit", base, heaps0);
}

/* ---- twice ---- */
enum { TW_THREADS = 8, TW_ROUNDS = 3000, TW_BATCH = 32, TW_SLOTS = 64 };
#define TW_LIVE ((uint64_t)1 << 63)
static void *_Atomic tw_slots[TW_SLOTS];
static _Atomic(size_t) tw_twice, tw_corrupt, tw_handouts;

/* The second word of a live block holds its holder's tag; a block handed
 * out while live finds a tag there already. The layer writes only the
 * first word of a free block. */
static void tw_take(void *p, uint64_t tag)
{
    uint64_t prev = atomic_exchange((_Atomic(uint64_t) *)p + 1, tag);
    tw_twice += (prev & TW_LIVE) != 0;
    tw_handouts++;
}
static void tw_give(void *p)
{
    uint64_t prev = atomic_exchange((_Atomic(uint64_t) *)p + 1, 0);
    tw_corrupt += !(prev & TW_LIVE);
    w_free(p);
}

static void *tw_thread(void *arg)
{
    uint64_t me = (uint64_t)(uintptr_t)arg, seq = 0;
    wf_rng r = {0x7777ull + me};
    void *batch[TW_BATCH];
    for (int round = 0; round < TW_ROUNDS; round++) {
        size_t size = (size_t)16 << (wf_next(&r) % 4);
        for (int i = 0; i < TW_BATCH; i++) {
            batch[i] = w_malloc(size);
            tw_take(batch[i], TW_LIVE | me << 48 | ++seq);
        }
        for (int i = 0; i < TW_BATCH; i++) {
            if (i & 1) {
                tw_give(batch[i]);
            } else { /* through a slot to whichever thread comes next */
                void *theirs = atomic_exchange(&tw_slots[wf_next(&r) % TW_SLOTS], batch[i]);
                if (theirs)
                    tw_give(theirs);
            }
        }
    }
    return NULL;
}

static void case_twice(void)
{
    size_t base = wf_handed_out(), heaps0 = slab_wf_stat().heaps;
    pthread_t t[TW_THREADS];
    for (uintptr_t i = 0; i < TW_THREADS; i++)
        pthread_create(&t[i], NULL, tw_thread, (void *)i);
    for (int i = 0; i < TW_THREADS; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < TW_SLOTS; i++) {
        void *p = atomic_exchange(&tw_slots[i], NULL);
        if (p)
            tw_give(p);
    }
    printf("twice: %zu hand-outs, %zu while live, %zu corrupted\n", (size_t)tw_handouts, (size_t)tw_twice,
           (size_t)tw_corrupt);
    CHECK(tw_twice == 0);
    CHECK(tw_corrupt == 0);
    CHECK(tw_handouts == (size_t)TW_THREADS * TW_ROUNDS * TW_BATCH);
    check_all_returned("twice", base, heaps0);
}

/* ---- own ---- */
/* The owner's frees go on the freed block's own slab's list, whether the
 * slab is the class's current one or a partial one; alloc takes the
 * current slab's list when the class's bin runs dry, and a partial slab's
 * when it becomes current. The checker walks both kinds of list. */
static void case_own(void)
{
    size_t n;
    void **a = wf_fill_slab(200, &n); /* slab A retired full, B current */
    mt_slab_wf_slab *A = slab_of(a[0]), *B = slab_of(a[n - 1]);
    size_t c = A->cls, handed = wf_handed_out(), freed = 0;
    CHECK(slab_wf_tl.cur[c] == B && mt_slab_wf_state(B) == MT_SLAB_WF_LISTED);

    /* (1) into a slab that is not current: the first lists it, the rest push */
    for (size_t i = 0; i + 1 < n; i += 2, freed++)
        w_free(a[i]);
    CHECK(mt_slab_wf_state(A) == MT_SLAB_WF_LISTED && A->free == a[2 * (freed - 1)]);
    CHECK(A->used == (uint32_t)(n - 1 - freed));
    CHECK(!wf_inconsistent("own: partial"));
    void *link = *(void **)A->free;
    *(void **)A->free = a[n - 1]; /* a link into another slab */
    CHECK(wf_inconsistent("own: foreign link, expected") == 1);
    *(void **)A->free = link;
    CHECK(!wf_inconsistent("own: repaired"));

    /* (2) into the current slab: onto its own list, the bin is left alone */
    void *x = w_malloc(200);
    CHECK(slab_of(x) == B);
    void *bin = slab_wf_tl.free[c];
    w_free(x);
    CHECK(B->free == x && slab_wf_tl.free[c] == bin);
    *(void **)x = x; /* listed twice */
    CHECK(wf_inconsistent("own: duplicate, expected") == 1);
    *(void **)x = NULL;
    CHECK(!wf_inconsistent("own: repaired"));

    /* (3) the bin first, then x (B's own list), then B's untouched blocks,
     * then A's list: every block A lost comes back, nothing from below */
    void **got = calloc(B->capacity + n + 1, sizeof *got);
    size_t m = 0, back = 0, x_at = SIZE_MAX;
    while (back < freed && m < B->capacity + n) {
        void *p = got[m] = w_malloc(200);
        if (p == x)
            x_at = m;
        back += slab_of(p) == A;
        m++;
    }
    CHECK(back == freed && wf_handed_out() == handed);
    CHECK(bin ? got[0] == bin && x_at > 0 : x_at == 0);
    CHECK(x_at != SIZE_MAX && slab_wf_tl.cur[c] == A);
    CHECK(!wf_inconsistent("own: reused"));
    for (size_t i = 0; i < m; i++)
        w_free(got[i]);
    for (size_t i = 1; i + 1 < n; i += 2)
        w_free(a[i]);
    w_free(a[n - 1]);
    free(got);
    free(a);
    CHECK(!wf_inconsistent("own: all freed"));
    w_malloc_trim(0);
    CHECK(slab_wf_stat().slabs == 0);
}

/* ---- collect ---- */
/* The owner allocates rounds of one class and frees half of each itself
 * (onto the current slab's own list) while another thread frees the other
 * half (onto the remote stack): refills take the own list and splice the
 * remote one in any interleaving. A block handed out while live finds the
 * tag of its holder in its second word (tw_take). */
enum { CL_ROUNDS = 20000, CL_BATCH = 32, CL_RING = 1024 };
static void *_Atomic cl_ring[CL_RING];
static _Atomic(size_t) cl_head, cl_tail;
static _Atomic(int) cl_done;

static void *cl_remote(void *arg)
{
    (void)arg;
    for (;;) {
        size_t t = atomic_load(&cl_tail);
        if (t == atomic_load(&cl_head)) {
            if (atomic_load(&cl_done) && t == atomic_load(&cl_head))
                return NULL;
            sched_yield();
            continue;
        }
        void *p = atomic_exchange(&cl_ring[t % CL_RING], NULL);
        atomic_store(&cl_tail, t + 1);
        tw_give(p);
    }
}

static void case_collect(void)
{
    size_t base = wf_handed_out(), heaps0 = slab_wf_stat().heaps;
    pthread_t t;
    CHECK(pthread_create(&t, NULL, cl_remote, NULL) == 0);
    void *batch[CL_BATCH];
    uint64_t seq = 0;
    for (int round = 0; round < CL_ROUNDS; round++) {
        for (int i = 0; i < CL_BATCH; i++) {
            batch[i] = w_malloc(48);
            tw_take(batch[i], TW_LIVE | ++seq);
        }
        for (int i = 0; i < CL_BATCH; i++) {
            size_t h = atomic_load(&cl_head);
            if ((i & 1) && h - atomic_load(&cl_tail) < CL_RING) {
                atomic_store(&cl_ring[h % CL_RING], batch[i]);
                atomic_store(&cl_head, h + 1);
            } else {
                tw_give(batch[i]);
            }
        }
    }
    atomic_store(&cl_done, 1);
    CHECK(pthread_join(t, NULL) == 0);
    printf("collect: %zu hand-outs, %zu while live, %zu corrupted\n", (size_t)tw_handouts, (size_t)tw_twice,
           (size_t)tw_corrupt);
    CHECK(tw_twice == 0 && tw_corrupt == 0);
    CHECK(tw_handouts == (size_t)CL_ROUNDS * CL_BATCH);
    check_all_returned("collect", base, heaps0);
}

/* ---- pending ---- */
/* A remote free of the calling thread's slab, done by hand as
 * slab_wf_remote_free does it; `stuck` stops it between its XCHG and its
 * link store (finish_remote completes it). */
static void remote_by_hand(mt_slab_wf_slab *s, void *p, bool stuck)
{
    atomic_store(mt_slab_wf_link(p), MT_SLAB_WF_PENDING);
    void *old = atomic_exchange(&s->rhead, p);
    CHECK(old != MT_SLAB_WF_MARK);
    if (!stuck) {
        atomic_store(mt_slab_wf_link(p), old);
        atomic_fetch_add(&s->remote, 1);
    }
}

static void finish_remote(mt_slab_wf_slab *s, void *p, void *old)
{
    atomic_store(mt_slab_wf_link(p), old);
    atomic_fetch_add(&s->remote, 1);
}

/* The bin takes a remote chain whole and pops it without walking it first:
 * a block whose link is still PENDING in the middle of the chain is never
 * handed out while the free is unfinished, the blocks before it are, and
 * once the free finishes it and the blocks behind it come back; the
 * slab's count comes out right (every block returned, the slab released). */
static void case_pending(void)
{
    size_t base = wf_handed_out(), heaps0 = slab_wf_stat().heaps;
    void *x = w_malloc(48), *y = w_malloc(48), *z = w_malloc(48);
    mt_slab_wf_slab *s = slab_of(x);
    CHECK(s && slab_of(y) == s && slab_of(z) == s && slab_wf_tl.cur[s->cls] == s);
    remote_by_hand(s, x, false); /* rhead: x */
    remote_by_hand(s, y, true);  /* rhead: y (PENDING) -> (x, not yet linked) */
    remote_by_hand(s, z, false); /* rhead: z -> y */
    uint32_t cap = s->capacity;
    void **got = calloc(2 * (size_t)cap, sizeof *got);
    size_t n = 0;
    bool saw_z = false, saw_y = false, saw_x = false;
    for (; n < cap && !saw_z; n++) { /* the bin's carved blocks run dry, then the splice */
        got[n] = w_malloc(48);
        saw_z |= got[n] == z;
        saw_y |= got[n] == y;
        saw_x |= got[n] == x;
    }
    CHECK(saw_z && !saw_y && !saw_x);
    CHECK(slab_wf_tl.free[s->cls] == y);  /* the bin: y, its link not read yet */
    for (size_t i = 0; i < 8; i++, n++) { /* carved blocks, never y while its free is unfinished */
        got[n] = w_malloc(48);
        saw_y |= got[n] == y;
        saw_x |= got[n] == x;
    }
    CHECK(!saw_y && !saw_x);
    CHECK(s->rchain == y); /* the pop that met the PENDING link left y there */
    finish_remote(s, y, x);
    for (; n < 2 * (size_t)cap && !(saw_y && saw_x); n++) {
        got[n] = w_malloc(48);
        saw_y |= got[n] == y;
        saw_x |= got[n] == x;
    }
    CHECK(saw_y && saw_x);
    CHECK(!wf_inconsistent("pending"));
    for (size_t i = 0; i < n; i++)
        w_free(got[i]);
    free(got);
    check_all_returned("pending", base, heaps0);
}

/* ---- late ---- */
static pthread_key_t late_key;
static void *_Atomic late_block;
static _Atomic(int) late_ran;

static void late_destructor(void *arg)
{
    (void)arg; /* runs after slab_wf's thread_exit: its key is older */
    void *p = w_malloc(100), *q = w_malloc(5000);
    if (p && q) {
        wf_fill(p, 100, 4242);
        wf_fill(q, 5000, 4343);
        late_ran = wf_intact(q, 4343);
        w_free(q);
    }
    late_block = p;
}

static void *late_thread(void *arg)
{
    (void)arg;
    void *p = w_malloc(64);
    w_free(p);
    pthread_setspecific(late_key, (void *)1);
    return NULL;
}

static void case_late(void)
{
    size_t base = wf_handed_out(), heaps0 = slab_wf_stat().heaps;
    pthread_key_create(&late_key, late_destructor);
    pthread_t t;
    pthread_create(&t, NULL, late_thread, NULL);
    pthread_join(t, NULL);
    void *p = late_block;
    CHECK(late_ran == 1);
    CHECK(p && slab_of(p) && wf_intact(p, 4242));
    w_free(p);
    CHECK(slab_wf_stat().heaps - heaps0 == 1); /* the borrowed heap was the exited thread's */
    check_all_returned("late", base, heaps0);
}

/* ---- repair ---- */
static void case_repair(void)
{
    size_t base = wf_handed_out(), heaps0 = slab_wf_stat().heaps;
    /* (1) a remote free stopped between its XCHG and its link store */
    void *keep = w_malloc(48), *p = w_malloc(48);
    mt_slab_wf_slab *s = slab_of(p);
    CHECK(s && mt_slab_wf_state(s) == MT_SLAB_WF_LISTED);
    atomic_store(mt_slab_wf_link(p), MT_SLAB_WF_PENDING);
    CHECK(atomic_exchange(&s->rhead, p) == NULL);
    CHECK(wf_inconsistent("repair (1), expected") == 1); /* the checker sees it */
    slab_wf_fork_repair();
    CHECK(!wf_inconsistent("repair (1)"));
    int found = 0; /* the block comes back */
    void **got = malloc(s->capacity * sizeof *got);
    for (uint32_t i = 0; i < s->capacity && !found; i++)
        found = (got[i] = w_malloc(48)) == p;
    for (uint32_t i = 0; i < s->capacity && got[i]; i++) {
        w_free(got[i]);
        if (got[i] == p)
            break;
    }
    free(got);
    CHECK(found);
    w_free(keep);

    /* (2) a notification stopped before its link store: a full slab */
    size_t n;
    void **blocks = wf_fill_slab(300, &n);
    mt_slab_wf_slab *full = slab_of(blocks[0]);
    CHECK(mt_load_relaxed(&full->rhead) == MT_SLAB_WF_MARK);
    void *q = blocks[3];
    slab_wf_heap *h = (slab_wf_heap *)(mt_load_relaxed(&full->ostate) & ~(uintptr_t)MT_SLAB_WF_TAGS);
    atomic_store(mt_slab_wf_link(q), MT_SLAB_WF_PENDING);
    CHECK(atomic_exchange(&full->rhead, q) == MT_SLAB_WF_MARK);
    atomic_store(mt_slab_wf_link(q), NULL);
    atomic_store(&full->nnext, (mt_slab_wf_slab *)MT_SLAB_WF_PENDING);
    atomic_exchange(&h->notify[full->cls], full);
    CHECK(wf_inconsistent("repair (2), expected") == 1);
    slab_wf_fork_repair();
    CHECK(!wf_inconsistent("repair (2)"));
    blocks[3] = NULL;
    for (size_t i = 0; i < n; i++)
        w_free(blocks[i]);
    free(blocks);
    CHECK(!wf_inconsistent("repair (2) freed"));
    check_all_returned("repair", base, heaps0);
}

/* ---- fork ---- */
enum { FK_THREADS = 4, FK_FROZEN = 256, FK_FORKS = 40 };
static void *fk_frozen[FK_THREADS + 1][FK_FROZEN]; /* the last row: the forking thread's */
static pthread_barrier_t fk_barrier;
static _Atomic(int) fk_stop;

static void *fk_thread(void *arg)
{
    size_t me = (size_t)(uintptr_t)arg;
    wf_rng r = {0xF0F0ull + me};
    for (int i = 0; i < FK_FROZEN; i++) {
        size_t size = wf_size(&r);
        fk_frozen[me][i] = w_malloc(size);
        wf_fill(fk_frozen[me][i], size, me << 16 | (uint64_t)i);
    }
    pthread_barrier_wait(&fk_barrier);
    void *churn[64] = {0};
    while (!fk_stop) { /* keep the allocator busy while the main thread forks */
        size_t i = wf_next(&r) % 64;
        w_free(churn[i]);
        churn[i] = w_malloc(wf_size(&r));
    }
    for (int i = 0; i < 64; i++)
        w_free(churn[i]);
    return NULL;
}

/* In the child: a new thread (the only one that could adopt a heap) frees
 * the parent-era blocks, mostly of the vanished threads' slabs, allocates,
 * and checks its heap; then the forking thread checks what is left. */
static void *fk_child_thread(void *arg)
{
    (void)arg;
    int bad = 0;
    for (int t = 0; t <= FK_THREADS; t++)
        for (int i = 0; i < FK_FROZEN; i++) {
            bad += !wf_intact(fk_frozen[t][i], (uint64_t)t << 16 | (uint64_t)i);
            w_free(fk_frozen[t][i]);
        }
    bad += wf_inconsistent("fork child, frees");
    wf_rng r = {(uint64_t)getpid()};
    void *live[256] = {0};
    for (int i = 0; i < 20000; i++) {
        size_t k = wf_next(&r) % 256, size = wf_size(&r);
        if (live[k])
            bad += !wf_intact(live[k], (uint64_t)k);
        w_free(live[k]);
        live[k] = w_malloc(size);
        if (!live[k])
            return (void *)1;
        wf_fill(live[k], size, (uint64_t)k);
    }
    for (int k = 0; k < 256; k++)
        w_free(live[k]);
    w_malloc_trim(0);
    bad += wf_inconsistent("fork child, thread");
    return (void *)(uintptr_t)(bad != 0);
}

static int fk_child(void)
{
    pthread_t t;
    void *bad = (void *)1;
    if (pthread_create(&t, NULL, fk_child_thread, NULL) || pthread_join(t, &bad))
        return 1;
    void *p = w_malloc(100);
    w_free(p);
    return bad != NULL || wf_inconsistent("fork child");
}

static void case_fork(void)
{
    pthread_t t[FK_THREADS];
    pthread_barrier_init(&fk_barrier, NULL, FK_THREADS + 1);
    for (uintptr_t i = 0; i < FK_THREADS; i++)
        pthread_create(&t[i], NULL, fk_thread, (void *)i);
    wf_rng r = {0xF0F0ull + FK_THREADS};
    for (int i = 0; i < FK_FROZEN; i++) { /* the forking thread has a heap too */
        size_t size = wf_size(&r);
        fk_frozen[FK_THREADS][i] = w_malloc(size);
        wf_fill(fk_frozen[FK_THREADS][i], size, (uint64_t)FK_THREADS << 16 | (uint64_t)i);
    }
    pthread_barrier_wait(&fk_barrier);
    int failed = 0;
    void *churn[64] = {0};
    for (int k = 0; k < FK_FORKS; k++) {
        for (int i = 0; i < 500; i++) {
            size_t j = wf_next(&r) % 64;
            w_free(churn[j]);
            churn[j] = w_malloc(wf_size(&r));
        }
        pid_t pid = fork();
        if (pid == 0) {
            alarm(10); /* alarms do not cross fork: a hung child ends itself */
            _exit(fk_child());
        }
        int status = -1, waited = 0;
        while (waitpid(pid, &status, WNOHANG) == 0 && waited < 1000) {
            wf_sleep_ms(10);
            waited++;
        }
        if (waited >= 1000) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
        }
        failed += !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    fk_stop = 1;
    for (int i = 0; i < FK_THREADS; i++)
        pthread_join(t[i], NULL);
    CHECK(failed == 0);
    for (int i = 0; i < 64; i++)
        w_free(churn[i]);
    for (int i = 0; i <= FK_THREADS; i++)
        for (int j = 0; j < FK_FROZEN; j++) {
            CHECK(wf_intact(fk_frozen[i][j], (uint64_t)i << 16 | (uint64_t)j));
            w_free(fk_frozen[i][j]);
        }
    CHECK(!wf_inconsistent("fork parent"));
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        void (*run)(void);
    } cases[] = {
        {"basic", case_basic},     {"tllabs", case_tllabs}, {"reclaim", case_reclaim},
        {"random", case_random},   {"remote", case_remote}, {"exit", case_exit},
        {"twice", case_twice},     {"late", case_late},     {"repair", case_repair},
        {"fork", case_fork},       {"own", case_own},       {"collect", case_collect},
        {"pending", case_pending},
    };
    alarm(120); /* a hang is a failure */
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (argc > 1 && !strcmp(argv[1], cases[i].name)) {
            cases[i].run();
            return check_report(argv[1]);
        }
    fprintf(stderr, "usage: %s CASE\n", argv[0]);
    return 2;
}

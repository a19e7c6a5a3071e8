/* link_check (layers/safety/link_check.h) in each layer that has it, alone
 * or with the trunk below (LINK_LAYER picks the composition, prefix t_):
 *   1 slab_wf   2 segfit_lf   3 slab_lk   4 thread_cache over segfit_lk
 *   5 tlsf_glk  6 segfit_lk   7 buddy_glk (16-byte smallest blocks, every size)
 *   8 thread_cache over slab_lk (whose batches follow the cache's links)
 * Two blocks of a run are freed and the newer one's link (its first word)
 * is forged: a wild address, then a global array, then a wild address that
 * the invariant checker (check) meets first: it may report, never crash.
 * The next allocations must report it once (corrupted-metadata, the
 * layer's name, the block), never hand out the forged address, and the
 * allocator must go on working.
 * Paths other than a pop, first on a fresh heap (docs/safety.md lists them
 * per layer): tlsf_glk's growth meeting a damaged free block at the heap's
 * end, its free meeting a damaged neighbour on either side, its purge walk
 * and a realloc growing into a damaged successor; buddy_glk's purge walk, a
 * free merging with a damaged buddy and a realloc growing into one;
 * segfit_lf's and segfit_lk's purge walks; slab_lk's pop in a full slab
 * (no block past the slab's end after the cut) and its batch refill;
 * thread_cache's flush at purge and at thread exit; slab_wf's bin walk at
 * purge and at thread exit, its splice of remote frees and its fork child's
 * repair walk. */
#include <mortise/mortise.h>

/* err_handle=callback, link_check=1: set before each layer's header (its
 * end clears its slots) */
#if LINK_LAYER == 1
#include <mortise/os/mmap_heap.h>
#define MT_ERR_HANDLE callback
#define MT_LINK_CHECK 1
#include <mortise/layers/slab_wf.h>
#define LINK_CHAIN mmap_heap, slab_wf
#define LINK_LAYERS "slab_wf"
#elif LINK_LAYER == 2
#include <mortise/os/mmap_heap.h>
#define MT_ERR_HANDLE callback
#define MT_LINK_CHECK 1
#include <mortise/layers/segfit_lf.h>
#define LINK_CHAIN mmap_heap, segfit_lf
#define LINK_LAYERS "segfit_lf"
#elif LINK_LAYER == 3
#include <mortise/os/mmap_heap.h>
#define MT_ERR_HANDLE callback
#define MT_LINK_CHECK 1
#include <mortise/layers/slab_lk.h>
#define LINK_CHAIN mmap_heap, slab_lk
#define LINK_LAYERS "slab_lk"
#elif LINK_LAYER == 4
#include <mortise/os/mmap_heap.h>
#define MT_ERR_HANDLE callback
#define MT_LINK_CHECK 1
#include <mortise/layers/segfit_lk.h>
#define MT_ERR_HANDLE callback
#define MT_LINK_CHECK 1
#include <mortise/layers/thread_cache.h>
#define LINK_CHAIN mmap_heap, segfit_lk, thread_cache
#define LINK_LAYERS "thread_cache segfit_lk"
#elif LINK_LAYER == 5
#include <mortise/os/brk_heap.h>
#define MT_SYNC spinlock
#define MT_ERR_HANDLE callback
#define MT_LINK_CHECK 1
#include <mortise/layers/tlsf_glk.h>
#define LINK_CHAIN brk_heap, tlsf_glk
#define LINK_LAYERS "tlsf_glk"
#elif LINK_LAYER == 6
#include <mortise/os/mmap_heap.h>
#define MT_ERR_HANDLE callback
#define MT_LINK_CHECK 1
#include <mortise/layers/segfit_lk.h>
#define LINK_CHAIN mmap_heap, segfit_lk
#define LINK_LAYERS "segfit_lk"
#elif LINK_LAYER == 7
#include <mortise/os/mmap_heap.h>
#define MT_SIZE_HANDLE 0, SIZE_MAX
#define MT_BUDDY_MIN_SHIFT 4
#define MT_ERR_HANDLE callback
#define MT_LINK_CHECK 1
#include <mortise/layers/buddy_glk.h>
#define LINK_CHAIN mmap_heap, buddy_glk
#define LINK_LAYERS "buddy_glk"
#elif LINK_LAYER == 8
#include <mortise/os/mmap_heap.h>
#define MT_ERR_HANDLE callback
#define MT_LINK_CHECK 1
#include <mortise/layers/slab_lk.h>
#define MT_ERR_HANDLE callback
#define MT_LINK_CHECK 1
#include <mortise/layers/thread_cache.h>
#define LINK_CHAIN mmap_heap, slab_lk, thread_cache
#define LINK_LAYERS "thread_cache slab_lk"
#else
#error "LINK_LAYER: 1 to 8"
#endif
#define MT_PREFIX t_
#include <mortise/sockets/custom_socket.h>
#define LINK_COMPOSE(...) MT_COMPOSE(__VA_ARGS__) /* expands LINK_CHAIN first */
LINK_COMPOSE(LINK_CHAIN, custom_socket)

#include "../../common/check.h"
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define WILD ((void *)(uintptr_t)0x4141414141414140ull)

static int reports;
static mortise_error last;

static void on_bug(const mortise_error *e, void *arg)
{
    (void)arg;
    reports++;
    last = *e;
}

static _Alignas(64) unsigned char forged_target[4096];

#if LINK_LAYER == 1
static size_t drain_bin(size_t size, void **held, int max, int *n);
#endif

/* Free blocks[0, n) but the two a case damaged or still holds. */
MT_UNUSED static void free_but(void **blocks, int n, const void *x, const void *y)
{
    for (int i = 0; i < n; i++)
        if (blocks[i] != x && blocks[i] != y)
            t_free(blocks[i]);
}

/* Free blocks 3 and 5 of a run of 8, forge block 5's link, allocate: as many
 * blocks as a layer may hand out before it reuses freed ones (slab_wf takes
 * them once its bin of up to 16 carved blocks has run dry). */
static void forged_link(void *forged, const char *what, bool check_first)
{
    enum { N = 8, M = 256, SIZE = 48 };
    void *run[N], *got[M];
#if LINK_LAYER == 1 /* the run from the current slab, whose list the bin takes next */
    static void *held[4096];
    int n_held;
    drain_bin(SIZE, held, 4096, &n_held);
#endif
    for (int i = 0; i < N; i++)
        run[i] = t_malloc(SIZE);
    t_free(run[3]);
    t_free(run[5]);
    /* buddy_glk's first word is the back link, which check compares: its
     * walk follows the second one */
    size_t word = check_first && LINK_LAYER == 7 ? 1 : 0;
    memcpy((void **)run[5] + word, &forged, sizeof forged);
    reports = 0;
    if (check_first) {
        const char *why = t_check();
        CHECK_MSG(why != NULL && reports == 0, "%s: check answered %s, %d reports", what, why ? why : "NULL",
                  reports);
    }
    for (int i = 0; i < M; i++) {
        got[i] = t_malloc(SIZE);
        CHECK_MSG(got[i] != NULL && got[i] != forged && got[i] != (void *)forged_target, "%s: block %d", what,
                  i);
    }
    CHECK_MSG(reports == 1, "%s: %d reports, expected one", what, reports);
    CHECK_MSG(last.kind == MORTISE_BUG_CORRUPTED_METADATA && strstr(LINK_LAYERS, last.layer) &&
                  (uintptr_t)run[5] - (uintptr_t)last.ptr <= 32,
              "%s: report %s by %s at %p (block %p)", what, mt_bug_class_name(last.kind), last.layer,
              last.ptr, run[5]);
    for (int i = 0; i < M; i++)
        t_free(got[i]);
    free_but(run, N, run[3], run[5]);
#if LINK_LAYER == 1
    for (int i = 0; i < n_held; i++)
        t_free(held[i]);
#endif
}

/* The report expected of a path: exactly one since `reports` was zeroed,
 * corrupted-metadata by one of the layers at `block`, in operation `op`
 * (NULL: any). */
MT_UNUSED static void expect_one(void *block, const char *op, const char *what)
{
    CHECK_MSG(reports == 1 && last.kind == MORTISE_BUG_CORRUPTED_METADATA &&
                  strstr(LINK_LAYERS, last.layer) && last.ptr == block &&
                  (!op || !strcmp(last.operation, op)),
              "%s: %d reports, the last %s by %s at %p in %s (block %p, %s)", what, reports,
              mt_bug_class_name(last.kind), last.layer, last.ptr, last.operation, block, op ? op : "any");
}

/* The block a thread damaged before its exit. */
MT_UNUSED static void *damaged;

/* Run fn in a thread of its own (its exit is the path under test). */
MT_UNUSED static void in_thread(void *(*fn)(void *))
{
    pthread_t t;
    CHECK(pthread_create(&t, NULL, fn, NULL) == 0);
    CHECK(pthread_join(t, NULL) == 0);
}

#if LINK_LAYER == 2 || LINK_LAYER == 6 || LINK_LAYER == 7
/* purge's walk over a class's free blocks (segfit_lf, segfit_lk: it counts
 * them per span) or a level's list (buddy_glk, 8 KiB blocks: their pages go
 * back to the OS) meets a forged link (word `word` of the block: buddy_glk's
 * next is the second): reported once, not followed. */
static void purge_walk(size_t size, size_t word)
{
    enum { N = 8 };
    void *x[N];
    for (int i = 0; i < N; i++)
        x[i] = t_malloc(size);
    t_free(x[1]);
    t_free(x[3]); /* the list: x[3], x[1] (buddy_glk: their buddies are in use) */
    ((void **)x[3])[word] = WILD;
    reports = 0;
    t_malloc_trim(0);
    expect_one(x[3], "purge", "purge walk");
    for (int i = 0; i < 1000; i++)
        t_free(t_malloc(size));
    CHECK_MSG(reports == 1, "purge walk: %d reports after", reports);
    free_but(x, N, x[1], x[3]);
}
#endif

#if LINK_LAYER == 3 || LINK_LAYER == 8
static slab_lk_slab *slab_of(void *p)
{
    return (slab_lk_slab *)mt_payload_ptr(mt_entry_payload(mt_pagemap_get(p)));
}
#endif

#if LINK_LAYER == 3
/* slab_lk: a forged link found in a full slab's list. The blocks after it
 * leak; the slab must count them in use, or it carves past its last block
 * (into its record) once its list is cut. */

static void full_slab(void)
{
    enum { SIZE = 3000, MAX = 64 };
    void *held[MAX], *got[2 * MAX];
    int n = 0;
    held[n++] = t_malloc(SIZE);
    slab_lk_slab *s = slab_of(held[0]);
    while (s->inuse < s->capacity && n < MAX)
        held[n++] = t_malloc(SIZE);
    CHECK_MSG(s->inuse == s->capacity && n >= 6, "full slab: %d blocks, slab of %u", n,
              (unsigned)s->capacity);
    t_free(held[2]);
    t_free(held[4]); /* the list: held[4], held[2] */
    *(void **)held[4] = WILD;
    reports = 0;
    for (int i = 0; i < 2 * MAX; i++) {
        got[i] = t_malloc(SIZE);
        slab_lk_slab *g = got[i] ? slab_of(got[i]) : NULL;
        CHECK_MSG(g && (uintptr_t)got[i] >= (uintptr_t)g->base &&
                      (uintptr_t)got[i] < (uintptr_t)g->base + g->used &&
                      ((uintptr_t)got[i] - (uintptr_t)g->base) % g->csize == 0 && got[i] != held[2],
                  "full slab: block %d at %p is not a block of its slab (base %p, %u bytes of blocks)", i,
                  got[i], g ? (void *)g->base : NULL, g ? (unsigned)g->used : 0);
    }
    expect_one(held[4], "alloc", "full slab");
    for (int i = 0; i < 2 * MAX; i++)
        t_free(got[i]);
    free_but(held, n, held[2], held[4]);
}
#endif

#if LINK_LAYER == 4 || LINK_LAYER == 8
/* thread_cache: a flush (purge, thread exit) meets a forged link third in
 * a class's list: reported once, not followed, by the cache or by the
 * batch free of the trunk below. */
static void *cache_flush(void *at_exit)
{
    enum { N = 8, SIZE = 48 };
    void *x[N];
    for (int i = 0; i < N; i++)
        x[i] = t_malloc(SIZE);
    for (int i = 0; i < N; i++)
        t_free(x[i]); /* the list: x[7], x[6], x[5], ... */
    *(void **)x[5] = WILD;
    damaged = x[5];
    reports = 0;
    if (!at_exit) {
        t_malloc_trim(0);
        expect_one(x[5], NULL, "flush at purge");
    }
    return NULL;
}
static void *cache_flush_exit(void *arg)
{
    (void)arg;
    return cache_flush((void *)1);
}
#endif

#if LINK_LAYER == 4 || LINK_LAYER == 8
/* thread_cache: a full list sheds its newer half into a hand-off slot; a
 * miss takes the chain as its list without walking it, so a forged link
 * second in that chain is met by the pop that reaches it: reported once,
 * not followed. */
enum { HANDOFF_MAX = 1 << 16 };

/* Allocate n blocks of size into held, then free them in order until the
 * class's list is full (no room left); returns how many were freed. */
static int fill_list(size_t size, void **held, int n)
{
    size_t c = thread_cache_class_index(size);
    for (int i = 0; i < n; i++)
        held[i] = t_malloc(size);
    int k = 0;
    while (k < n && thread_cache_tl.room[c])
        t_free(held[k++]);
    return k;
}

static void handoff_take(void)
{
    enum { SIZE = 48, MAX = HANDOFF_MAX };
    static void *held[MAX];
    size_t c = thread_cache_class_index(SIZE);
    int n = MAX / 2, k = fill_list(SIZE, held, n);
    CHECK_MSG(k < n && !thread_cache_handoff[c][0], "hand-off: %d frees did not fill the list", k);
    t_free(held[k++]); /* the list is full: its newer half goes to slot 0 */
    void *chain = thread_cache_handoff[c][0], *second = chain ? *(void **)chain : NULL;
    CHECK_MSG(second, "hand-off: no chain of two in slot 0");
    if (!second)
        return;
    *(void **)second = WILD;
    reports = 0;
    static void *got[MAX];
    int g = 0;
    while (g < MAX && thread_cache_handoff[c][0])
        got[g++] = t_malloc(SIZE); /* the list runs dry, then a miss takes the chain */
    for (int pops = 0; pops < 2 && g < MAX; pops++)
        got[g++] = t_malloc(SIZE); /* the chain's first block, then the pop that meets the link */
    expect_one(second, NULL, "hand-off");
    for (int i = 0; i < g; i++)
        t_free(got[i]);
    for (int i = k; i < n; i++)
        t_free(held[i]);
}

/* thread_cache: the free that finds its list full cuts the newer half off
 * for a hand-off slot, walking the list from its head; a forged link second
 * in the list is met by that walk: reported once, not followed. */
static void handoff_cut(void)
{
    enum { SIZE = 80 };
    static void *held[HANDOFF_MAX];
    size_t c = thread_cache_class_index(SIZE);
    int n = HANDOFF_MAX / 2, k = fill_list(SIZE, held, n);
    CHECK_MSG(k >= 2 && k < n && !thread_cache_handoff[c][0], "hand-off cut: %d frees did not fill the list",
              k);
    if (k < 2 || k >= n)
        return;
    void *second = held[k - 2]; /* the list: held[k - 1] -> held[k - 2] -> ... */
    CHECK_MSG(thread_cache_tl.head[c] == held[k - 1] && *(void **)held[k - 1] == second,
              "hand-off cut: the list does not start with the last two frees");
    *(void **)second = WILD;
    reports = 0;
    t_free(held[k++]); /* the list is full: the walk that cuts its newer half meets the link */
    expect_one(second, NULL, "hand-off cut");
    void *again[64];
    for (int i = 0; i < 64; i++) /* the cache goes on serving the class */
        again[i] = t_malloc(SIZE);
    for (int i = 0; i < 64; i++)
        t_free(again[i]);
    for (int i = k; i < n; i++)
        t_free(held[i]);
}
#endif

#if LINK_LAYER == 4 || LINK_LAYER == 8
/* thread_cache: an aligned request's hit (the head of the class that is a
 * multiple of the alignment) meets a forged link: reported once. */
static void aligned_hit(void)
{
    enum { SIZE = 64, N = 64 };
    void *x[N], *y = NULL, *z = NULL;
    for (int i = 0; i < N; i++) {
        x[i] = t_malloc(SIZE);
        if ((uintptr_t)x[i] & (SIZE - 1))
            continue;
        if (!y)
            y = x[i];
        else if (!z)
            z = x[i];
    }
    CHECK_MSG(y && z, "aligned hit: fewer than two 64-aligned blocks");
    if (!y || !z)
        return;
    t_free(z);
    t_free(y); /* the list: y, z */
    *(void **)y = WILD;
    reports = 0;
    void *p = t_aligned_alloc(SIZE, SIZE);
    CHECK_MSG(p == y, "aligned hit: %p, not the list's head %p", p, y);
    expect_one(y, NULL, "aligned hit");
    t_free(p);
    free_but(x, N, y, z);
}
#endif

#if LINK_LAYER == 8
/* slab_lk under thread_cache: a refill (alloc_batch) meets a forged link
 * second in the slab's own list, past the block the refill pops first (the
 * batch's loop): reported once, the blocks after it never handed out. */
static void batch_refill(void)
{
    enum { N = 20, SIZE = 96 };
    void *x[N];
    for (int i = 0; i < N; i++)
        x[i] = t_malloc(SIZE);
    for (int i = 1; i < N; i++)
        t_free(x[i]);
    t_malloc_trim(0); /* the cache's blocks go back to slab_lk; x[0] keeps the slab */
    slab_lk_slab *s = slab_of(x[0]);
    void *second = s->free ? *(void **)s->free : NULL;
    CHECK_MSG(second, "batch refill: fewer than two blocks in the slab's list");
    if (!second)
        return;
    *(void **)second = WILD;
    reports = 0;
    void *got[2 * N];
    for (int i = 0; i < 2 * N; i++) {
        got[i] = t_malloc(SIZE);
        CHECK_MSG(got[i] && got[i] != WILD, "batch refill: block %d", i);
    }
    expect_one(second, "alloc", "batch refill");
    for (int i = 0; i < 2 * N; i++)
        t_free(got[i]);
    t_free(x[0]);
}
#endif

#if LINK_LAYER == 1
/* slab_wf, white box: the calling thread's current slab of `size` with an
 * empty bin and an empty own list (blocks held until then go to *held). */
static size_t drain_bin(size_t size, void **held, int max, int *n)
{
    size_t c = slab_wf_class_index(size);
    *n = 0;
    while (*n < max && (slab_wf_tl.free[c] || !slab_wf_tl.cur[c] || slab_wf_tl.cur[c]->free))
        held[(*n)++] = t_malloc(size);
    CHECK_MSG(!slab_wf_tl.free[c] && slab_wf_tl.cur[c] && !slab_wf_tl.cur[c]->free, "bin of %zu not drained",
              size);
    return c;
}

static mt_slab_wf_slab *wf_slab_of(void *p)
{
    return (mt_slab_wf_slab *)mt_payload_ptr(mt_entry_payload(mt_pagemap_get(p)));
}

/* drain_bin, then *x and *y: the last two blocks it took, both of the
 * current slab. */
static size_t drain_pair(size_t size, void **held, int max, int *n, void **x, void **y)
{
    size_t c = drain_bin(size, held, max, n);
    *x = held[*n - 1], *y = held[*n - 2];
    CHECK(wf_slab_of(*x) == slab_wf_tl.cur[c] && wf_slab_of(*y) == slab_wf_tl.cur[c]);
    return c;
}

/* The bin's walk when the thread's heap is saved (purge, thread exit)
 * meets a forged link: reported once, not followed. */
static void *bin_walk(void *at_exit)
{
    enum { SIZE = 200, MAX = 400 };
    static void *held[MAX];
    int n;
    void *x, *y;
    size_t c = drain_pair(SIZE, held, MAX, &n, &x, &y);
    t_free(x);
    t_free(y);                    /* the own list: y, x */
    void *again = t_malloc(SIZE); /* the bin takes it: y out, x in the bin */
    CHECK(again == y && slab_wf_tl.free[c] == x);
    *(void **)x = WILD;
    damaged = x;
    reports = 0;
    if (!at_exit) {
        t_malloc_trim(0);
        expect_one(x, NULL, "bin walk at purge");
        for (int i = 0; i < n - 1; i++)
            t_free(held[i]);
        t_free(again);
    }
    return NULL;
}
static void *bin_walk_exit(void *arg)
{
    (void)arg;
    return bin_walk((void *)1);
}

static void *remote_target[2];
static void *free_remote(void *arg)
{
    (void)arg;
    t_free(remote_target[0]);
    t_free(remote_target[1]);
    return NULL;
}

/* Another thread frees two blocks of the current slab (its remote stack:
 * b, a); b's link is forged. A fork child's repair walk meets it first
 * (reported once there, and not again by the child's next refill); the
 * parent's refill (splice) meets it: reported once, not followed. */
static void remote_splice(void)
{
    enum { SIZE = 320, MAX = 400 };
    static void *held[MAX];
    int n;
    void *a, *b;
    drain_pair(SIZE, held, MAX, &n, &a, &b);
    remote_target[0] = a;
    remote_target[1] = b;
    in_thread(free_remote);
    *(void **)b = WILD;
    reports = 0;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        bool ok = reports == 1 && last.ptr == b;
        void *p = t_malloc(SIZE);
        ok = ok && p == b && reports == 1;
        _exit(ok ? 0 : 1);
    }
    int status = 0;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
    CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
              "fork repair: the child did not see exactly one report (status %#x)", status);
    void *p = t_malloc(SIZE);
    CHECK_MSG(p == b, "remote splice: %p handed out, not %p", p, b);
    expect_one(b, NULL, "remote splice");
    for (int i = 0; i < n - 2; i++)
        t_free(held[i]);
    t_free(p);
}
#endif

#if LINK_LAYER == 5
/* tlsf_glk: the free block at the heap's end (in front of its sentinel),
 * which a growth merges with the new chunk. brk_heap's chunks are
 * contiguous, so each growth meets it. */
static mt_tlsf_block *heap_last_free(void)
{
    mt_tlsf_block *s = tlsf_glk_state.regions;
    return s && !s->next_free && mt_tlsf_prev_free(s) ? s->prev_phys : NULL;
}

/* Is b's block right after a's? */
static bool adjacent(void *a, void *b)
{
    return a && b && (uintptr_t)mt_tlsf_of(a) + mt_tlsf_size(mt_tlsf_of(a)) == (uintptr_t)mt_tlsf_of(b);
}

/* a (40 bytes) and b allocated in turn, b freed: b's block begins the free
 * end of the heap. Then 64 bytes written past a replace its header and
 * links. Returns b's block, NULL (and a failed check) if the heap was not
 * laid out so. a stays allocated: freed, it would be the next 40 bytes. */
static mt_tlsf_block *damage_heap_end(const char *what)
{
    void *a = t_malloc(40), *b = t_malloc(40);
    bool next_to_a = adjacent(a, b);
    t_free(b);
    mt_tlsf_block *end = heap_last_free();
    CHECK_MSG(next_to_a && end == mt_tlsf_of(b),
              "%s: b (%p) is not right after a (%p) and the heap's last free block (%p)", what, b, a,
              (void *)end);
    if (!next_to_a || end != mt_tlsf_of(b))
        return NULL;
    memset((char *)a + 40, 0x41, 64);
    reports = 0;
    return end;
}

/* After the damage: `n` blocks of `size` allocated, none in the damaged
 * block [damaged, end), and the damaged block reported once, in operation
 * `op`, at its address. */
static void after_damage(mt_tlsf_block *damaged, uintptr_t end, const char *op, size_t n, size_t size,
                         const char *what)
{
    static void *got[40000];
    for (size_t i = 0; i < n; i++) {
        got[i] = t_malloc(size);
        CHECK_MSG(got[i] && ((uintptr_t)got[i] < (uintptr_t)damaged || (uintptr_t)got[i] >= end),
                  "%s: block %zu at %p inside the damaged block [%p, %#lx)", what, i, got[i], (void *)damaged,
                  (unsigned long)end);
    }
    CHECK_MSG(reports == 1 && last.kind == MORTISE_BUG_CORRUPTED_METADATA &&
                  !strcmp(last.layer, "tlsf_glk") && last.ptr == mt_tlsf_user(damaged) &&
                  !strcmp(last.operation, op),
              "%s: %d reports, the last %s by %s at %p in %s (damaged block %p, %s)", what, reports,
              mt_bug_class_name(last.kind), last.layer, last.ptr, last.operation, mt_tlsf_user(damaged), op);
    for (size_t i = 0; i < n; i++)
        t_free(got[i]);
}

/* Three blocks of sizes sa, sb, sc in a row (the earlier tests left holes:
 * up to 64 tries, the misses held in held[], *n of them). */
static bool in_a_row(size_t sa, size_t sb, size_t sc, void **held, int *n, void **a, void **b, void **c)
{
    for (*n = 0; *n < 3 * 64; *n += 3) {
        *a = held[*n] = t_malloc(sa), *b = held[*n + 1] = t_malloc(sb), *c = held[*n + 2] = t_malloc(sc);
        if (adjacent(*a, *b) && adjacent(*b, *c))
            return true;
    }
    return false;
}

/* A block freed next to a damaged free predecessor (its links forged after
 * its free): reported once at the free, the predecessor condemned, not
 * merged. */
static void damaged_prev(void)
{
    static void *held[3 * 64];
    void *a, *b, *c;
    int n;
    CHECK_MSG(in_a_row(200, 40, 40, held, &n, &a, &b, &c), "damaged prev: no three blocks in a row");
    t_free(a);
    ((void **)a)[0] = WILD; /* its list links */
    ((void **)a)[1] = WILD;
    reports = 0;
    t_free(b);
    after_damage(mt_tlsf_of(a), (uintptr_t)mt_tlsf_of(b), "free", 1000, 200, "damaged prev");
    free_but(held, n, a, b);
}

/* realloc of a (sa bytes) to `to` next to its damaged free successor:
 * growing in place into it, or shrinking, whose split-off tail would merge
 * with it. Reported once, not merged (a growth moves the block). */
static void realloc_next_to_damaged(size_t sa, size_t to, const char *what)
{
    static void *held[3 * 64];
    void *a, *b, *c;
    int n;
    CHECK_MSG(in_a_row(sa, 200, 40, held, &n, &a, &b, &c), "%s: no three blocks in a row", what);
    t_free(b);
    ((void **)b)[0] = WILD;
    reports = 0;
    void *r = t_realloc(a, to);
    CHECK_MSG(r && (r == a) == (to < sa), "%s: %p (from %p)", what, r, a);
    after_damage(mt_tlsf_of(b), (uintptr_t)mt_tlsf_of(c), "realloc", 1000, 200, what);
    t_free(r);
    free_but(held, n, a, b);
}

/* The free block holding p (found by a walk of every list). */
static mt_tlsf_block *free_block_holding(void *p)
{
    enum { FL = sizeof tlsf_glk_state.heads / sizeof tlsf_glk_state.heads[0] };
    enum { SL = sizeof tlsf_glk_state.heads[0] / sizeof tlsf_glk_state.heads[0][0] };
    for (unsigned fl = 0; fl < FL; fl++)
        for (unsigned sl = 0; sl < SL; sl++)
            for (mt_tlsf_block *f = tlsf_glk_state.heads[fl][sl]; f; f = f->next_free)
                if ((uintptr_t)f <= (uintptr_t)p && (uintptr_t)p < (uintptr_t)f + mt_tlsf_size(f))
                    return f;
    return NULL;
}

/* purge's walk over the lists of free blocks of a granule and more meets a
 * forged link: reported once, the block condemned, nothing followed. */
static void purge_walk(void)
{
    void *big = t_malloc(300000), *guard = t_malloc(40);
    t_free(big);
    mt_tlsf_block *f = free_block_holding(big);
    CHECK_MSG(f && mt_tlsf_size(f) >= 300000, "purge walk: no free block holds %p", big);
    if (!f)
        return;
    f->next_free = WILD;
    reports = 0;
    t_malloc_trim(0);
    after_damage(f, (uintptr_t)f + mt_tlsf_size(f), "purge", 1000, 200, "purge walk");
    t_free(guard);
}

/* The damaged block found by an allocation first (condemned, its list
 * dropped), then a growth meets it in front of the sentinel: it must not
 * merge it (follow its forged links) nor report it again. */
static void grow_after_alloc(void)
{
    mt_tlsf_block *b = damage_heap_end("grow after alloc");
    if (!b)
        return;
    uintptr_t end = (uintptr_t)tlsf_glk_state.regions;            /* its sentinel */
    after_damage(b, end, "alloc", 30000, 40, "grow after alloc"); /* 1.4 MiB: one growth or more */
}

/* A request larger than the damaged block: no allocation looks at it, the
 * growth is the first to meet it: reported there, not merged. */
static void grow_first(void)
{
    mt_tlsf_block *b = damage_heap_end("grow first");
    if (!b)
        return;
    uintptr_t end = (uintptr_t)tlsf_glk_state.regions;
    void *big = t_malloc((size_t)2 << 20);
    CHECK_MSG(big && ((uintptr_t)big < (uintptr_t)b || (uintptr_t)big >= end), "grow first: 2 MiB at %p",
              big);
    after_damage(b, end, "grow", 30000, 40, "grow first");
    t_free(big);
}

/* A block freed next to a damaged free neighbour: reported once at the
 * free, condemned, and never reported (or merged) again. */
static void damaged_neighbour(void)
{
    void *a = t_malloc(40), *b = t_malloc(200), *c = t_malloc(40);
    CHECK_MSG(adjacent(a, b) && adjacent(b, c), "damaged neighbour: a %p, b %p, c %p not in a row", a, b, c);
    t_free(b);
    memset((char *)a + 40, 0x41, 64); /* b's header and links, not past b */
    reports = 0;
    t_free(a);
    after_damage(mt_tlsf_of(b), (uintptr_t)c, "free", 1000, 200, "damaged neighbour");
    t_free(c);
}

/* A block in use whose header an overflow from the block in front replaced
 * (a layer above that keeps no check of its own there: delayed_free's
 * ring), then freed: reported once at the free, condemned, never merged or
 * followed (its size word leads outside the heap). */
static void damaged_own_header(void)
{
    enum { TRIES = 64 };
    void *held[3 * TRIES], *a = NULL, *b = NULL, *c = NULL;
    int n = 0; /* the earlier tests left holes: three in a row come from the heap's end */
    for (; n < 3 * TRIES; n += 3) {
        a = held[n] = t_malloc(40), b = held[n + 1] = t_malloc(40), c = held[n + 2] = t_malloc(40);
        if (adjacent(a, b) && adjacent(b, c))
            break;
    }
    CHECK_MSG(adjacent(a, b) && adjacent(b, c), "damaged own header: a %p, b %p, c %p not in a row", a, b, c);
    memset((char *)a + 40, 0x41, 32); /* b's header, not past b */
    reports = 0;
    t_free(b);
    CHECK_MSG(reports == 1 && last.kind == MORTISE_BUG_CORRUPTED_METADATA &&
                  !strcmp(last.layer, "tlsf_glk") && last.ptr == b && !strcmp(last.operation, "free"),
              "damaged own header: %d reports, the last %s by %s at %p in %s (block %p)", reports,
              mt_bug_class_name(last.kind), last.layer, last.ptr, last.operation, b);
    t_free(b); /* condemned: not reported again */
    for (int i = 0; i < n + 3 && i < 3 * TRIES; i++)
        if (held[i] != b)
            t_free(held[i]);
    CHECK_MSG(reports == 1, "damaged own header: %d reports after the neighbours' frees", reports);
}
#endif

#if LINK_LAYER == 7
/* Two blocks of 64 bytes, the second the first's upper buddy. */
static bool buddy_pair(void **held, int max, int *n, void **lo, void **hi)
{
    for (*n = 0; *n < max; (*n)++) {
        held[*n] = t_malloc(64);
        for (int i = 0; i < *n; i++)
            if (!((uintptr_t)held[i] & 127) && (uintptr_t)held[*n] == (uintptr_t)held[i] + 64) {
                *lo = held[i], *hi = held[(*n)++];
                return true;
            }
    }
    return false;
}

/* A free buddy whose links were forged after its free, met by the free of
 * its buddy (merging them) or by realloc growing the buddy in place over
 * it: reported once, the level's list rebuilt, the merge done. */
static void damaged_buddy(bool grow, const char *what)
{
    static void *held[64];
    void *lo = NULL, *hi = NULL;
    int n;
    CHECK_MSG(buddy_pair(held, 64, &n, &lo, &hi), "%s: no buddy pair", what);
    if (!lo || !hi)
        return;
    t_free(hi);
    ((void **)hi)[0] = WILD;
    ((void **)hi)[1] = WILD;
    reports = 0;
    void *grown = grow ? t_realloc(lo, 100) : NULL;
    if (grow)
        CHECK_MSG(grown == lo, "%s: %p, not in place (%p)", what, grown, lo);
    t_free(lo);
    expect_one(hi, grow ? "resize" : "free", what);
    free_but(held, n, lo, hi);
}

/* purge gives back the wholly free chunk it kept, whose links (the
 * chunk's first 16 bytes) were written after its last block's free:
 * reported once, the list rebuilt, the chunk given back. */
static void purge_free_chunk(void)
{
    void *p = t_malloc((size_t)4 << 20); /* a whole chunk */
    CHECK(p != NULL);
    t_free(p); /* the one wholly free chunk kept */
    ((void **)p)[0] = WILD;
    ((void **)p)[1] = WILD;
    reports = 0;
    t_malloc_trim(0);
    expect_one(p, "purge", "purge of a free chunk");
}
#endif

int main(void)
{
    mt_report_set_handler(on_bug, NULL);
#if LINK_LAYER == 5 /* first: on a fresh heap, the blocks allocated in turn */
    /* check first, in a child: the heap keeps its damage for good (condemned
     * blocks leak), and the tests below need the parent's heap fresh */
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        forged_link(WILD, "check first", true);
        _exit(check_failed ? 1 : 0);
    }
    int status = 0;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
    CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "check first (child): status %#x", status);
    grow_after_alloc();
    grow_first();
    damaged_neighbour();
    damaged_own_header();
    damaged_prev();
    realloc_next_to_damaged(40, 150, "realloc into damaged");
    realloc_next_to_damaged(200, 40, "shrink next to damaged");
    purge_walk();
#elif LINK_LAYER == 7
    purge_walk(8192, 1);
    damaged_buddy(false, "merge with a damaged buddy");
    damaged_buddy(true, "resize into a damaged buddy");
    purge_free_chunk();
#elif LINK_LAYER == 2 || LINK_LAYER == 6
    purge_walk(1000, 0);
#elif LINK_LAYER == 3
    full_slab();
#elif LINK_LAYER == 1
    bin_walk(NULL);
    in_thread(bin_walk_exit);
    expect_one(damaged, NULL, "bin walk at thread exit");
    remote_splice();
#endif
#if LINK_LAYER == 4 || LINK_LAYER == 8
    cache_flush(NULL);
    in_thread(cache_flush_exit);
    expect_one(damaged, NULL, "flush at thread exit");
    handoff_take();
    handoff_cut();
    aligned_hit();
#endif
#if LINK_LAYER == 8
    batch_refill();
#endif
    forged_link(WILD, "wild link", false);
    forged_link(forged_target, "link to a global", false);
#if LINK_LAYER != 5 /* tlsf_glk's ran first, in a child (above) */
    forged_link(WILD, "check first", true);
#endif
    /* the allocator goes on: no report for ordinary use */
    reports = 0;
    for (int i = 0; i < 10000; i++) {
        void *p = t_malloc(16 + (size_t)(i % 64) * 16), *q = t_malloc(48);
        CHECK(p && q);
        memset(p, 0x5a, 16);
        t_free(q);
        t_free(p);
    }
    CHECK_MSG(reports == 0, "%d reports in ordinary use", reports);
    return check_report("link_check");
}

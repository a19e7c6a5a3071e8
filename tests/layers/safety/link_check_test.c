/* link_check (layers/safety/link_check.h) in each layer that has it, alone
 * or with the trunk below (LINK_LAYER picks the composition, prefix t_):
 *   1 slab_wf   2 segfit_lf   3 slab_lk   4 thread_cache over segfit_lk
 *   5 tlsf_glk  6 segfit_lk   7 buddy_glk (16-byte smallest blocks, every size)
 * Two blocks of a run are freed and the newer one's link (its first word)
 * is forged: a wild address, then a global array. The next allocations must
 * report it once (corrupted-metadata, the layer's name, the block), never
 * hand out the forged address, and the allocator must go on working.
 * Paths other than a pop, first on a fresh heap: tlsf_glk's growth meeting
 * a damaged free block at the heap's end and its free meeting a damaged
 * neighbour; buddy_glk's purge walk meeting a forged next link. */
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
#else
#error "LINK_LAYER: 1 to 7"
#endif
#define MT_PREFIX t_
#include <mortise/sockets/custom_socket.h>
#define LINK_COMPOSE(...) MT_COMPOSE(__VA_ARGS__) /* expands LINK_CHAIN first */
LINK_COMPOSE(LINK_CHAIN, custom_socket)

#include "../../common/check.h"
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int reports;
static mortise_error last;

static void on_bug(const mortise_error *e, void *arg)
{
    (void)arg;
    reports++;
    last = *e;
}

static _Alignas(64) unsigned char forged_target[4096];

/* Free blocks 3 and 5 of a run of 8, forge block 5's link, allocate: as many
 * blocks as a layer may hand out before it reuses freed ones (slab_wf takes
 * them once its bin of up to 16 carved blocks has run dry). */
static void forged_link(void *forged, const char *what)
{
    enum { N = 8, M = 64, SIZE = 48 };
    void *run[N], *got[M];
    for (int i = 0; i < N; i++)
        run[i] = t_malloc(SIZE);
    t_free(run[3]);
    t_free(run[5]);
    memcpy(run[5], &forged, sizeof forged);
    reports = 0;
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
    for (int i = 0; i < N; i++)
        if (i != 3 && i != 5)
            t_free(run[i]);
}

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
/* buddy_glk: purge's walk over a level's list (8 KiB blocks: their pages
 * go back to the OS) meets a forged next link: reported once, not
 * followed, the list rebuilt. */
static void purge_walk(void)
{
    enum { N = 8, SIZE = 8192 };
    void *x[N];
    for (int i = 0; i < N; i++)
        x[i] = t_malloc(SIZE);
    t_free(x[1]);
    t_free(x[3]); /* the list: x[3], x[1] (their buddies are in use) */
    ((void **)x[3])[1] = (void *)(uintptr_t)0x4141414141414140ull;
    reports = 0;
    t_malloc_trim(0);
    CHECK_MSG(reports == 1 && last.kind == MORTISE_BUG_CORRUPTED_METADATA &&
                  !strcmp(last.layer, "buddy_glk") && last.ptr == x[3] && !strcmp(last.operation, "purge"),
              "purge walk: %d reports, the last %s by %s at %p in %s (block %p)", reports,
              mt_bug_class_name(last.kind), last.layer, last.ptr, last.operation, x[3]);
    void *again[2] = {t_malloc(SIZE), t_malloc(SIZE)}; /* x[3] and x[1], from the rebuilt list */
    CHECK(again[0] && again[1] && reports == 1);
    t_free(again[0]);
    t_free(again[1]);
    for (int i = 0; i < N; i++)
        if (i != 1 && i != 3)
            t_free(x[i]);
}
#endif

int main(void)
{
    mt_report_set_handler(on_bug, NULL);
#if LINK_LAYER == 5 /* first: on a fresh heap, the blocks allocated in turn */
    grow_after_alloc();
    grow_first();
    damaged_neighbour();
    damaged_own_header();
#elif LINK_LAYER == 7
    purge_walk();
#endif
    forged_link((void *)(uintptr_t)0x4141414141414140ull, "wild link");
    forged_link(forged_target, "link to a global");
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

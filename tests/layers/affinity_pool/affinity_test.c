/* affinity_pool from the inside: call-chain identity through 0, 1 and 2
 * wrappers, the same through each thread's wrapper cache (a wrapper and
 * C++ operator new called from two sites each, and a chain through two
 * wrappers), a wrapper known by its name (one size, two callers: two
 * groups), type I and type II merges and no merge of unrelated groups,
 * the min_objects and max_pooled_size thresholds, empty segments and
 * spans given back below, the invariant checker (and a broken free link
 * named), frees from another thread into a thread's segments (a producer
 * and a consumer), a thread ending with live pooled objects (its segments
 * abandoned, freed from elsewhere, adopted), and the unwinder neither
 * allocating nor deadlocking under a signal handler and across fork (also
 * with a thread held inside it).
 *
 * Built three ways (CMakeLists.txt): as the process's malloc with the
 * paper's thresholds, with min_objects=20 and max_pooled_size=64, and
 * prefixed (aff_malloc beside the C library's) for the ASan/UBSan build,
 * which skips the signal and fork cases.
 *
 * Wrappers are noinline and use the pointer after the call, so they keep a
 * frame of their own (no tail call); the program has no frame pointers
 * (-O2), so only a DWARF unwinder finds their callers. */
#include <stdatomic.h>

/* The port layer's test hook, run inside its fork gate before each unwind:
 * case_fork_inside holds a thread there while another forks. */
#include "../../common/hold_point.h"
#define MT_PAL_CALLCHAIN_HOOK() hold_point()

#include <mortise/mortise.h>
#include <mortise/os/mmap_heap.h>

#define MT_SYNC spinlock
#include <mortise/layers/segfit_lk.h>

#define MT_SIZE_HANDLE 0, 32768
#include <mortise/layers/thread_cache.h>

#ifdef AFF_MIN_OBJECTS
#define MT_MIN_OBJECTS AFF_MIN_OBJECTS
#define MT_MAX_POOLED_SIZE AFF_MAX_POOLED
#endif
#include <mortise/layers/affinity_pool.h>

#include <mortise/layers/count.h>

#ifdef AFF_PREFIXED
#define MT_PREFIX aff_
#include <mortise/sockets/custom_socket.h>
#define A_MALLOC aff_malloc
#define A_FREE aff_free
#define A_CHECK aff_check
#else
#include <mortise/sockets/malloc_socket.h>
#define A_MALLOC malloc
#define A_FREE free
#define A_CHECK mortise_check
#endif

#ifdef AFF_PREFIXED
MT_COMPOSE(mmap_heap, segfit_lk, thread_cache, affinity_pool, count, custom_socket)
#else
MT_COMPOSE(mmap_heap, segfit_lk, thread_cache, affinity_pool, count, malloc_socket)
#endif

#include "../../common/check.h"
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef AFF_MIN_OBJECTS
#define M AFF_MIN_OBJECTS
#define NMAX AFF_MAX_POOLED
#else
#define M 100
#define NMAX 128
#endif
#define N 500 /* objects per site in a case: well past SETTLED */
/* A site's objects are pooled from here on: its learning (a caller of a
 * wrapper is unwound only from its 64th walk, then 1 walk in 4, 16 times)
 * and M counted objects. */
#define SETTLED 300

#define NOINLINE __attribute__((noinline))
/* Uses p after the call, so the call is not a tail call: a real frame;
 * the line number makes every site's code differ, so the compiler cannot
 * fold two identical sites into one function (-fipa-icf). */
static inline void *keep_at(void *p, int line)
{
    __asm__ volatile("" : : "r"(p), "r"(line) : "memory");
    return p;
}
#define keep(p) keep_at((p), __LINE__)
static inline void *fresh(void *p, size_t n)
{
    memset(p, 0, n); /* no stale words a scan could take for pointers */
    return p;
}

NOINLINE static void *wrap1(size_t n) { return keep(A_MALLOC(n)); }
NOINLINE static void *wrap2(size_t n) { return keep(wrap1(n)); }

/* operator new as the socket exports it, called from a wrapper (a C++
 * allocator's allocate): its callers' chains go through the same cache. */
#ifndef AFF_PREFIXED
void *_Znwm(size_t n);
#define A_NEW _Znwm
#else
#define A_NEW A_MALLOC
#endif
NOINLINE static void *wrap_new(size_t n) { return keep(A_NEW(n)); }

/* Two callers and two sizes each: wrap1's call of malloc and wrap2's call
 * of wrap1 become wrappers by use, and wrap_new's call of operator new. */
NOINLINE static void *train_a(size_t n) { return keep(wrap1(n)); }
NOINLINE static void *train_b(size_t n) { return keep(wrap1(n)); }
NOINLINE static void *train_c(size_t n) { return keep(wrap2(n)); }
NOINLINE static void *train_d(size_t n) { return keep(wrap2(n)); }
NOINLINE static void *train_e(size_t n) { return keep(wrap_new(n)); }
NOINLINE static void *train_f(size_t n) { return keep(wrap_new(n)); }
static void train(void)
{
    for (int i = 0; i < 40; i++) {
        A_FREE(train_a(24));
        A_FREE(train_b(40));
        A_FREE(train_c(24));
        A_FREE(train_d(40));
        A_FREE(train_e(24));
        A_FREE(train_f(40));
    }
}

/* The real sites: x and y at each wrapper depth. */
NOINLINE static void *x0(size_t n) { return keep(A_MALLOC(n)); }
NOINLINE static void *y0(size_t n) { return keep(A_MALLOC(n)); }
NOINLINE static void *x1(size_t n) { return keep(wrap1(n)); }
NOINLINE static void *y1(size_t n) { return keep(wrap1(n)); }
NOINLINE static void *x2(size_t n) { return keep(wrap2(n)); }
NOINLINE static void *y2(size_t n) { return keep(wrap2(n)); }
NOINLINE static void *xn(size_t n) { return keep(wrap_new(n)); }
NOINLINE static void *yn(size_t n) { return keep(wrap_new(n)); }
typedef void *site_fn(size_t);

static int adjacent(void **p, int from, int to, size_t step)
{
    int n = 0;
    for (int i = from; i + 1 < to; i++)
        n += (char *)p[i + 1] - (char *)p[i] == (ptrdiff_t)step;
    return n;
}

/* Interleaved x, y: each real site gets one pool of its own, and its
 * objects follow each other in it, whatever the wrapper depth. */
static void case_identity(void)
{
    site_fn *xs[3] = {x0, x1, x2}, *ys[3] = {y0, y1, y2};
    static void *x[N], *y[N];
    for (int d = 0; d < 3; d++) {
        for (int i = 0; i < N; i++) {
            x[i] = fresh(xs[d](48), 48);
            y[i] = fresh(ys[d](48), 48);
        }
        uint32_t px = affinity_pool_pool_id(x[N - 1]), py = affinity_pool_pool_id(y[N - 1]);
        CHECK_MSG(px && py && px != py, "depth %d: pools %u and %u", d, px, py);
        int same = 0;
        for (int i = SETTLED; i < N; i++)
            same += affinity_pool_pool_id(x[i]) == px && affinity_pool_pool_id(y[i]) == py;
        CHECK_MSG(same == N - SETTLED, "depth %d: %d of %d in their pools", d, same, N - SETTLED);
        int adj = adjacent(x, SETTLED, N, 48);
        CHECK_MSG(adj >= (N - SETTLED) * 9 / 10, "depth %d: %d of x's neighbours adjacent", d, adj);
        for (int i = 0; i < N; i++) {
            A_FREE(x[i]);
            A_FREE(y[i]);
        }
        CHECK(A_CHECK() == NULL);
    }
    /* the wrapper chains were walked without the unwinder, with the same
     * groups (the pools above) */
#if !MT_AFF_FRAME_WALK /* aarch64: no walk, every wrapper chain was unwound */
    CHECK_MSG(affinity_pool_walks() == 0, "%llu chains walked on a machine without the walk",
              (unsigned long long)affinity_pool_walks());
#elif !defined(AFF_PREFIXED)
    CHECK_MSG(affinity_pool_walks() > 0, "no chain walked");
#else /* ASan's frames may vary in size: the walk may have switched itself off */
    CHECK_MSG(affinity_pool_walks() > 0 || affinity_pool_walk_off(), "no chain walked");
#endif
}

#ifdef AFF_EXPORTED
/* A wrapper known by its name ("xmalloc" is in the layer's list; the
 * program exports its symbols, CMakeLists.txt, so dladdr names it) with one
 * size only: by use it would stay a direct site (that takes two sizes), by
 * name it is a wrapper from its second allocation on, so its two callers'
 * objects go to two pools. */
#define EXPORTED __attribute__((visibility("default"))) /* the flags hide the rest */
NOINLINE EXPORTED void *aff_test_xmalloc(size_t n);
NOINLINE EXPORTED void *aff_test_xmalloc(size_t n) { return keep(A_MALLOC(n)); }
NOINLINE static void *named_x(size_t n) { return keep(aff_test_xmalloc(n)); }
NOINLINE static void *named_y(size_t n) { return keep(aff_test_xmalloc(n)); }

static void case_named_wrapper(void)
{
    static void *x[N], *y[N];
    for (int i = 0; i < N; i++) {
        x[i] = fresh(named_x(40), 40);
        y[i] = fresh(named_y(40), 40);
    }
    uint32_t px = affinity_pool_pool_id(x[N - 1]), py = affinity_pool_pool_id(y[N - 1]);
    CHECK_MSG(px && py && px != py, "a wrapper known by name: pools %u and %u", px, py);
    int adj = adjacent(x, SETTLED, N, 48);
    CHECK_MSG(adj >= (N - SETTLED) * 9 / 10, "named wrapper: %d of x's neighbours adjacent", adj);
    for (int i = 0; i < N; i++) {
        A_FREE(x[i]);
        A_FREE(y[i]);
    }
    CHECK(A_CHECK() == NULL);
}
#endif

/* Decided wrapper chains again, now served by the thread's wrapper cache
 * (keyed by the wrapper's return address and its caller's, deeper chains
 * by all their frames): two callers of one wrapper (of malloc, of operator
 * new) land in two pools, each the pool the walk gave, and two chains
 * through two wrappers likewise; the cache served them (its count down to
 * the next recheck moved). */
static void case_wrapper_cache(void)
{
    site_fn *xs[3] = {x1, xn, x2}, *ys[3] = {y1, yn, y2};
    static void *x[N], *y[N];
    for (int d = 0; d < 3; d++) {
        uint32_t px = 0, py = 0;
        for (int round = 0; round < 3; round++) {
            unsigned before = affinity_pool_wc_left();
            for (int i = 0; i < N; i++) {
                x[i] = fresh(xs[d](48), 48);
                y[i] = fresh(ys[d](48), 48);
            }
            unsigned served = (before - affinity_pool_wc_left()) % MT_AFF_RECHECK;
            if (round == 0) {
                px = affinity_pool_pool_id(x[N - 1]);
                py = affinity_pool_pool_id(y[N - 1]);
                CHECK_MSG(px && py && px != py, "cache %d: pools %u and %u", d, px, py);
            } else {
#if MT_AFF_FRAME_WALK && !defined(AFF_PREFIXED)
                CHECK_MSG(served >= N, "cache %d, round %d: %u allocations from the cache", d, round, served);
#else
                (void)served;
#endif
            }
            int same = 0;
            for (int i = round ? 0 : SETTLED; i < N; i++)
                same += affinity_pool_pool_id(x[i]) == px && affinity_pool_pool_id(y[i]) == py;
            CHECK_MSG(same == N - (round ? 0 : SETTLED), "cache %d, round %d: %d in their pools", d, round,
                      same);
            for (int i = 0; i < N; i++) {
                A_FREE(x[i]);
                A_FREE(y[i]);
            }
        }
        CHECK(A_CHECK() == NULL);
    }
}

#if MT_AFF_FRAME_WALK
/* Chains whose wrapper-cache slots agree all stay cached: a wrapper w
 * called from two direct sites whose return addresses agree in their low
 * bits (one first way for both), and deep chains w < c3 < d hashed into
 * the same set of ways. Return addresses and frames are made up (never
 * executed): a fake stack holds each chain's words at w's and c3's
 * trusted frame sizes. The first way's two-frame chain, which the inline
 * lookup reads, stays while the set overflows. */
static void case_wrapper_cache_ways(void)
{
    const uintptr_t w = 0x7ffe00000fe0, c3 = 0x7ffe00002345, frame = 32;
    uintptr_t callers[2] = {0x7ffe000012fe, 0x7ffe000017fe}, deep[5];
    const uintptr_t set = mt_aff_wc_slot(w, callers[0]) & ~(uintptr_t)(MT_AFF_WC_WAYS - 1);
    int ndeep = 0;
    for (uintptr_t d = 0x7ffe00003005; ndeep < 5; d += 16)
        if ((mt_aff_wc_slot_of(w ^ c3 ^ d, 3) & ~(uintptr_t)(MT_AFF_WC_WAYS - 1)) == set)
            deep[ndeep++] = d;
    uintptr_t fakes[8] = {w, c3, callers[0], callers[1], deep[0], deep[1], deep[2], deep[3]};
    for (int i = 0; i < 8; i++) {
        mt_aff_site *s = affinity_pool_site_get(fakes[i]);
        CHECK(s != NULL);
        if (s)
            mt_store_release(&s->kind, i < 2 ? MT_AFF_WRAPPER : MT_AFF_DIRECT);
    }
    mt_aff_site *last = affinity_pool_site_get(deep[4]);
    if (last)
        mt_store_release(&last->kind, MT_AFF_DIRECT);
    uint64_t saved[2];
    const uintptr_t wrappers[2] = {w, c3};
    for (int i = 0; i < 2; i++) {
        _Atomic(uint64_t) *slot = &affinity_pool_wrap[mt_aff_wrap_index(wrappers[i])];
        saved[i] = mt_load_relaxed(slot);
        mt_store_release(slot, mt_aff_wrap_entry(wrappers[i], (int32_t)frame));
    }
    uintptr_t stack[16];
    affinity_pool_wc_clear();
    /* the chain in stack: w's caller at w's frame end, c3's above it */
    const mt_aff_wc *(*find)(uintptr_t, uintptr_t) = affinity_pool_wc_find;
#define CHAIN_AT(caller, up) \
    (stack[frame / 8 - 1] = (caller), stack[2 * frame / 8 - 1] = (up), (uintptr_t)stack)
    for (int round = 0; round < 2; round++)
        for (int i = 0; i < 2; i++) {
            uintptr_t chain[2] = {w, callers[i]};
            affinity_pool_wc_fill(chain, 2, MT_AFF_MEMO_BELOW);
        }
    for (int i = 0; i < 2; i++) {
        uintptr_t chain[3] = {w, c3, deep[i]};
        affinity_pool_wc_fill(chain, 3, MT_AFF_MEMO_BELOW);
    }
    for (int i = 0; i < 2; i++)
        CHECK_MSG(find(w, CHAIN_AT(callers[i], 0)) != NULL, "two-frame chain %d not cached", i);
    for (int i = 0; i < 2; i++)
        CHECK_MSG(find(w, CHAIN_AT(c3, deep[i])) != NULL, "deep chain %d not cached", i);
    /* the set is full: further chains take a way seldom, never the first */
    for (int k = 0; k < 64; k++) {
        uintptr_t chain[3] = {w, c3, deep[2 + k % 3]};
        affinity_pool_wt.tick++;
        affinity_pool_wc_fill(chain, 3, MT_AFF_MEMO_BELOW);
    }
    const mt_aff_wc *first = find(w, CHAIN_AT(callers[0], 0));
    CHECK_MSG(first == &affinity_pool_wt.e[mt_aff_wc_slot(w, callers[0])], "the inline lookup's chain moved");
    int kept = find(w, CHAIN_AT(callers[1], 0)) != NULL, newer = 0;
    for (int i = 0; i < 5; i++) {
        bool found = find(w, CHAIN_AT(c3, deep[i])) != NULL;
        kept += found;
        newer += found && i >= 2;
    }
    CHECK_MSG(kept == MT_AFF_WC_WAYS - 1 && newer > 0,
              "%d other chains cached (%d newer) in a set of %d ways", kept, newer, MT_AFF_WC_WAYS);
#undef CHAIN_AT
    affinity_pool_wc_clear();
    for (int i = 0; i < 2; i++)
        mt_store_release(&affinity_pool_wrap[mt_aff_wrap_index(wrappers[i])], saved[i]);
}
#endif

struct node1 {
    struct node1 *next;
    long v[3];
};
NOINLINE static struct node1 *a1(void) { return keep(A_MALLOC(sizeof(struct node1))); }
NOINLINE static struct node1 *a2(void) { return keep(A_MALLOC(sizeof(struct node1))); }

/* One list built from two sites: type I (a pointer between two groups of
 * one size) puts both in one pool. */
static void case_type1(void)
{
    uint32_t before = affinity_pool_merges_of_type(1);
    struct node1 *head = NULL;
    for (int i = 0; i < 2 * N; i++) {
        struct node1 *n = fresh(i & 1 ? a2() : a1(), sizeof *n);
        n->next = head;
        head = n;
    }
    CHECK_MSG(affinity_pool_merges_of_type(1) > before, "no type I merge");
    uint32_t p1 = affinity_pool_pool_id(head), p2 = affinity_pool_pool_id(head->next);
    CHECK_MSG(p1 && p1 == p2, "pools %u and %u", p1, p2);
    int adj = 0;
    for (struct node1 *n = head; n && n->next; n = n->next)
        adj += (char *)n - (char *)n->next == (ptrdiff_t)sizeof *n;
    CHECK_MSG(adj >= N, "%d of %d list neighbours adjacent", adj, 2 * N);
    while (head) {
        struct node1 *next = head->next;
        A_FREE(head);
        head = next;
    }
    CHECK(A_CHECK() == NULL);
}

struct node2 {
    struct node2 *next;
    void *data;
    long pad[4];
};
NOINLINE static struct node2 *l_site(void) { return keep(A_MALLOC(sizeof(struct node2))); }
#define PAYLOAD (NMAX / 2)
NOINLINE static void *p1_site(void) { return keep(A_MALLOC(PAYLOAD)); }
NOINLINE static void *p2_site(void) { return keep(A_MALLOC(PAYLOAD)); }
NOINLINE static void *u_site(void) { return keep(A_MALLOC(PAYLOAD)); }

NOINLINE static void *late_target(void) { return keep(A_MALLOC(48)); }
NOINLINE static void *late_source(void) { return keep(A_MALLOC(48)); }

/* Type I through a pool's later objects: the source's first objects point
 * only at objects of the target's pool past its first ones (not in the
 * address table); the page map finds them, and the source joins the
 * target's pool. */
static void case_type1_pooled(void)
{
    static void *t[N], *src[N];
    for (int i = 0; i < N; i++)
        t[i] = fresh(late_target(), 48);
    uint32_t pt = affinity_pool_pool_id(t[N - 1]);
    CHECK_MSG(pt != 0, "the target was not pooled");
    for (int i = 0; i < N; i++) {
        src[i] = fresh(late_source(), 48);
        *(void **)src[i] = t[SETTLED + i % (N - SETTLED)];
    }
    uint32_t ps = affinity_pool_pool_id(src[N - 1]);
    CHECK_MSG(ps == pt, "the source's pool %u, the target's %u", ps, pt);
    for (int i = 0; i < N; i++) {
        A_FREE(t[i]);
        A_FREE(src[i]);
    }
    CHECK(A_CHECK() == NULL);
}

/* Payloads from two sites hung at the same field of one list: type II
 * merges them; a third group of the same size that nothing points at
 * stays apart. */
static void case_type2(void)
{
    uint32_t before = affinity_pool_merges_of_type(2);
    static void *u[N];
    struct node2 *head = NULL;
    for (int i = 0; i < 2 * N; i++) {
        struct node2 *n = fresh(l_site(), sizeof *n);
        n->data = fresh(i & 1 ? p2_site() : p1_site(), PAYLOAD);
        n->next = head;
        head = n;
        if (i & 1)
            u[i / 2] = fresh(u_site(), PAYLOAD);
    }
    CHECK_MSG(affinity_pool_merges_of_type(2) > before, "no type II merge");
    uint32_t pa = affinity_pool_pool_id(head->data), pb = affinity_pool_pool_id(head->next->data);
    uint32_t pu = affinity_pool_pool_id(u[N - 1]);
    CHECK_MSG(pa && pa == pb, "payload pools %u and %u", pa, pb);
    CHECK_MSG(pu && pu != pa, "unrelated group's pool %u, payloads' %u", pu, pa);
    while (head) {
        struct node2 *next = head->next;
        A_FREE(head->data);
        A_FREE(head);
        head = next;
    }
    for (int i = 0; i < N; i++)
        A_FREE(u[i]);
    CHECK(A_CHECK() == NULL);
}

NOINLINE static void *small_site(size_t n) { return keep(A_MALLOC(n)); }
NOINLINE static void *big_site(size_t n) { return keep(A_MALLOC(n)); }
NOINLINE static void *varied_site(size_t n) { return keep(A_MALLOC(n)); }
NOINLINE static void *near_site(size_t n) { return keep(A_MALLOC(n)); }

/* min_objects: a group's first M objects come from below, the rest from
 * its pool; max_pooled_size: a group with objects that big is never pooled;
 * nor is a group whose sizes vary so much that one slot of its largest
 * size would waste more than MT_AFF_SLOT_SLACK allows (8 to NMAX - 8
 * bytes: slots about twice the objects), while sizes within one 16-byte
 * step of each other share a slot. */
static void case_thresholds(void)
{
    static void *s[N], *b[N], *v[N], *w[N];
    for (int i = 0; i < N; i++) {
        s[i] = small_site(NMAX / 2);
        b[i] = big_site(NMAX);
        v[i] = varied_site(8 + (size_t)(i * 40) % (NMAX - 15));
        w[i] = near_site(i % 2 ? NMAX / 2 - 8 : NMAX / 2);
    }
    int below = 0, pooled = 0, big_pooled = 0, varied_pooled = 0, near_pooled = 0;
    for (int i = 0; i < N; i++) {
        below += i < M && !affinity_pool_pool_id(s[i]);
        pooled += i >= M && affinity_pool_pool_id(s[i]);
        big_pooled += affinity_pool_pool_id(b[i]) != 0;
        varied_pooled += affinity_pool_pool_id(v[i]) != 0;
        near_pooled += i >= M && affinity_pool_pool_id(w[i]);
    }
    CHECK_MSG(below == M, "%d of the first %d objects below", below, M);
    CHECK_MSG(pooled == N - M, "%d of the next %d pooled", pooled, N - M);
    CHECK_MSG(big_pooled == 0, "%d objects of max_pooled_size pooled", big_pooled);
    CHECK_MSG(varied_pooled == 0, "%d objects of varied sizes pooled", varied_pooled);
    CHECK_MSG(near_pooled == N - M, "%d of %d objects of near sizes pooled", near_pooled, N - M);
    for (int i = 0; i < N; i++) {
        A_FREE(s[i]);
        A_FREE(b[i]);
        A_FREE(v[i]);
        A_FREE(w[i]);
    }
    CHECK(A_CHECK() == NULL);
}

#if MT_AFF_FRAME_WALK
NOINLINE static void *one_size_caller(void) { return keep(wrap1(40)); }

/* A new caller of a trained wrapper, reached by the walk, notes the sizes
 * of its first MT_AFF_YOUNG_WAIT allocations without an unwind; asking
 * for one size, it is no wrapper by use (that takes two), so it is decided
 * a direct site then and pooled without an unwind (one recheck may
 * unwind). */
static void case_learning_unwinds(void)
{
    uint64_t u0 = mt_load_relaxed(&affinity_pool_state.unwinds);
    void *last = NULL;
    for (int i = 0; i < MT_AFF_YOUNG_WAIT + M + 50; i++) {
        A_FREE(last);
        last = one_size_caller();
    }
    uint64_t u1 = mt_load_relaxed(&affinity_pool_state.unwinds);
    CHECK_MSG(u1 - u0 <= 1 || affinity_pool_walk_off(), "a wrapper's caller of one size unwound %llu times",
              (unsigned long long)(u1 - u0));
    CHECK_MSG(affinity_pool_pool_id(last) != 0, "the wrapper's caller of one size was not pooled");
    A_FREE(last);
    CHECK(A_CHECK() == NULL);
}
#endif

NOINLINE static void *e_site(void) { return keep(A_MALLOC(32)); }

/* A pool's emptied segments go back to their spans, emptied spans below. */
static void case_give_back(void)
{
    enum { MANY = 40000 };
    static void *p[MANY];
    uint64_t held0 = affinity_pool_spans_held();
    for (int i = 0; i < MANY; i++)
        p[i] = e_site();
    uint64_t held1 = affinity_pool_spans_held();
    CHECK_MSG(held1 >= held0 + 10, "spans held %llu then %llu", (unsigned long long)held0,
              (unsigned long long)held1);
    for (int i = 0; i < MANY; i++)
        A_FREE(p[i]);
    uint64_t held2 = affinity_pool_spans_held();
    CHECK_MSG(held2 <= held0 + 1, "spans held after freeing: %llu (before %llu)", (unsigned long long)held2,
              (unsigned long long)held0);
    CHECK(A_CHECK() == NULL);
    /* the records of the spans given back serve the next ones (the pool,
     * now past a span's worth, places its segments in spans of its own:
     * it may take a few more) */
    uint32_t records = affinity_pool_state.spans_high;
    for (int i = 0; i < MANY; i++)
        p[i] = e_site();
    CHECK_MSG(affinity_pool_state.spans_high - records < (held1 - held2) / 2,
              "span records %u, then %u for as many objects (%llu spans given back)", records,
              affinity_pool_state.spans_high, (unsigned long long)(held1 - held2));
    CHECK(A_CHECK() == NULL);
    for (int i = 0; i < MANY; i++)
        A_FREE(p[i]);
    CHECK(A_CHECK() == NULL);
}

NOINLINE static void *step_a(void) { return keep(A_MALLOC(16)); }
NOINLINE static void *step_b(void) { return keep(A_MALLOC(16)); }
NOINLINE static void *step_c(void) { return keep(A_MALLOC(16)); }
NOINLINE static void *step_d(void) { return keep(A_MALLOC(16)); }

/* Four pools growing in step share spans. Each keeps runs of neighbouring
 * segments, and its segments' offsets in a 128 KiB period (a 2 MiB 16-way
 * cache's sets repeat at that distance) are spread, not the same few in
 * every span, which would leave most of such a cache's sets unused by a
 * walk of one pool. Past a span's worth of segments, each takes whole
 * spans of its own. */
static void case_segment_placement(void)
{
    enum { SEG = 4096 /* segment_size's default: no test sets it */ };
    enum { SEGS = 64, PER = SEGS * (SEG / 16), PERIOD = (128 << 10) / SEG, SPAN_SEGS = MT_GRANULE / SEG };
    static void *p[4][PER];
    void *(*step[4])(void) = {step_a, step_b, step_c, step_d};
    for (int i = 0; i < PER; i++)
        for (int k = 0; k < 4; k++)
            p[k][i] = step[k]();
    for (int k = 0; k < 4; k++) {
        uintptr_t prev = 0, span = 0;
        int segments = 0, neighbours = 0, spread = 0, whole = 0, in_span = 0;
        uint64_t offsets = 0;
        for (int i = M; i < PER; i++) {
            uintptr_t seg = (uintptr_t)p[k][i] / SEG;
            if (seg == prev)
                continue;
            segments++;
            neighbours += seg == prev + 1;
            offsets |= (uint64_t)1 << (seg % PERIOD);
            prev = seg;
            if (seg / SPAN_SEGS != span) {
                span = seg / SPAN_SEGS;
                in_span = 0;
            }
            whole += ++in_span == SPAN_SEGS;
        }
        CHECK_MSG(whole >= (SEGS - 2 * SPAN_SEGS) / SPAN_SEGS, "pool %d: %d spans of its own in %d segments",
                  k, whole, segments);
        for (int b = 0; b < PERIOD; b++)
            spread += (int)((offsets >> b) & 1);
        CHECK_MSG(neighbours >= segments / 2, "pool %d: %d of %d segments follow the one before", k,
                  neighbours, segments);
        CHECK_MSG(spread >= PERIOD / 2, "pool %d: its %d segments at %d of %d offsets", k, segments, spread,
                  PERIOD);
    }
    for (int i = 0; i < PER; i++)
        for (int k = 0; k < 4; k++)
            A_FREE(p[k][i]);
    CHECK(A_CHECK() == NULL);
}

/* The checker names a free link written outside its segment. */
static void case_checker(void)
{
    void *a[M + 8];
    for (int i = 0; i < M + 8; i++)
        a[i] = e_site();
    void *victim = a[M + 4];
    CHECK(affinity_pool_pool_id(victim) != 0);
    A_FREE(victim);
    void *saved = *(void **)victim;
    *(void **)victim = (char *)victim + 1;
    const char *broken = A_CHECK();
    CHECK_MSG(broken && strstr(broken, "affinity_pool: free link outside its segment"), "%s",
              broken ? broken : "(null)");
    *(void **)victim = saved;
    CHECK(A_CHECK() == NULL);
    for (int i = 0; i < M + 8; i++)
        if (i != M + 4)
            A_FREE(a[i]);
}

/* Producer and consumer: every object of a pooled site is freed by another
 * thread (onto its segment's remote stack); the producer takes them back
 * when its segments run dry, so the pool stays a few segments large. */
NOINLINE static void *pc_site(void) { return keep(A_MALLOC(48)); }
enum { PC_QUEUE = 1024, PC_TOTAL = 200000 };
static void *pc_queue[PC_QUEUE];
static _Atomic(size_t) pc_head, pc_tail; /* head: next to fill, tail: next to take */
static _Atomic(int) pc_pooled;
static const char *pc_broken;

static void *producer(void *arg)
{
    (void)arg;
    int pooled = 0;
    for (size_t i = 0; i < PC_TOTAL; i++) {
        void *p = pc_site();
        memset(p, 0x5a, 48);
        pooled += affinity_pool_pool_id(p) != 0;
        while (atomic_load_explicit(&pc_head, memory_order_relaxed) -
                   atomic_load_explicit(&pc_tail, memory_order_acquire) ==
               PC_QUEUE)
            sched_yield();
        size_t h = atomic_load_explicit(&pc_head, memory_order_relaxed);
        pc_queue[h % PC_QUEUE] = p;
        atomic_store_explicit(&pc_head, h + 1, memory_order_release);
    }
    atomic_store(&pc_pooled, pooled);
    while (atomic_load_explicit(&pc_tail, memory_order_acquire) != PC_TOTAL)
        sched_yield();
    pc_broken = A_CHECK(); /* this thread's segments, their remote stacks full */
    return NULL;
}

static void *consumer(void *arg)
{
    (void)arg;
    for (size_t i = 0; i < PC_TOTAL; i++) {
        while (atomic_load_explicit(&pc_head, memory_order_acquire) == i)
            sched_yield();
        void *p = pc_queue[i % PC_QUEUE];
        atomic_store_explicit(&pc_tail, i + 1, memory_order_release);
        if (((unsigned char *)p)[47] != 0x5a)
            atomic_store(&pc_pooled, -1);
        A_FREE(p);
    }
    return NULL;
}

static void case_producer_consumer(void)
{
    uint64_t held0 = affinity_pool_spans_held();
    pthread_t p, c;
    CHECK(pthread_create(&p, NULL, producer, NULL) == 0);
    CHECK(pthread_create(&c, NULL, consumer, NULL) == 0);
    pthread_join(p, NULL);
    pthread_join(c, NULL);
    int pooled = atomic_load(&pc_pooled);
    CHECK_MSG(pooled >= PC_TOTAL - 2 * M - 64, "%d of %d objects pooled", pooled, PC_TOTAL);
    CHECK_MSG(pc_broken == NULL, "producer's check: %s", pc_broken ? pc_broken : "");
    /* in flight at most the queue: 48 KiB, a few segments more for the
     * remote frees not yet taken back, and the producer's segments go back
     * (or are abandoned) when it ends */
    uint64_t held1 = affinity_pool_spans_held();
    CHECK_MSG(held1 <= held0 + 4, "spans held %llu, before %llu", (unsigned long long)held1,
              (unsigned long long)held0);
    CHECK(A_CHECK() == NULL);
}

/* A thread ends with live pooled objects: its segments are abandoned, frees
 * from other threads go straight onto them, a later thread adopts them, and
 * the last free of each gives it back. */
NOINLINE static void *x_site(void) { return keep(A_MALLOC(40)); }
enum { X_LIVE = 3000 };
static void *x_obj[X_LIVE], *x_more[X_LIVE];
static int x_count;
static void *x_owner(void *arg)
{
    void **out = arg;
    for (int i = 0; i < x_count; i++)
        out[i] = memset(x_site(), 0x33, 40);
    return NULL; /* ends with all of them live */
}

static void case_thread_exit(void)
{
    for (int i = 0; i < M + 40; i++) /* the site is decided and pooled first */
        A_FREE(x_site());
    uint64_t held0 = affinity_pool_spans_held();
    pthread_t t;
    x_count = X_LIVE;
    CHECK(pthread_create(&t, NULL, x_owner, x_obj) == 0);
    pthread_join(t, NULL);
    int pooled = 0;
    for (int i = 0; i < X_LIVE; i++)
        pooled += affinity_pool_pool_id(x_obj[i]) != 0;
    CHECK_MSG(pooled == X_LIVE, "%d of %d pooled", pooled, X_LIVE);
    CHECK(A_CHECK() == NULL);        /* the abandoned segments are consistent */
    for (int i = 0; i < X_LIVE; i++) /* three in four, from this thread */
        if (i % 4 != 3)
            A_FREE(x_obj[i]);
    CHECK(A_CHECK() == NULL);
    uint64_t held1 = affinity_pool_spans_held();
    x_count = X_LIVE / 2; /* fits the abandoned segments' free room */
    CHECK(pthread_create(&t, NULL, x_owner, x_more) == 0);
    pthread_join(t, NULL);
    uint64_t held2 = affinity_pool_spans_held();
    CHECK_MSG(held2 <= held1, "a new thread took %llu spans, not the abandoned room",
              (unsigned long long)(held2 - held1));
    int intact = 0;
    for (int i = 3; i < X_LIVE; i += 4)
        intact += ((unsigned char *)x_obj[i])[39] == 0x33;
    CHECK_MSG(intact == X_LIVE / 4, "%d of %d live objects intact", intact, X_LIVE / 4);
    for (int i = 3; i < X_LIVE; i += 4)
        A_FREE(x_obj[i]);
    for (int i = 0; i < X_LIVE / 2; i++)
        A_FREE(x_more[i]);
    uint64_t held3 = affinity_pool_spans_held();
    CHECK_MSG(held3 <= held0 + 1, "spans held %llu after every free (before %llu)", (unsigned long long)held3,
              (unsigned long long)held0);
    CHECK(A_CHECK() == NULL);
}

/* Threads that end with live objects while others free the objects of the
 * previous ones: frees into abandoned segments, adoption and abandoning
 * race (the TSan build's point); no object is handed out twice. */
NOINLINE static void *ch_site(void) { return keep(A_MALLOC(32)); }
enum { CH_ROUNDS = 6, CH_N = 4000 };
static void *ch_obj[2][CH_N];
static _Atomic(int) ch_bad;
static void *ch_alloc(void *arg)
{
    void **out = arg;
    for (int i = 0; i < CH_N; i++)
        out[i] = memset(ch_site(), 0x80 | (i & 0x7f), 32);
    return NULL;
}
static void *ch_free(void *arg)
{
    void **in = arg;
    for (int i = 0; i < CH_N; i++) {
        if (((unsigned char *)in[i])[31] != (0x80 | (i & 0x7f)))
            atomic_fetch_add(&ch_bad, 1);
        A_FREE(in[i]);
    }
    return NULL;
}

static void case_thread_churn(void)
{
    for (int i = 0; i < M + 40; i++)
        A_FREE(ch_site());
    uint64_t held0 = affinity_pool_spans_held();
    for (int r = 0; r < CH_ROUNDS; r++) {
        pthread_t a, f;
        CHECK(pthread_create(&a, NULL, ch_alloc, ch_obj[r & 1]) == 0);
        if (r)
            CHECK(pthread_create(&f, NULL, ch_free, ch_obj[(r - 1) & 1]) == 0);
        pthread_join(a, NULL);
        if (r)
            pthread_join(f, NULL);
    }
    ch_free(ch_obj[(CH_ROUNDS - 1) & 1]);
    CHECK_MSG(atomic_load(&ch_bad) == 0, "%d objects changed while live", atomic_load(&ch_bad));
    uint64_t held1 = affinity_pool_spans_held();
    CHECK_MSG(held1 <= held0 + 1, "spans held %llu after every free (before %llu)", (unsigned long long)held1,
              (unsigned long long)held0);
    CHECK(A_CHECK() == NULL);
}

/* Pools that gain nothing are retired. A wrapper called from two sites
 * hands out short-lived temporaries (each freed at once: one segment); a
 * second wrapper's chain keeps 1000 objects of 48 bytes (48 KiB) live. After
 * 8 rechecks (one wrapper-chain walk or cache hit in 4096 re-unwinds) the
 * temporaries' class is retired and their wrapper passed below (neither
 * the wrapper cache nor the walk sees it again); the kept chain's pool is
 * not. */
NOINLINE static void *wrap_tmp(size_t n) { return keep(A_MALLOC(n)); }
NOINLINE static void *wrap_kept(size_t n) { return keep(A_MALLOC(n)); }
NOINLINE static void *tmp_a(size_t n) { return keep(wrap_tmp(n)); }
NOINLINE static void *tmp_b(size_t n) { return keep(wrap_tmp(n)); }
NOINLINE static void *kept_a(size_t n) { return keep(wrap_kept(n)); }
NOINLINE static void *kept_b(size_t n) { return keep(wrap_kept(n)); }
/* one call site each, so the chains are the same wherever the case asks */
NOINLINE static void *tmp_one(void) { return keep(fresh(tmp_a(48), 48)); }
NOINLINE static void *kept_one(void) { return keep(fresh(kept_a(48), 48)); }
enum { KEPT = 1000, RETIRE_ROUNDS = (MT_AFF_JUDGE + 2) * MT_AFF_RECHECK };
static void case_retire(void)
{
    static void *kept[KEPT];
    for (int i = 0; i < 40; i++) { /* two callers, two sizes: wrappers */
        A_FREE(tmp_one());
        A_FREE(tmp_b(40));
        A_FREE(kept_one());
        A_FREE(kept_b(40));
    }
    uint32_t retired0 = affinity_pool_state.retired;
    int k = 0;
    uint32_t tmp_pool = 0;
    for (int i = 0; i < RETIRE_ROUNDS; i++) {
        void *o = tmp_one();
        if (i == MT_AFF_RECHECK / 2) /* learned and counted, not yet judged */
            tmp_pool = affinity_pool_pool_id(o);
        A_FREE(o);
        if (k < KEPT && i % 8 == 0)
            kept[k++] = kept_one();
    }
    CHECK_MSG(tmp_pool != 0, "the temporaries were never pooled");
    CHECK_MSG(affinity_pool_state.retired > retired0, "no class retired after %d temporaries", RETIRE_ROUNDS);
    void *t = tmp_one();
    CHECK_MSG(affinity_pool_pool_id(t) == 0, "a retired class's object in pool %u", affinity_pool_pool_id(t));
    A_FREE(t);
    uint64_t walks = affinity_pool_walks();
    unsigned left = affinity_pool_wc_left();
    for (int i = 0; i < 1000; i++)
        A_FREE(tmp_one());
    CHECK_MSG(affinity_pool_walks() == walks && affinity_pool_wc_left() == left,
              "the wrapper of retired chains still looked up (%llu walks, %u cache hits)",
              (unsigned long long)(affinity_pool_walks() - walks), left - affinity_pool_wc_left());
    void *p = kept_one();
    uint32_t kp = affinity_pool_pool_id(p);
    CHECK_MSG(kp && affinity_pool_pool_id(kept[KEPT - 1]) == kp, "the kept chain's pool (%u) retired", kp);
    A_FREE(p);
    for (int i = 0; i < k; i++)
        A_FREE(kept[i]);
    CHECK(A_CHECK() == NULL);
}

#ifndef AFF_PREFIXED
/* A signal handler unwinds while the program is (often) inside the
 * unwinder itself: neither may allocate, both must finish. */
static volatile sig_atomic_t handled, allocated_inside, empty_unwinds;
static void on_prof(int sig)
{
    (void)sig;
    void *frames[32];
    uint64_t before = count_total().allocs;
    int n = mt_pal_callers(frames, 32);
    if (count_total().allocs != before)
        allocated_inside++;
    if (n <= 0)
        empty_unwinds++;
    handled++;
}

static void case_signal(void)
{
    signal(SIGPROF, on_prof);
    struct itimerval every = {{0, 200}, {0, 200}}, off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_PROF, &every, NULL);
    uintptr_t ips[16], sps[16];
    void *frames[16];
    for (int i = 0; i < 200000 || (handled < 50 && i < 20000000); i++) {
        A_FREE(x2(40)); /* walked (x86-64), unwound 1 time in MT_AFF_RECHECK */
        if (mt_pal_frames(ips, sps, 16) <= 0 || mt_pal_callers(frames, 16) <= 0)
            empty_unwinds++; /* the layer's unwinders, for the handler to interrupt */
    }
    setitimer(ITIMER_PROF, &off, NULL);
    CHECK_MSG(handled >= 50, "only %d signals handled", (int)handled);
    CHECK_MSG(!allocated_inside, "the unwinder allocated %d times", (int)allocated_inside);
    CHECK(!empty_unwinds);
    CHECK_MSG(affinity_pool_reentries() == 0, "malloc re-entered from the unwinder %llu times",
              (unsigned long long)affinity_pool_reentries());
}

/* A fork child's work: allocations through wrappers (unwinding) and their
 * frees; its exit status, 0 when the invariants hold. */
static int child_allocates(void)
{
    static void *p[1000];
    for (int j = 0; j < 1000; j++)
        p[j] = j & 1 ? x2(40) : x1(24);
    for (int j = 0; j < 1000; j++)
        A_FREE(p[j]);
    return A_CHECK() == NULL ? 0 : 3;
}

/* fork while another thread unwinds: the child allocates through wrappers
 * (unwinding), frees, and its invariants hold. */
static _Atomic(int) stop;
static void *unwinding(void *arg)
{
    (void)arg;
    while (!stop)
        A_FREE(y2(40));
    return NULL;
}

static void case_fork(void)
{
    pthread_t t;
    CHECK(pthread_create(&t, NULL, unwinding, NULL) == 0);
    for (int i = 0; i < 30; i++) {
        pid_t pid = fork();
        if (pid == 0) {
            alarm(10);
            _exit(child_allocates());
        }
        int status = 0;
        CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
        CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child %d: status %#x", i, status);
    }
    stop = 1;
    pthread_join(t, NULL);
    CHECK(A_CHECK() == NULL);
}

/* fork while a thread is held inside the unwinder: the fork must wait
 * until it has left (the unwinder's locks would stay held in the child), and
 * the child must then unwind. The holder cannot leave before the releaser
 * lets it go (200 ms after the fork starts), so a fork that waited returns
 * after the release, and its child's copy has the release too; without
 * the gate both see it unset, every time. (Whether the holder has stored
 * holder_left by then is a race: it stores it after leaving the gate.) */
static _Atomic(int) holder_left; /* 1 left with frames, 2 left with none */
static void *holder(void *arg)
{
    (void)arg;
    uintptr_t ips[16], sps[16];
    hold_here = 1;
    int n = mt_pal_frames(ips, sps, 16);
    atomic_store(&holder_left, n > 0 ? 1 : 2);
    return NULL;
}

static void *releaser(void *arg)
{
    (void)arg;
    usleep(200 * 1000);
    atomic_store(&holder_release, 1);
    return NULL;
}

static void case_fork_inside(void)
{
    pthread_t h, r;
    CHECK(pthread_create(&h, NULL, holder, NULL) == 0);
    while (!atomic_load(&holder_inside))
        usleep(1000);
    CHECK(pthread_create(&r, NULL, releaser, NULL) == 0);
    pid_t pid = fork(); /* returns once the holder has left the unwinder */
    if (pid == 0) {
        alarm(10);
        if (atomic_load(&holder_release) != 1)
            _exit(4); /* copied with a thread inside the unwinder */
        uintptr_t ips[16], sps[16];
        if (mt_pal_frames(ips, sps, 16) <= 0)
            _exit(5);
        _exit(child_allocates());
    }
    CHECK_MSG(atomic_load(&holder_release) == 1, "fork returned with a thread inside the unwinder");
    int status = 0;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
    CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
              "child: status %#x (exit 4: copied with a thread inside the unwinder)", status);
    pthread_join(h, NULL);
    pthread_join(r, NULL);
    CHECK_MSG(atomic_load(&holder_left) == 1, "the held thread's unwind found no frames");
}
#endif

/* Each case's name on stderr before it runs: a hung run (ctest's timeout)
 * shows where it stopped. */
#define RUN_CASE(c) (fprintf(stderr, "affinity_test: %s\n", #c), c())

int main(void)
{
    RUN_CASE(train);
    RUN_CASE(case_identity);
    RUN_CASE(case_wrapper_cache);
#if MT_AFF_FRAME_WALK
    RUN_CASE(case_wrapper_cache_ways);
#endif
#ifdef AFF_EXPORTED
    RUN_CASE(case_named_wrapper);
#endif
    RUN_CASE(case_type1);
    RUN_CASE(case_type1_pooled);
    RUN_CASE(case_type2);
    RUN_CASE(case_thresholds);
#if MT_AFF_FRAME_WALK
    RUN_CASE(case_learning_unwinds);
#endif
    RUN_CASE(case_give_back);
    RUN_CASE(case_segment_placement);
    RUN_CASE(case_checker);
    RUN_CASE(case_producer_consumer);
    RUN_CASE(case_thread_exit);
    RUN_CASE(case_thread_churn);
    RUN_CASE(case_retire);
#ifndef AFF_PREFIXED
    RUN_CASE(case_signal);
    RUN_CASE(case_fork);
    RUN_CASE(case_fork_inside);
#endif
    CHECK_MSG(affinity_pool_reentries() == 0, "malloc re-entered from the unwinder");
    printf("affinity_test: %d passed, %d failed\n", check_passed, check_failed);
    return check_failed != 0;
}

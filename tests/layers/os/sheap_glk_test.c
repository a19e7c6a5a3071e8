/* sheap_glk white-box, over a 1 MiB pool (16 granules) straight under the
 * socket: alignment and page-map ownership inside and outside the pool,
 * zero-fill reported only for never-used memory, exhaustion returning NULL
 * with ENOMEM and recovering after a free, coalescing back to one range,
 * large alignments, in-place resize, and the free-range invariant. */
#include <mortise/mortise.h>

#define MT_POOL_SIZE ((size_t)1 << 20)
#include <mortise/os/sheap_glk.h>

#define MT_PREFIX t_
#include <mortise/sockets/custom_socket.h>

MT_COMPOSE(sheap_glk, custom_socket)

#include "../../common/check.h"
#include "os_test.h"
#include <string.h>

#define G MT_GRANULE
enum { POOL_GRANULES = 16 };

static mt_range_fit *free_ranges(void) { return &sheap_glk_state.free; }
static bool holds(void) { return mt_range_fit_holds(free_ranges()); }

static void test_ownership(void)
{
    char *base = (char *)sheap_glk_pool_base();
    char *a = t_malloc(100);
    int on_stack;
    CHECK(base == sheap_glk_pool); /* the attribute aligned the pool */
    CHECK(sheap_glk_pool_granules() == POOL_GRANULES);
    CHECK(a == base && is_granule_aligned(a));
    CHECK(owner_of(a) == sheap_glk_id && payload_of(a) == 1);
    CHECK(t_malloc_usable_size(a) == G);
    CHECK(owner_of(&on_stack) == 0);
    CHECK(owner_of(base - 1) == 0 && owner_of(base + POOL_GRANULES * G) == 0);
    CHECK(!mt_pagemap_set_checked(base + POOL_GRANULES * G, G, 1)); /* outside: refused */
    CHECK(t_malloc_usable_size(&on_stack) == 0);
    t_free(&on_stack); /* foreign: ignored */
    t_free(a);
    CHECK(owner_of(a) == 0);
    CHECK(holds() && free_ranges()->ranges == 1 && free_ranges()->free_granules == POOL_GRANULES);
}

static void test_zero_fill_reporting(void)
{
    mt_ctx ctx = mt_ctx_for_alloc(G, 1);
    /* skip past the granules the previous test touched */
    char *used = t_malloc(G);
    char *fresh = mt_chain_alloc(&ctx);
    CHECK(fresh && ctx.zeroed == fresh); /* never handed out: known zero */
    memset(fresh, 0xee, G);
    t_free(fresh);
    t_free(used);
    ctx = mt_ctx_for_alloc(G, 1);
    char *reused = mt_chain_alloc(&ctx);
    CHECK(reused == used && ctx.zeroed != reused); /* reused: not claimed zero */
    t_free(reused);
    char *cleared = t_calloc(1, 2 * G); /* so calloc clears it */
    CHECK(cleared == used && is_zero(cleared, 2 * G));
    t_free(cleared);
    CHECK(holds());
}

static void test_exhaustion(void)
{
    char *block[POOL_GRANULES + 1];
    int n = 0;
    errno = 0;
    while (n <= POOL_GRANULES && (block[n] = t_malloc(G)))
        n++;
    CHECK(n == POOL_GRANULES);
    CHECK(errno == ENOMEM);
    CHECK(free_ranges()->ranges == 0 && free_ranges()->free_granules == 0);
    t_free(block[5]);
    CHECK(t_malloc(2 * G) == NULL); /* one free granule only */
    char *again = t_malloc(G);
    CHECK(again == block[5]);
    /* free in a scrambled order: everything merges back into one range */
    for (int i = 0; i < n; i++)
        t_free(block[(i * 7) % POOL_GRANULES]);
    CHECK(holds() && free_ranges()->ranges == 1 && free_ranges()->free_granules == POOL_GRANULES);
    char *all = t_malloc(POOL_GRANULES * G);
    CHECK(all == (char *)sheap_glk_pool_base());
    t_free(all);
    errno = 0;
    CHECK(t_malloc((POOL_GRANULES + 1) * G) == NULL && errno == ENOMEM);
    CHECK(t_malloc((size_t)1 << 40) == NULL && errno == ENOMEM);
    CHECK(holds());
}

static void test_alignment(void)
{
    char *a = t_malloc(1);
    char *b = t_aligned_alloc(4 * G, 1);
    CHECK(a && b && ((uintptr_t)b & (4 * G - 1)) == 0);
    CHECK(b == (char *)mt_align_up((uintptr_t)a + G, 4 * G)); /* the first aligned free granule */
    CHECK(holds()); /* the granules skipped for alignment stay free */
    char *c = t_malloc(G);
    CHECK(c == (b == a + G ? b + G : a + G)); /* first fit: the gap before b, if any */
    /* a 1 MiB pool holds exactly one 1 MiB-aligned granule: served iff free */
    char *aligned_granule = (char *)mt_align_up((uintptr_t)sheap_glk_pool_base(), (size_t)1 << 20);
    char *d = t_aligned_alloc((size_t)1 << 20, 1);
    bool taken = aligned_granule == a || aligned_granule == b || aligned_granule == c;
    CHECK(taken ? d == NULL : d == aligned_granule);
    t_free(d);
    t_free(a);
    t_free(b);
    t_free(c);
    CHECK(holds() && free_ranges()->ranges == 1);
}

static void test_resize_in_place(void)
{
    char *p = t_malloc(G), *q = t_malloc(3 * G), *guard = t_malloc(G);
    CHECK(p && q == p + G && guard == q + 3 * G);
    p[0] = 42;
    t_free(q);
    char *r = t_realloc(p, 4 * G); /* grows into q's granules */
    CHECK(r == p && t_malloc_usable_size(r) == 4 * G && r[0] == 42);
    CHECK(t_realloc(r, 8 * G) != r); /* guard is in the way: moved */
    r = t_malloc(4 * G);
    CHECK(r == p);
    char *s = t_realloc(r, G); /* shrinks, the tail is free again */
    CHECK(s == p && t_malloc_usable_size(s) == G);
    CHECK(t_malloc(3 * G) == p + G);
    CHECK(holds());
}

int main(void)
{
    mt_os_stats stats;
    test_ownership();
    test_zero_fill_reporting();
    test_exhaustion();
    test_alignment();
    test_resize_in_place();
    mt_os_stats_read(&stats);
    CHECK(stats.mapped == POOL_GRANULES * G && stats.returned == 0);
    return check_report("sheap_glk_test");
}

/* brk_heap white-box: blocks straight from the OS layer (no trunk layer), so
 * every t_malloc is one granule block of the heap. Checks alignment, page-map
 * ownership, first-fit reuse and coalescing, zero-filled reuse, RSS falling
 * after free, the break lowered when the top is freed, sharing the break
 * with a foreign sbrk, in-place resize, errno, and a two-thread stress with
 * the free-range invariant checked at the end. */
#include <mortise/mortise.h>
#define MT_LARGE_KEEP 0 /* the heap's own behaviour; the keep: large_keep_test.c */
#include <mortise/os/brk_heap.h>

#define MT_PREFIX t_
#include <mortise/sockets/custom_socket.h>

MT_COMPOSE(brk_heap, custom_socket)

#include "../../common/check.h"
#define OS_TEST_T_SOCKET
#include "os_test.h"
#include <string.h>
#include <unistd.h>

#define G MT_GRANULE

static bool holds(void) { return mt_range_fit_holds(&brk_heap_state.free); }

static void test_alignment_and_ownership(void)
{
    char *blk[3];
    granule_blocks_make(brk_heap_id, blk);
    /* the heap is contiguous: they come from the break region */
    CHECK((char *)sbrk(0) >= blk[2] + G);
    granule_blocks_free(blk);
    CHECK(holds());
}

static void test_reuse_and_coalescing(void) { check_first_fit_and_coalescing(holds); }

static void test_rss_falls_after_free(void)
{
    size_t len = 64u << 20;
    char *big = t_malloc(len), *guard = t_malloc(1); /* guard: big is not on top */
    CHECK(big && guard && guard > big);
    memset(big, 1, len);
    size_t touched = rss_bytes();
    t_free(big);
    size_t after = rss_bytes();
    CHECK(touched > after && touched - after >= len - (4u << 20));
    t_free(guard);
    CHECK(holds());
}

static void test_break_lowered_when_top_freed(void)
{
    /* every block freed so far was on top or merged with it: all given back */
    CHECK(brk_heap_state.free.ranges == 0 && brk_heap_state.top == (char *)sbrk(0));
    char *before = sbrk(0);
    char *p = t_malloc(8 * G);
    CHECK(p && (char *)sbrk(0) >= p + 8 * G);
    t_free(p);
    CHECK((char *)sbrk(0) <= before + G); /* the heap's top went back */
    CHECK(brk_heap_state.top == (char *)sbrk(0));
    CHECK(holds());
}

static void test_foreign_break(void)
{
    char *a = t_malloc(G);
    char *foreign = sbrk(1000); /* someone else (libc) moves the break, unaligned */
    char *foreign_end = foreign + 1000;
    char *b = t_malloc(G);
    CHECK(a && b && is_granule_aligned(b) && b >= foreign_end);
    t_free(b);
    CHECK((char *)sbrk(0) >= foreign_end); /* never lowered below someone else's memory */
    t_free(a);
    /* a is below the foreign part: it stays a free range, the break stays */
    CHECK((char *)sbrk(0) >= foreign_end);
    CHECK(holds());
    char *a2 = t_malloc(G);
    CHECK(a2 == a);
    t_free(a2);
}

static void test_resize_in_place(void)
{
    char *p = t_malloc(4 * G);
    CHECK(p);
    memset(p, 7, 4 * G);
    char *q = t_realloc(p, 12 * G); /* on top: the break moves */
    CHECK(q == p && t_malloc_usable_size(q) == 12 * G && q[4 * G - 1] == 7);
    q = t_realloc(q, G); /* shrink: the tail goes back */
    CHECK(q == p && t_malloc_usable_size(q) == G && q[0] == 7);
    char *next = t_malloc(2 * G), *guard = t_malloc(G);
    CHECK(next == p + G); /* the heap continues where the tail was */
    t_free(next);
    q = t_realloc(q, 3 * G); /* grows into the free granules after it */
    CHECK(q == p && t_malloc_usable_size(q) == 3 * G);
    t_free(q);
    t_free(guard);
    CHECK(holds());
}

static void test_errors_and_threads(void)
{
    errno = 0;
    CHECK(t_malloc((size_t)1 << 46) == NULL && errno == ENOMEM); /* 64 TiB: the break cannot move */
    check_errno_and_threads(holds);                              /* free: madvise, sbrk */
}

int main(void)
{
    test_alignment_and_ownership();
    test_reuse_and_coalescing();
    test_rss_falls_after_free();
    test_break_lowered_when_top_freed();
    test_foreign_break();
    test_resize_in_place();
    test_errors_and_threads();
    return check_report("brk_heap_test");
}

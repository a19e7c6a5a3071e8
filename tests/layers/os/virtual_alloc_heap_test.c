/* virtual_alloc_heap white-box: blocks straight from the OS layer (no trunk
 * layer), with 16 MiB reservations so that several are made. Checks
 * alignment and page-map ownership, first-fit reuse and coalescing inside a
 * reservation, zero-filled reuse, the committed count (mapped) following the
 * blocks handed out and RSS falling after free (decommit), a request longer
 * than a reservation getting one of its own that is released when freed, a
 * refused commit failing the request cleanly (ENOMEM, the granules free
 * again), in-place resize, errno, and a two-thread stress with every
 * reservation's free-range invariant checked at the end. */
#include <mortise/mortise.h>
#include <stdbool.h>
#include <stddef.h>

/* A commit the test can make the OS refuse (the Windows commit limit). */
static bool refuse_commit;
static bool test_commit(void *p, size_t len);
#define MT_VA_COMMIT test_commit
#define MT_RESERVE_SIZE ((size_t)16 << 20)
#define MT_LARGE_KEEP 0 /* the heap's own behaviour; the keep: large_keep_test.c */
#include <mortise/os/virtual_alloc_heap.h>

#define MT_PREFIX t_
#include <mortise/sockets/custom_socket.h>

MT_COMPOSE(virtual_alloc_heap, custom_socket)

#include "../../common/check.h"
#define OS_TEST_T_SOCKET
#include "os_test.h"

#define G MT_GRANULE
#define STATE virtual_alloc_heap_state

static bool test_commit(void *p, size_t len) { return !refuse_commit && mt_pal_commit(p, len); }

static bool holds(void)
{
    for (unsigned i = 0; i < STATE.count; i++)
        if (!mt_range_fit_holds(&STATE.r[i].free))
            return false;
    return true;
}

static size_t committed(void)
{
    mt_os_stats s;
    mt_os_stats_read(&s);
    return s.mapped;
}

static void test_alignment_and_ownership(void)
{
    char *blk[3];
    granule_blocks_make(virtual_alloc_heap_id, blk);
    CHECK(is_zero(blk[0], G) && is_zero(blk[1], 2 * G) && is_zero(blk[2], G));
    CHECK(STATE.count == 1 && committed() == 4 * G);
    granule_blocks_free(blk);
    CHECK(committed() == 0 && holds());
}

static void test_reuse_and_coalescing(void)
{
    check_first_fit_and_coalescing(holds);
    char *a = t_malloc(G), *b = t_malloc(2 * G);
    CHECK(committed() == 3 * G); /* exactly the blocks handed out */
    t_free(a);
    CHECK(committed() == 2 * G);
    t_free(b);
    CHECK(committed() == 0 && holds());
}

static void test_rss_falls_after_free(void)
{
    size_t len = 12u << 20;
    char *big = t_malloc(len);
    CHECK(big && STATE.count == 1);
    memset(big, 1, len);
    size_t touched = rss_bytes();
    t_free(big);
    size_t after = rss_bytes();
    CHECK(touched > after && touched - after >= len - (2u << 20));
    CHECK(holds());
}

static void test_own_reservation(void)
{
    unsigned before = STATE.count;
    size_t len = 40u << 20; /* longer than a reservation */
    char *big = t_malloc(len), *small = t_malloc(G);
    CHECK(big && small && STATE.count == before + 1);
    CHECK(committed() == len + G);
    big[0] = 1;
    big[len - 1] = 2;
    t_free(big); /* its reservation is unused now: released */
    CHECK(STATE.count == before);
    CHECK(!mt_pal_page_mapped(big));
    t_free(small);
    CHECK(STATE.count == before && committed() == 0 && holds()); /* the last one stays */
}

static void test_refused_commit(void)
{
    char *first = t_malloc(G);
    CHECK(first);
    t_free(first);
    refuse_commit = true;
    errno = 0;
    CHECK(t_malloc(3 * G) == NULL && errno == ENOMEM);
    CHECK(t_calloc(1, G) == NULL && errno == ENOMEM);
    CHECK(t_malloc(64u << 20) == NULL && errno == ENOMEM); /* a new reservation, given back */
    CHECK(STATE.count == 1);
    char *p = t_malloc(0);
    CHECK(p == NULL);
    refuse_commit = false;
    CHECK(committed() == 0 && holds());
    char *again = t_malloc(3 * G); /* the granules taken were given back */
    CHECK(again == first && is_zero(again, 3 * G));
    refuse_commit = true;
    char *grown = t_realloc(again, 8 * G); /* in place refused, moving refused */
    CHECK(grown == NULL && errno == ENOMEM && t_malloc_usable_size(again) == 3 * G);
    refuse_commit = false;
    t_free(again);
    CHECK(committed() == 0 && holds());
}

static void test_resize_in_place(void)
{
    char *p = t_malloc(4 * G), *guard_far = NULL;
    CHECK(p);
    memset(p, 7, 4 * G);
    char *q = t_realloc(p, 12 * G); /* the granules after it are free */
    CHECK(q == p && t_malloc_usable_size(q) == 12 * G && q[4 * G - 1] == 7 && is_zero(q + 4 * G, 8 * G));
    CHECK(committed() == 12 * G);
    q = t_realloc(q, G); /* shrink: the tail is decommitted */
    CHECK(q == p && t_malloc_usable_size(q) == G && q[0] == 7 && committed() == G);
    char *next = t_malloc(2 * G);
    guard_far = t_malloc(G);
    CHECK(next == p + G);
    t_free(next);
    q = t_realloc(q, 3 * G);
    CHECK(q == p && t_malloc_usable_size(q) == 3 * G);
    t_free(q);
    t_free(guard_far);
    CHECK(committed() == 0 && holds());
}

static void test_errors_and_threads(void)
{
    errno = 0;
    CHECK(t_malloc((size_t)1 << 62) == NULL && errno == ENOMEM); /* no such address space */
    check_errno_and_threads(holds);                              /* free: decommit */
    CHECK(committed() == 0);
}

int main(void)
{
    test_alignment_and_ownership();
    test_reuse_and_coalescing();
    test_rss_falls_after_free();
    test_own_reservation();
    test_refused_commit();
    test_resize_in_place();
    test_errors_and_threads();
    return check_report("virtual_alloc_heap_test");
}

/* thread_cache's check catches a room count out of step with its list, a
 * cycle in a list and room in a class of the table it does not cover (free's
 * hit would take blocks there), and holds again once they are repaired.
 * model: mmap_heap::segfit_lk::thread_cache::custom_socket(prefix=t_) */
#include <mortise/mortise.h>
#include <mortise/os/mmap_heap.h>
#define MT_SYNC spinlock
#include <mortise/layers/segfit_lk.h>
#include <mortise/layers/thread_cache.h>
#define MT_PREFIX t_
#include <mortise/sockets/custom_socket.h>
MT_COMPOSE(mmap_heap, segfit_lk, thread_cache, custom_socket)
#include "check_catch.h"

int main(void)
{
    void *a = t_malloc(100), *b = t_malloc(100);
    CHECK(a && b);
    t_free(a);
    t_free(b); /* the class's list: b, a, ... */
    EXPECT_HOLDS();
    size_t c = 0;
    while (c < thread_cache_bins && thread_cache_tl.head[c] != b)
        c++;
    CHECK(c < thread_cache_bins);
    if (c == thread_cache_bins)
        return check_report("check_thread_cache");
    thread_cache_tl.room[c]++;
    EXPECT_BROKEN("thread_cache", "cached blocks + room != capacity");
    thread_cache_tl.room[c]--;
    EXPECT_HOLDS();
    void *link = *(void **)a;
    *(void **)a = b; /* b, a, b, a, ... */
    EXPECT_BROKEN("thread_cache", "list longer than its capacity");
    *(void **)a = link;
    EXPECT_HOLDS();
    size_t u = 0;
    while (u < thread_cache_bins && thread_cache_covers(u))
        u++;
    if (u < thread_cache_bins) { /* (every class of the table may be cached) */
        thread_cache_tl.room[u] = 1;
        EXPECT_BROKEN("thread_cache", "room or blocks in a class the cache does not cover");
        thread_cache_tl.room[u] = 0;
        EXPECT_HOLDS();
    } else {
        printf("check_thread_cache: every class of the table is cached: no uncovered class to test\n");
    }
    return check_report("check_thread_cache");
}

/* thread_cache's check catches a room count out of step with its list and
 * a cycle in a list, and holds again once they are repaired.
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
    return check_report("check_thread_cache");
}

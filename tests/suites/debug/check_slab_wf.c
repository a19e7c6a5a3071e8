/* slab_wf's check catches a block listed twice in its slab's own list
 * (a double free the fast path took), and holds again once it is repaired.
 * model: mmap_heap::slab_wf::custom_socket(prefix=t_) */
#include <mortise/mortise.h>
#include <mortise/os/mmap_heap.h>
#define MT_SIZE_HANDLE 0, 65536
#include <mortise/layers/slab_wf.h>
#define MT_PREFIX t_
#include <mortise/sockets/custom_socket.h>
MT_COMPOSE(mmap_heap, slab_wf, custom_socket)
#include "check_catch.h"

int main(void)
{
    void *a = t_malloc(64), *b = t_malloc(64);
    CHECK(a && b);
    t_free(a); /* onto its slab's own list */
    EXPECT_HOLDS();
    void *link = *(void **)a;
    *(void **)a = a; /* a, a, ...: listed twice */
    EXPECT_BROKEN("slab_wf", "free list holds a foreign, duplicate or never-carved block");
    *(void **)a = link;
    EXPECT_HOLDS();
    t_free(b);
    EXPECT_HOLDS();
    return check_report("check_slab_wf");
}

/* segfit_lf's check catches a cycle in a class's free list (a block listed
 * twice), and holds again once it is repaired.
 * model: mmap_heap::segfit_lf::custom_socket(prefix=t_) */
#include <mortise/mortise.h>
#include <mortise/os/mmap_heap.h>
#include <mortise/layers/segfit_lf.h>
#define MT_PREFIX t_
#include <mortise/sockets/custom_socket.h>
MT_COMPOSE(mmap_heap, segfit_lf, custom_socket)
#include "check_catch.h"

int main(void)
{
    void *a = t_malloc(1000), *b = t_malloc(1000);
    CHECK(a && b);
    t_free(a);
    t_free(b); /* the class's list: b, a, ... */
    EXPECT_HOLDS();
    void *link = *(void **)a;
    *(void **)a = b; /* b, a, b, a, ... */
    EXPECT_BROKEN("segfit_lf", "a block listed twice (a cycle)");
    *(void **)a = link;
    EXPECT_HOLDS();
    return check_report("check_segfit_lf");
}

/* tlsf_glk's check catches a first-level bitmap that disagrees with the
 * lists and a free block's size out of step, and holds again once they are
 * repaired. model: mmap_heap::tlsf_glk::custom_socket(prefix=t_) */
#include <mortise/mortise.h>
#include <mortise/os/mmap_heap.h>
#include <mortise/layers/tlsf_glk.h>
#define MT_PREFIX t_
#include <mortise/sockets/custom_socket.h>
MT_COMPOSE(mmap_heap, tlsf_glk, custom_socket)
#include "check_catch.h"

int main(void)
{
    void *a = t_malloc(1000), *b = t_malloc(1000), *c = t_malloc(1000);
    CHECK(a && b && c);
    t_free(b); /* a free block between two used ones */
    EXPECT_HOLDS();
    unsigned fl = 0;
    while (tlsf_glk_state.fl_map >> fl & 1) /* a level with no list: claim it has one */
        fl++;
    tlsf_glk_state.fl_map ^= 1u << fl;
    EXPECT_BROKEN("tlsf_glk", "first-level bitmap");
    tlsf_glk_state.fl_map ^= 1u << fl;
    EXPECT_HOLDS();
    t_free(a);
    t_free(c);
    EXPECT_HOLDS();
    return check_report("check_tlsf_glk");
}

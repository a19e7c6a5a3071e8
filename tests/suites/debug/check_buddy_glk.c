/* buddy_glk's check catches wrong chunk counts and a wrong nonempty-level
 * mask, and holds again once they are repaired.
 * model: mmap_heap::buddy_glk(size_handle=[0, SIZE_MAX])::custom_socket(prefix=t_) */
#include <mortise/mortise.h>
#include <mortise/os/mmap_heap.h>
#define MT_SIZE_HANDLE 0, SIZE_MAX
#include <mortise/layers/buddy_glk.h>
#define MT_PREFIX t_
#include <mortise/sockets/custom_socket.h>
MT_COMPOSE(mmap_heap, buddy_glk, custom_socket)
#include "check_catch.h"

int main(void)
{
    void *a = t_malloc(5000), *b = t_malloc(5000);
    CHECK(a && b);
    t_free(a);
    EXPECT_HOLDS();
    buddy_glk_state.free_chunks++;
    EXPECT_BROKEN("buddy_glk", "chunk counts");
    buddy_glk_state.free_chunks--;
    EXPECT_HOLDS();
    uint32_t mask = buddy_glk_state.nonempty;
    unsigned level = 0;
    while (mask >> level & 1) /* a level with no free block: claim it has one */
        level++;
    buddy_glk_state.nonempty |= (uint32_t)1 << level;
    EXPECT_BROKEN("buddy_glk", "nonempty-levels mask");
    buddy_glk_state.nonempty = mask;
    EXPECT_HOLDS();
    t_free(b);
    EXPECT_HOLDS();
    return check_report("check_buddy_glk");
}

/* delayed_free's check catches a write into a quarantined block (its fill
 * pattern changed) and a byte count out of step with the ring, and holds
 * again once they are repaired. Two instances with different delayed_fill
 * in one composition keep their own fill sizes (layer_end.h forgets the
 * slot): the same write, 100 bytes into a 256-byte block, is inside the
 * pattern of the default (192: the first 128 bytes and the last 64) but
 * not of delayed_fill=80 (the first 16 and the last 64).
 * model: mmap_heap::segfit_lk::delayed_free(delayed_fill=80) as narrow
 *        ::delayed_free as wide::custom_socket(prefix=t_) */
#include <mortise/mortise.h>
#include <mortise/os/mmap_heap.h>
#define MT_SYNC spinlock
#include <mortise/layers/segfit_lk.h>
#define MT_NAME narrow
#define MT_DELAYED_FILL_SIZE ((size_t)80)
#include <mortise/layers/delayed_free.h>
#define MT_NAME wide
#include <mortise/layers/delayed_free.h>
#define MT_PREFIX t_
#include <mortise/sockets/custom_socket.h>
MT_COMPOSE(mmap_heap, segfit_lk, narrow, wide, custom_socket)
#include "check_catch.h"

int main(void)
{
    CHECK(narrow_fill_head(256) == 16 && wide_fill_head(256) == 128);
    char *p = t_malloc(256);
    CHECK(p != NULL);
    t_free(p); /* quarantined by wide, the layer the program freed it to */
    CHECK(wide_quarantined_blocks() == 1 && narrow_quarantined_blocks() == 0);
    EXPECT_HOLDS();
    char saved = p[100];
    p[100] = 1; /* a write after free */
    EXPECT_BROKEN("wide", "quarantined block's fill pattern changed");
    p[100] = saved;
    EXPECT_HOLDS();
    wide_q.bytes++;
    EXPECT_BROKEN("wide", "quarantined bytes != the blocks' sizes");
    wide_q.bytes--;
    EXPECT_HOLDS();
    /* narrow's pattern does not cover byte 100 of a 256-byte block */
    p = t_malloc(256);
    CHECK(p != NULL);
    narrow_fill(p, 256);
    p[100] = 1;
    CHECK(narrow_fill_intact(p, 256) && !wide_fill_intact(p, 256));
    t_free(p);
    return check_report("check_delayed_free");
}

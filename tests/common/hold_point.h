/* tests/common/hold_point.h — hold one thread at a point inside the
 * allocator (a test hook macro of the layer or port layer, defined as
 * hold_point() before the allocator's headers are included) while another
 * thread acts, e.g. forks. The thread that set hold_here stops at the next
 * pass through the hook, says so in holder_inside and waits until
 * holder_release is set; every other thread passes straight through. */
#ifndef MORTISE_TESTS_HOLD_POINT_H
#define MORTISE_TESTS_HOLD_POINT_H

#include <stdatomic.h>
#include <unistd.h>

static _Thread_local int hold_here;
static _Atomic(int) holder_inside, holder_release;

static void hold_point(void)
{
    if (!hold_here)
        return;
    hold_here = 0;
    atomic_store(&holder_inside, 1);
    while (!atomic_load(&holder_release))
        usleep(1000);
}

#endif

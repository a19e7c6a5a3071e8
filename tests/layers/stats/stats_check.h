/* tests/layers/stats: the harness of tests/common/check.h (CHECK_MSG prints
 * the values that failed), a cast for printing counters, and a counter of
 * a statistics layer summed over every thread's slot. */
#include "../../common/check.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define ULL(x) ((unsigned long long)(x))

#ifdef MT_STATS_THREADS
/* One counter summed over every thread's slot of a statistics layer (the
 * counter's address in slot 0, the slots' size). */
static inline uint64_t slots_sum(const _Atomic(uint64_t) *first, size_t slot_size)
{
    uint64_t n = 0;
    for (unsigned s = 0; s < MT_STATS_THREADS; s++)
        n += *(const _Atomic(uint64_t) *)((const char *)first + s * slot_size);
    return n;
}
#define SLOTS_SUM(state, counter) slots_sum(&(state).slot[0].counter, sizeof(state).slot[0])
#endif

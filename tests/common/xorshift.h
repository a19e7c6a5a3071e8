/* tests/common/xorshift.h — Marsaglia's xorshift64 (shifts 13, 7, 17), the
 * seeded generator of the white-box tests and of the affinity benchmarks
 * (bench/affinity): the same seed makes the same choices on every run and
 * under every allocator. The caller keeps the state (any nonzero seed). */
#ifndef MORTISE_TEST_XORSHIFT_H
#define MORTISE_TEST_XORSHIFT_H
#include <stdint.h>

static inline uint64_t xorshift(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}
#endif

/* sizeclass=prime — class sizes that are a prime number of 16-byte units,
 * to spread cache-set conflicts (the paper's slab_wf policy).
 *
 * Why: blocks of one class sit at multiples of the class size from a
 * slab's start. If the size is 2^j units, block starts use only 1/2^j of
 * the cache's sets and hot first words of neighbouring blocks evict each
 * other; an odd number of units spreads them over every set, and sizes
 * that are primes are also pairwise coprime, so blocks of different
 * classes do not line up either (SuperMalloc's argument, made for cache
 * lines; here for the 16-byte allocation unit so the classes stay dense).
 * The rule, in units u of 16 bytes:
 *   - u = 1..8 (16..128 bytes): every size. A block of at most two cache
 *     lines gains nothing from an odd stride, and anything coarser wastes
 *     more than 15 bytes on the most common sizes.
 *   - above: from class c the next class is the largest prime (or 9 or 15,
 *     SuperMalloc's two near-primes that close the gaps after 7 and 13)
 *     in (c, c * 9/8]; when that interval holds none, the next prime above
 *     c. So classes grow by at most 12.5 % wherever primes are dense enough
 *     (from about 2 KiB up always), by a prime gap below that: 144, 176,
 *     208, 240, 272, 304, 368, 464, 496, ... 272848 (17053 units), the first
 *     class of at least 256 KiB: 78 classes.
 * Worst internal fragmentation (measured by tests/policies/sizeclass/sizeclass_test):
 *   15 bytes up to 128 B; 25.7 % above 128 B (369 B -> 464 B: 23 and 29
 *   units, a prime gap); 12.4 % above 2 KiB.
 * Sizes above 272848 have no class (index returns MT_SZCLS_prime_CLASSES).
 * O(1): policy/sizeclass/table.h. Key for getmeta's class hint: 5.
 */
/* The policy's descriptor (core/describe.h): the data tools/describe_layers.py
 * reads; describe mode (MT_DESCRIBE) skips the rest. */
#define MT_POLICY_DESCRIPTOR_sizeclass_prime(POLICY, SLOT) POLICY(sizeclass, prime, policy)
#if !defined(MORTISE_POLICY_SIZECLASS_PRIME_H) && !defined(MT_DESCRIBE)
#define MORTISE_POLICY_SIZECLASS_PRIME_H
#include "table.h"

#define MT_SZCLS_prime_KEY 5

/* Written by `sizeclass_test --tables` from the rule above: 78 classes */
#define MT_SZCLS_prime_CLASSES 78
/* clang-format off */
MT_UNUSED static const uint32_t mt_szcls_prime_sizes[78] = {
    16, 32, 48, 64, 80, 96, 112, 128,
    144, 176, 208, 240, 272, 304, 368, 464,
    496, 592, 656, 688, 752, 848, 944, 976,
    1072, 1168, 1264, 1328, 1424, 1552, 1744, 1808,
    2032, 2224, 2416, 2672, 2896, 3184, 3568, 3856,
    4336, 4688, 5072, 5648, 6352, 7088, 7856, 8752,
    9808, 10928, 12176, 13648, 15248, 17104, 19216, 21232,
    23824, 26704, 30032, 33776, 37936, 42608, 47536, 53296,
    59824, 67216, 75568, 84944, 95248, 107056, 120368, 135376,
    152176, 171056, 192176, 215984, 242768, 272848,
};
MT_UNUSED static const uint8_t mt_szcls_prime_first[97] = {
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 10, 10, 11, 11, 12,
    12, 13, 14, 14, 15, 15, 15, 16, 17, 17, 18, 20, 21, 21, 22, 23,
    24, 25, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 39,
    40, 41, 43, 43, 44, 45, 46, 46, 47, 48, 49, 50, 51, 51, 52, 53,
    53, 54, 55, 56, 57, 57, 58, 59, 59, 60, 61, 62, 63, 63, 64, 65,
    65, 66, 67, 68, 69, 69, 70, 71, 71, 72, 73, 74, 75, 75, 76, 77,
    77,
};
MT_UNUSED static const uint8_t mt_szcls_prime_small[MT_SZCLS_SMALL_ENTRIES] = {
    0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 10, 10, 11, 11,
    12, 12, 13, 13, 14, 14, 14, 14, 15, 15, 15, 15, 15, 15, 16, 16,
    17, 17, 17, 17, 17, 17, 18, 18, 18, 18, 19, 19, 20, 20, 20, 20,
    21, 21, 21, 21, 21, 21, 22, 22, 22, 22, 22, 22, 23, 23, 24, 24,
    24,
};
/* clang-format on */

MT_INLINE size_t mt_szcls_prime_size(size_t index) { return mt_szcls_prime_sizes[index]; }
MT_INLINE size_t mt_szcls_prime_index(size_t size)
{
    return mt_szcls_table_index(size, MT_SZCLS_TABLE(prime));
}
#endif

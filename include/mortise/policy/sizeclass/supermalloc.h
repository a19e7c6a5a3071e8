/* sizeclass=supermalloc — SuperMalloc's size classes (Kuszmaul, ISMM 2015).
 *
 * Our reading of the paper (section "Small Objects" and "Medium Objects")
 * and of its generator (src/objsizes.cc), with every class a multiple of 16:
 *   small: sizes c * 2^k for c in 4..7 — "a 1, two arbitrary digits, then
 *     zeros" in binary: 4 per doubling, at most 25 % apart — up to four
 *     cache lines. SuperMalloc starts at 8 (8, 10, 12, 14, 16, 20, ...);
 *     the paper plans to drop the sizes that are not aligned, keeping
 *     8, 16, 24, 32 and then the 4-per-doubling scheme; at our 16-byte
 *     alignment that is 16, 32, 48, 64, 80, 96, 112, 128, 160, 192, 224, 256.
 *   medium: a whole number of 64-byte cache lines, from 5 to 255 lines:
 *     the powers of two (512, 1024, ... 8192), and primes, so that objects
 *     of one class and of different classes fall into different cache
 *     sets; 9 and 15 lines are added to close the gaps after 7 and 13, and
 *     a prime is kept only when the previous kept one is below 0.7 times
 *     the prime after it, which spaces them about 40 % apart: 320, 448,
 *     576, 704, 960, 1216, 1472, 1984, 2752, 3904, 5312, 7232, 10048, 14272
 *     (5, 7, 9, 11, 15, 19, 23, 31, 43, 61, 83, 113, 157, 223 lines). The
 *     paper's figure lists 13 and 17 lines where the generator, which we
 *     follow, has 15 and 19.
 *   large: powers of two from 16 KiB, less one page from 256 KiB (SuperMalloc
 *     keeps a page of each chunk for its size list): 16384, 32768, 65536,
 *     131072, 258048, 520192, 1044480, the last below half SuperMalloc's
 *     2 MiB chunk. Larger ("huge") objects are whole chunks there, not
 *     classes: sizes above 1044480 have no class here (index returns
 *     MT_SZCLS_supermalloc_CLASSES).
 * Worst internal fragmentation (measured by tests/policies/sizeclass/sizeclass_test):
 *   15 bytes up to 128 B; 24.0 % up to 256 B (129 B -> 160 B); 42.0 % from
 *   257 B to 16 KiB (10049 B -> 14272 B); 101.5 % above (258049 B ->
 *   520192 B; 99.9 % for 16385 B -> 32768 B): SuperMalloc accepts it
 *   because the untouched pages of a large object are never committed; a
 *   layer that touches or keeps them pays it.
 * O(1): policy/sizeclass/table.h. Key for getmeta's class hint: 4.
 */
/* The policy's descriptor (core/describe.h): the data tools/describe_layers.py
 * reads; describe mode (MT_DESCRIBE) skips the rest. */
#define MT_POLICY_DESCRIPTOR_sizeclass_supermalloc(POLICY, SLOT) POLICY(sizeclass, supermalloc, policy)
#if !defined(MORTISE_POLICY_SIZECLASS_SUPERMALLOC_H) && !defined(MT_DESCRIBE)
#define MORTISE_POLICY_SIZECLASS_SUPERMALLOC_H
#include "table.h"

#define MT_SZCLS_supermalloc_KEY 4

/* Written by `sizeclass_test --tables` from the rule above: 38 classes */
#define MT_SZCLS_supermalloc_CLASSES 38
/* clang-format off */
MT_UNUSED static const uint32_t mt_szcls_supermalloc_sizes[38] = {
    16, 32, 48, 64, 80, 96, 112, 128,
    160, 192, 224, 256, 320, 448, 512, 576,
    704, 960, 1024, 1216, 1472, 1984, 2048, 2752,
    3904, 4096, 5312, 7232, 8192, 10048, 14272, 16384,
    32768, 65536, 131072, 258048, 520192, 1044480,
};
MT_UNUSED static const uint8_t mt_szcls_supermalloc_first[112] = {
    0, 1, 2, 3, 4, 5, 6, 7, 8, 8, 9, 9, 10, 10, 11, 11,
    12, 12, 13, 13, 13, 13, 14, 14, 15, 16, 16, 17, 17, 17, 17, 18,
    19, 19, 20, 20, 21, 21, 21, 21, 23, 23, 23, 24, 24, 24, 24, 24,
    26, 26, 26, 27, 27, 27, 27, 28, 29, 29, 30, 30, 30, 30, 31, 31,
    32, 32, 32, 32, 32, 32, 32, 32, 33, 33, 33, 33, 33, 33, 33, 33,
    34, 34, 34, 34, 34, 34, 34, 34, 35, 35, 35, 35, 35, 35, 35, 35,
    36, 36, 36, 36, 36, 36, 36, 36, 37, 37, 37, 37, 37, 37, 37, 37,
};
MT_UNUSED static const uint8_t mt_szcls_supermalloc_small[MT_SZCLS_SMALL_ENTRIES] = {
    0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 8, 9, 9, 10, 10, 11,
    11, 12, 12, 12, 12, 13, 13, 13, 13, 13, 13, 13, 13, 14, 14, 14,
    14, 15, 15, 15, 15, 16, 16, 16, 16, 16, 16, 16, 16, 17, 17, 17,
    17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 18, 18, 18,
    18,
};
/* clang-format on */

MT_INLINE size_t mt_szcls_supermalloc_size(size_t index) { return mt_szcls_supermalloc_sizes[index]; }
MT_INLINE size_t mt_szcls_supermalloc_index(size_t size)
{
    return mt_szcls_table_index(size, MT_SZCLS_TABLE(supermalloc));
}
#endif

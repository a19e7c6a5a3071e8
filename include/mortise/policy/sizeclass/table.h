/* mortise/policy/sizeclass/table.h — the lookup shared by the size-class
 * policies whose classes are a table (tc, supermalloc, prime).
 *
 * Sizes up to MT_SZCLS_SMALL_MAX (1024) are one byte load: the policy's
 * `small` table gives the class of every size in 16-byte units. No branch
 * depends on where the size falls, so a program whose sizes are random
 * pays no mispredicted branch for them (the fine-bin walk below took one
 * to two per lookup on uniformly random sizes of 8-500 bytes).
 * Larger sizes first fall into a fine bin: eight equal bins per power of
 * two, (2^k, 2^(k+1)] cut at multiples of 2^(k-3) (one clz, as log2b with
 * 8 bins). A policy's `first` table gives, per fine bin, the smallest class
 * holding the smallest size of the bin; index() starts there and steps
 * over the classes that end inside the bin (at most one for tc and
 * supermalloc, two for prime: sizeclass_test counts them). So index is
 * O(1) everywhere; size is one load.
 * Sizes above the policy's last class have no class: index returns the
 * class count (layers bound their size_handle by the last class size).
 * The tables are written by `sizeclass_test --tables` from each policy's
 * rule, and the test fails if a header's table and its rule disagree.
 */
#ifndef MORTISE_POLICY_SIZECLASS_TABLE_H
#define MORTISE_POLICY_SIZECLASS_TABLE_H
#include "../../core/platform.h"

MT_INLINE size_t mt_szcls_fine_bin(size_t size)
{
    if (size <= 128)
        return size <= 16 ? 0 : (size - 1) >> 4;
    unsigned k = mt_log2_floor(size - 1);
    return 8 + (size_t)(k - 7) * 8 + (((size - 1) >> (k - 3)) & 7);
}

#define MT_SZCLS_SMALL_MAX 1024
#define MT_SZCLS_SMALL_ENTRIES (MT_SZCLS_SMALL_MAX / 16 + 1)

MT_INLINE size_t mt_szcls_table_index(size_t size, const uint32_t *sizes, size_t classes,
                                      const uint8_t *first, const uint8_t *small)
{
    if (MT_LIKELY(size <= MT_SZCLS_SMALL_MAX))
        return small[(size + 15) >> 4];
    if (MT_UNLIKELY(size > sizes[classes - 1]))
        return classes;
    size_t i = first[mt_szcls_fine_bin(size)];
    while (sizes[i] < size)
        i++;
    return i;
}

/* A table policy NAME defines MT_SZCLS_NAME_CLASSES, mt_szcls_NAME_sizes,
 * mt_szcls_NAME_first and mt_szcls_NAME_small, then writes the slot's two
 * functions under its own names over these:
 *     size_t mt_szcls_NAME_size(size_t index)
 *         { return mt_szcls_NAME_sizes[index]; }
 *     size_t mt_szcls_NAME_index(size_t size)
 *         { return mt_szcls_table_index(size, MT_SZCLS_TABLE(NAME)); } */
#define MT_SZCLS_TABLE(name) \
    mt_szcls_##name##_sizes, MT_SZCLS_##name##_CLASSES, mt_szcls_##name##_first, mt_szcls_##name##_small

#endif

/* sizeclass=log2b — binned powers of two.
 * Sizes up to 128 bytes in steps of 16; above, each power-of-two interval
 * (2^k, 2^(k+1)] is cut into 4 equal bins: 160, 192, 224, 256, 320, 384, ...
 * Worst internal fragmentation: 25 % above 128 bytes (a request of 2^k + 1
 * gets 2^k + 2^(k-2)); at most 15 bytes below. O(1): one clz.
 * Classes cover sizes up to 2^47 (2^31 on 32-bit targets, where a larger
 * class would not fit size_t and a layer's largest block, the last class
 * size, would wrap to a small number). */
/* The policy's descriptor (core/describe.h): the data tools/describe_layers.py
 * reads; describe mode (MT_DESCRIBE) skips the rest. */
#define MT_POLICY_DESCRIPTOR_sizeclass_log2b(POLICY, SLOT) POLICY(sizeclass, log2b, policy)
#if !defined(MORTISE_POLICY_SIZECLASS_LOG2B_H) && !defined(MT_DESCRIBE)
#define MORTISE_POLICY_SIZECLASS_LOG2B_H
#include "../../core/platform.h"

#if SIZE_MAX > 0xffffffffu
#define MT_SZCLS_log2b_CLASSES (8 + 4 * (47 - 7))
#else
#define MT_SZCLS_log2b_CLASSES (8 + 4 * (31 - 7))
#endif
#define MT_SZCLS_log2b_KEY 1

MT_INLINE size_t mt_szcls_log2b_index(size_t size)
{
    if (size <= 128)
        return size <= 16 ? 0 : (size - 1) >> 4;
    unsigned k = mt_log2_floor(size - 1);
    return 8 + (size_t)(k - 7) * 4 + (((size - 1) >> (k - 2)) & 3);
}

MT_INLINE size_t mt_szcls_log2b_size(size_t index)
{
    if (index < 8)
        return (index + 1) << 4;
    size_t i = index - 8;
    unsigned k = 7 + (unsigned)(i >> 2);
    return ((size_t)1 << k) + ((i & 3) + 1) * ((size_t)1 << (k - 2));
}
#endif

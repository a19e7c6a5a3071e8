/* sizeclass=interval — equal steps: classes step, 2·step, ... up to max.
 * Parameters (per layer instance): MT_SIZECLASS_STEP (default 16, a multiple
 * of 16) and MT_SIZECLASS_MAX (default 4096). Worst internal fragmentation:
 * step - 1 bytes. O(1): one division by a constant.
 * The policy functions take the step as an argument; layers pass their slot. */
/* The policy's descriptor (core/describe.h): the data tools/describe_layers.py
 * reads; describe mode (MT_DESCRIBE) skips the rest. */
#define MT_POLICY_DESCRIPTOR_sizeclass_interval(POLICY, SLOT) POLICY(sizeclass, interval, policy)
#if !defined(MORTISE_POLICY_SIZECLASS_INTERVAL_H) && !defined(MT_DESCRIBE)
#define MORTISE_POLICY_SIZECLASS_INTERVAL_H
#include "../../core/platform.h"

#define MT_SZCLS_interval_CLASSES 4096
/* The key depends on the step, expanded where the layer defines it. */
#define MT_SZCLS_interval_KEY (2 + 256 * (MT_SIZECLASS_STEP))

MT_INLINE size_t mt_szcls_interval_index_step(size_t size, size_t step)
{
    return size <= step ? 0 : (size - 1) / step;
}
MT_INLINE size_t mt_szcls_interval_size_step(size_t index, size_t step) { return (index + 1) * step; }
/* Uniform names, expanded inside the layer instance where the slots are defined. */
#define mt_szcls_interval_index(s) mt_szcls_interval_index_step((s), MT_SIZECLASS_STEP)
#define mt_szcls_interval_size(i) mt_szcls_interval_size_step((i), MT_SIZECLASS_STEP)
#endif

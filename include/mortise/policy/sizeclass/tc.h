/* sizeclass=tc — tcmalloc's size classes, derived by gperftools' rule.
 *
 * Read from gperftools' SizeMap::Init (src/common.cc; tcmalloc's own table,
 * tcmalloc/size_classes.cc, is its descendant, since tuned by profiles):
 * sizes step by their alignment, 16 bytes up to 128, then 1/8 of the power
 * of two below the size (so 8 steps per doubling: 144, 160, ... 256, 288,
 * ...), capped at the 8 KiB page; each size gets the fewest pages that
 * waste at most 1/8 of its span and hold a quarter of a transfer batch
 * (64 KiB / size, 2..512 objects); a size needing the same pages and
 * fitting as many objects as the class before it replaces that class
 * instead of adding one, which thins the classes above 2 KiB (e.g. 16384,
 * 20480, 24576, 26624, 32768). Ours: 8 KiB pages, 16 bytes first (tcmalloc
 * has an 8-byte class: every Mortise class is a multiple of 16), up to
 * tcmalloc's kMaxSize, 256 KiB: 86 classes, as tcmalloc has.
 * Worst internal fragmentation (measured by tests/policies/sizeclass/sizeclass_test):
 *   15 bytes up to 128 B; 23.0 % from 129 B to 16 KiB (3329 B -> 4096 B);
 *   24.9 % above (16385 B -> 20480 B).
 * Sizes above 256 KiB have no class (index returns MT_SZCLS_tc_CLASSES).
 * O(1): policy/sizeclass/table.h. Key for getmeta's class hint: 3.
 */
/* The policy's descriptor (core/describe.h): the data tools/describe_layers.py
 * reads; describe mode (MT_DESCRIBE) skips the rest. */
#define MT_POLICY_DESCRIPTOR_sizeclass_tc(POLICY, SLOT) POLICY(sizeclass, tc, policy)
#if !defined(MORTISE_POLICY_SIZECLASS_TC_H) && !defined(MT_DESCRIBE)
#define MORTISE_POLICY_SIZECLASS_TC_H
#include "table.h"

#define MT_SZCLS_tc_KEY 3

/* Written by `sizeclass_test --tables` from the rule above: 86 classes */
#define MT_SZCLS_tc_CLASSES 86
/* clang-format off */
MT_UNUSED static const uint32_t mt_szcls_tc_sizes[86] = {
    16, 32, 48, 64, 80, 96, 112, 128,
    144, 160, 176, 192, 208, 224, 240, 256,
    288, 320, 352, 384, 416, 448, 480, 512,
    576, 640, 704, 768, 832, 896, 960, 1024,
    1152, 1280, 1408, 1536, 1792, 2048, 2304, 2560,
    2816, 3072, 3328, 4096, 4608, 5120, 6144, 6656,
    8192, 9216, 10240, 12288, 13312, 16384, 20480, 24576,
    26624, 32768, 40960, 49152, 57344, 65536, 73728, 81920,
    90112, 98304, 106496, 114688, 122880, 131072, 139264, 147456,
    155648, 163840, 172032, 180224, 188416, 196608, 204800, 212992,
    221184, 229376, 237568, 245760, 253952, 262144,
};
MT_UNUSED static const uint8_t mt_szcls_tc_first[96] = {
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
    16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31,
    32, 33, 34, 35, 36, 36, 37, 37, 38, 39, 40, 41, 42, 43, 43, 43,
    44, 45, 46, 46, 47, 48, 48, 48, 49, 50, 51, 51, 52, 53, 53, 53,
    54, 54, 55, 55, 56, 57, 57, 57, 58, 58, 59, 59, 60, 60, 61, 61,
    62, 63, 64, 65, 66, 67, 68, 69, 70, 72, 74, 76, 78, 80, 82, 84,
};
MT_UNUSED static const uint8_t mt_szcls_tc_small[MT_SZCLS_SMALL_ENTRIES] = {
    0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
    15, 16, 16, 17, 17, 18, 18, 19, 19, 20, 20, 21, 21, 22, 22, 23,
    23, 24, 24, 24, 24, 25, 25, 25, 25, 26, 26, 26, 26, 27, 27, 27,
    27, 28, 28, 28, 28, 29, 29, 29, 29, 30, 30, 30, 30, 31, 31, 31,
    31,
};
/* clang-format on */

MT_INLINE size_t mt_szcls_tc_size(size_t index) { return mt_szcls_tc_sizes[index]; }
MT_INLINE size_t mt_szcls_tc_index(size_t size) { return mt_szcls_table_index(size, MT_SZCLS_TABLE(tc)); }
#endif

/* tests/suites/fuzz/fuzz_ops.c — libFuzzer target: the input is a sequence of
 * operations on a san_ allocator (linked with one composition: san_alloc.c or
 * an instance under the san_ prefix, tests/suites/fuzz/CMakeLists.txt), each
 * checked against a shadow of the live blocks by the engine in
 * tests/suites/sanitize/ops.h (alignment, usable size, zeroed calloc, realloc keeps
 * its prefix, every block keeps its own pattern, no two live blocks overlap).
 *
 * Each operation is 5 bytes:
 *   [0] kind (enum op_kind, modulo OP_COUNT)    [1] slot (modulo FUZZ_SLOTS)
 *       (OP_TRIM only with [1] < 8, else OP_USABLE: trim walks every class)
 *   [2..3] v, little-endian                      [4] ss aaaaaa
 * size = v % 256, v % 4097, v, or v * 128 (up to 8 MiB) for ss = 0..3;
 * alignment = 2^(aaaaaa % 23), up to 4 MiB. What is still live at the end of
 * the input is verified and freed, so every input starts from empty slots
 * (the allocator itself keeps its state from input to input, as in a program).
 */
#include "../sanitize/ops.h"

#define FUZZ_SLOTS 64
#define FUZZ_OP_BYTES 5

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    static op_block slots[FUZZ_SLOTS];
    static uint32_t tag = 1;
    op_table t;
    op_table_init(&t, slots, FUZZ_SLOTS, tag);
    for (size_t i = 0; i + FUZZ_OP_BYTES <= n; i += FUZZ_OP_BYTES) {
        const uint8_t *op = data + i;
        size_t v = (size_t)op[2] | (size_t)op[3] << 8;
        size_t size;
        switch (op[4] >> 6) {
        case 0: size = v % 256; break;
        case 1: size = v % 4097; break;
        case 2: size = v; break;
        default: size = v << 7; break; /* past the OS layer's 4 MiB cache */
        }
        unsigned kind = op[0] % OP_COUNT;
        if (kind == OP_TRIM && op[1] >= 8)
            kind = OP_USABLE; /* trim walks every size class: keep it rare */
        op_apply(&t, kind, op[1], size, (unsigned)(op[4] & 63) % 23);
    }
    op_table_clear(&t);
    tag = t.next_tag;
    return 0;
}

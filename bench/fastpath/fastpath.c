/* fastpath — the fast-path microbenchmark: malloc and free of 64 small blocks
 * (16..128 bytes, eight of each size, or all of one SIZE) in a warm loop;
 * with ALIGN, aligned_alloc(ALIGN, size rounded up to ALIGN) instead of
 * malloc (SIZE 0: the mixed sizes).
 *
 *     fastpath ITERATIONS [SIZE [ALIGN]]
 *
 * Meant to be run under `valgrind --tool=callgrind` with the allocator under
 * test preloaded (tools/fastpath.sh): the difference between two runs with
 * different ITERATIONS, divided by the extra malloc+free pairs, is the cost
 * of one pair with start-up cancelled out. Every block is touched once so no
 * allocator can hand out memory it never maps; the pointers are folded into
 * a checksum so the compiler cannot drop a call (and the build uses
 * -fno-builtin so it does not pair malloc with free itself). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define BLOCKS 64

int main(int argc, char **argv)
{
    long iterations = argc > 1 ? atol(argv[1]) : 1000;
    size_t one_size = argc > 2 ? (size_t)atol(argv[2]) : 0;
    size_t align = argc > 3 ? (size_t)atol(argv[3]) : 0;
    static size_t size[BLOCKS];
    void *block[BLOCKS];
    uintptr_t sum = 0;

    for (int j = 0; j < BLOCKS; j++) {
        size[j] = one_size ? one_size : 16 + (size_t)(j % 8) * 16;
        if (align)
            size[j] = (size[j] + align - 1) / align * align;
    }
    for (long i = 0; i < iterations; i++) {
        for (int j = 0; j < BLOCKS; j++) {
            block[j] = align ? aligned_alloc(align, size[j]) : malloc(size[j]);
            if (!block[j] || (align && (uintptr_t)block[j] % align))
                return 1;
            *(char *)block[j] = (char)j;
        }
        for (int j = BLOCKS - 1; j >= 0; j--) {
            sum += (uintptr_t)block[j];
            free(block[j]);
        }
    }
    printf("fastpath: %ld iterations of %d malloc+free pairs (checksum %lx)\n", iterations, BLOCKS,
           (unsigned long)(sum & 0xffff));
    return 0;
}

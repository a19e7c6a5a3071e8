/* The program tests/tools/test_tune.py tunes: it allocates 16000 blocks of
 * 2064 bytes (129 units of 16), touches them all and frees them, so its
 * max RSS is the blocks' size class times 16000 plus a constant. Of the
 * size-class policies, only interval (steps of 16) has a class of exactly
 * 2064 bytes; prime's is 2224, tc's 2304, log2b's 2560, supermalloc's 2752.
 * With --usable it also prints whether a 2064-byte block's usable size is
 * exactly 2064: glibc rounds it (2072), so an allocator that serves it
 * exactly (interval) prints something else and must be rejected. */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { COUNT = 16000, SIZE = 2064 };
static char *blocks[COUNT];

int main(int argc, char **argv)
{
    unsigned long sum = 0;
    for (int i = 0; i < COUNT; i++) {
        blocks[i] = malloc(SIZE);
        if (!blocks[i])
            return 1;
        memset(blocks[i], i & 0xff, SIZE);
    }
    if (argc > 1 && strcmp(argv[1], "--usable") == 0)
        printf("%s\n", malloc_usable_size(blocks[0]) == SIZE ? "exact" : "rounded");
    for (int i = 0; i < COUNT; i++) {
        sum += (unsigned char)blocks[i][i % SIZE];
        free(blocks[i]);
    }
    printf("%lu\n", sum);
    return 0;
}

/* The first 64 bytes of a 100000-byte block written after its free, then
 * blocks of its size allocated and freed. Above every small-block class and
 * below every quarantine's reach (64 KiB), the block goes back to a
 * large-block trunk at once, whose free lists live in free blocks. */
#include "../badinput.h"

int main(void)
{
    size_t size = 100000;
    unsigned char *p = test_family.malloc(size);
    bi_block(p, size);
    test_family.free(p);
    memset(bi_hide(p), 0x41, 64);
    for (int i = 0; i < 4; i++) {
        void *q[3];
        for (int k = 0; k < 3; k++)
            q[k] = test_family.malloc(size);
        for (int k = 0; k < 3; k++)
            test_family.free(q[k]);
    }
    return bi_end();
}

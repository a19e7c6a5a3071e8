/* A 64-byte block filled with a pattern after its free, then blocks of its
 * size allocated and freed one at a time until the same address comes back
 * (at most 8192 rounds): the damaged block is handed out again. */
#include "../badinput.h"

int main(void)
{
    size_t size = 64;
    unsigned char *p = test_family.malloc(size);
    bi_block(p, size);
    test_family.free(p);
    memset(bi_hide(p), 0x41, size);
    for (int i = 0; i < 8192; i++) {
        void *q = test_family.malloc(size);
        test_family.free(q);
        if (q == (void *)p)
            break;
    }
    return bi_end();
}

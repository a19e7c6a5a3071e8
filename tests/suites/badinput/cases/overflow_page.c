/* A page written past a 100-byte block that has neighbours on both sides,
 * all of them live, so the overflow lands in blocks the program owns. */
#include "../badinput.h"

int main(void)
{
    size_t size = 100;
    void *before[64];
    for (int i = 0; i < 64; i++)
        before[i] = test_family.malloc(size);
    unsigned char *p = test_family.malloc(size);
    void *after[64];
    for (int i = 0; i < 64; i++)
        after[i] = test_family.malloc(size);
    bi_block(p, size);
    memset((unsigned char *)bi_hide(p) + size, 0x41, 4096);
    test_family.free(p);
    (void)before;
    (void)after; /* left allocated: their contents are the overflow's */
    return bi_end();
}

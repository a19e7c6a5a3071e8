/* Eight bytes written just before a 64-byte block (where a header would be).
 * A block of the same size is allocated first and kept, so the bytes before
 * the victim are heap memory (the victim may start a fresh mapping
 * otherwise, and the write itself would fault). */
#include "../badinput.h"

int main(void)
{
    size_t size = 64;
    void *before = test_family.malloc(size);
    unsigned char *p = test_family.malloc(size);
    bi_block(p, size);
    memset((unsigned char *)bi_hide(p) - 8, 0x41, 8);
    test_family.free(p);
    (void)before; /* left allocated: the underflow may have hit its last word */
    return bi_end();
}

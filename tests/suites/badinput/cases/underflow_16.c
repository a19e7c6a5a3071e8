/* Sixteen bytes written just before a 64-byte block (a whole safety
 * header's worth), then the block freed. A block of the same size is
 * allocated first and kept, so the bytes before the victim are heap memory. */
#include "../badinput.h"

int main(void)
{
    size_t size = 64;
    void *before = test_family.malloc(size);
    unsigned char *p = test_family.malloc(size);
    bi_block(p, size);
    memset((unsigned char *)bi_hide(p) - 16, 0x41, 16);
    test_family.free(p);
    (void)before; /* left allocated: the underflow may have hit its last words */
    return bi_end();
}

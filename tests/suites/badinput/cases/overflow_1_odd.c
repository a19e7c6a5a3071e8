/* One byte written past a 13-byte block: the byte lies in the padding of
 * every size class, so only a byte-precise check catches it. */
#include "../badinput.h"

int main(void)
{
    size_t size = 13;
    unsigned char *p = test_family.malloc(size);
    bi_block(p, size);
    ((unsigned char *)bi_hide(p))[size] ^= 0x5a;
    test_family.free(p);
    return bi_end();
}

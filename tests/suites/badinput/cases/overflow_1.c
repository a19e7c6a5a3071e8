/* One byte written past a 24-byte block (a size that fills its 8-byte words:
 * only a check word right after the request can catch it). */
#include "../badinput.h"

int main(void)
{
    size_t size = 24;
    unsigned char *p = test_family.malloc(size);
    bi_block(p, size);
    ((unsigned char *)bi_hide(p))[size] ^= 0x5a;
    test_family.free(p);
    return bi_end();
}

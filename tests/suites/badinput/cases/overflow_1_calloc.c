/* One byte past a calloc'd block of 10 x 7 bytes. */
#include "../badinput.h"

int main(void)
{
    size_t size = 70;
    unsigned char *p = test_family.calloc(10, 7);
    bi_block(p, size);
    ((unsigned char *)bi_hide(p))[size] = 0x5a;
    test_family.free(p);
    return bi_end();
}

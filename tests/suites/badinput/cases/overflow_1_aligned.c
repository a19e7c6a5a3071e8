/* One byte past a 40-byte block aligned to 256. */
#include "../badinput.h"

int main(void)
{
    size_t size = 40;
    unsigned char *p = test_family.aligned_alloc(256, size);
    bi_block(p, size);
    ((unsigned char *)bi_hide(p))[size] ^= 0x5a;
    test_family.free(p);
    return bi_end();
}

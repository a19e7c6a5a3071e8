/* One byte past a 200000-byte block (above every slab: a large-block trunk
 * or the OS layer serves it). */
#include "../badinput.h"

int main(void)
{
    size_t size = 200000;
    unsigned char *p = test_family.malloc(size);
    bi_block(p, size);
    ((unsigned char *)bi_hide(p))[size] ^= 0x5a;
    test_family.free(p);
    return bi_end();
}

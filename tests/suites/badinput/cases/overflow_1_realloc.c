/* One byte past a block, caught when it is grown by realloc (the check word
 * is verified on realloc, not only on free). */
#include "../badinput.h"

int main(void)
{
    size_t size = 30;
    unsigned char *p = test_family.malloc(size);
    bi_block(p, size);
    ((unsigned char *)bi_hide(p))[size] ^= 0x5a;
    p = test_family.realloc(p, 3000);
    test_family.free(p);
    return bi_end();
}

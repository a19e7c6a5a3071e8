/* One byte past a block, caught by malloc_usable_size (the third operation
 * that verifies the check word); the block stays allocated. */
#include "../badinput.h"

int main(void)
{
    size_t size = 20;
    unsigned char *p = test_family.malloc(size);
    bi_block(p, size);
    ((unsigned char *)bi_hide(p))[size] ^= 0x5a;
    bi_line("usable %zu", test_family.malloc_usable_size(p));
    return bi_end();
}

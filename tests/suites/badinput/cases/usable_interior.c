/* malloc_usable_size of a pointer 16 bytes inside a live block. */
#include "../badinput.h"

int main(void)
{
    unsigned char *p = test_family.malloc(64);
    void *inside = p + 16;
    bi_block_at((uintptr_t)inside);
    (void)test_family.malloc_usable_size(bi_hide(inside));
    test_family.free(p);
    return bi_end();
}

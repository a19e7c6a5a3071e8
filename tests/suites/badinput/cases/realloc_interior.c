/* realloc of a pointer 16 bytes inside a live block: refused (NULL, EINVAL)
 * or reported, the block untouched. */
#include "../badinput.h"

int main(void)
{
    unsigned char *p = test_family.malloc(64);
    void *inside = p + 16;
    bi_block_at((uintptr_t)inside);
    (void)BI_RESULT(test_family.realloc(bi_hide(inside), 200));
    test_family.free(p);
    return bi_end();
}

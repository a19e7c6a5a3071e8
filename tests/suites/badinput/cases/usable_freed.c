/* malloc_usable_size of a block already freed. */
#include "../badinput.h"

int main(void)
{
    size_t size = 48;
    void *p = test_family.malloc(size);
    bi_block(p, size);
    test_family.free(p);
    (void)test_family.malloc_usable_size(bi_hide(p));
    return bi_end();
}

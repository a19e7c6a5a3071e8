/* A 300000-byte block (large-block path) freed twice. */
#include "../badinput.h"

int main(void)
{
    size_t size = 300000;
    void *p = test_family.malloc(size);
    bi_block(p, size);
    test_family.free(p);
    test_family.free(bi_hide(p));
    return bi_end();
}

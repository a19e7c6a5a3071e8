/* The same 48-byte block freed twice in a row. */
#include "../badinput.h"

int main(void)
{
    size_t size = 48;
    void *p = test_family.malloc(size);
    bi_block(p, size);
    test_family.free(p);
    test_family.free(bi_hide(p));
    return bi_end();
}

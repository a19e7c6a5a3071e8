/* reallocarray whose count times size overflows: NULL, ENOMEM, the block
 * still there. */
#include "../badinput.h"

int main(void)
{
    unsigned char *p = test_family.malloc(32);
    memset(p, 0x7e, 32);
    void *q = BI_RESULT(test_family.reallocarray(p, bi_size_max / 8 + 2, 8));
    if (q || p[31] != 0x7e)
        return 1;
    test_family.free(p);
    return bi_end();
}

/* realloc of a live block to SIZE_MAX - 8: NULL, ENOMEM, and the block is
 * still there with its contents. */
#include "../badinput.h"

int main(void)
{
    unsigned char *p = test_family.malloc(32);
    memset(p, 0x7e, 32);
    void *q = BI_RESULT(test_family.realloc(p, bi_size_max - 8));
    if (q)
        return 1;
    for (int i = 0; i < 32; i++)
        if (p[i] != 0x7e)
            return 1;
    test_family.free(p);
    return bi_end();
}

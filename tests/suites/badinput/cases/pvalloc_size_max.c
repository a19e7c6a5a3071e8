/* pvalloc rounds its size up to whole pages: SIZE_MAX - 100 would wrap to a
 * tiny request. NULL, ENOMEM. */
#include "../badinput.h"

int main(void)
{
    void *p = BI_RESULT(test_family.pvalloc(bi_size_max - 100));
    test_family.free(p);
    return bi_end();
}

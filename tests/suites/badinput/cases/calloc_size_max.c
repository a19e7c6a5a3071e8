/* calloc of one element of SIZE_MAX - 8 bytes: NULL, ENOMEM. */
#include "../badinput.h"

int main(void)
{
    void *p = BI_RESULT(test_family.calloc(1, bi_size_max - 8));
    test_family.free(p);
    return bi_end();
}

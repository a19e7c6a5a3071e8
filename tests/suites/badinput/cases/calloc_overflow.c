/* calloc whose element count times size overflows size_t: NULL, ENOMEM
 * (not a small block of the wrapped product). */
#include "../badinput.h"

int main(void)
{
    void *p = BI_RESULT(test_family.calloc(bi_size_max / 16 + 2, 16));
    test_family.free(p);
    return bi_end();
}

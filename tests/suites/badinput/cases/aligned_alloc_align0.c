/* aligned_alloc with alignment 0: NULL, EINVAL. */
#include "../badinput.h"

int main(void)
{
    void *p = BI_RESULT(test_family.aligned_alloc(0, 64));
    test_family.free(p);
    return bi_end();
}

/* aligned_alloc with alignment 3: NULL, EINVAL. */
#include "../badinput.h"

int main(void)
{
    void *p = BI_RESULT(test_family.aligned_alloc(3, 64));
    test_family.free(p);
    return bi_end();
}

/* aligned_alloc with alignment 2^62: NULL, ENOMEM. */
#include "../badinput.h"

int main(void)
{
    void *p = BI_RESULT(test_family.aligned_alloc((size_t)1 << 62, 64));
    test_family.free(p);
    return bi_end();
}

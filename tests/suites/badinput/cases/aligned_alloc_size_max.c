/* aligned_alloc of SIZE_MAX - 63 bytes aligned to 64 (the aligned size
 * wraps around if computed carelessly): NULL, ENOMEM. */
#include "../badinput.h"

int main(void)
{
    void *p = BI_RESULT(test_family.aligned_alloc(64, bi_size_max - 63));
    test_family.free(p);
    return bi_end();
}

/* valloc of SIZE_MAX - 4000 bytes: NULL, ENOMEM. */
#include "../badinput.h"

int main(void)
{
    void *p = BI_RESULT(test_family.valloc(bi_size_max - 4000));
    test_family.free(p);
    return bi_end();
}

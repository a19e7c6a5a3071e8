/* memalign with alignment 48 (not a power of two): NULL, EINVAL (glibc
 * rounds it up instead; Mortise refuses, sockets/family.h). */
#include "../badinput.h"

int main(void)
{
    void *p = BI_RESULT(test_family.memalign(48, 64));
    test_family.free(p);
    return bi_end();
}

/* posix_memalign with alignment 4: a power of two but not a multiple of
 * sizeof(void *), which POSIX requires: EINVAL. */
#include "../badinput.h"

int main(void)
{
    void *out = &out;
    int rc = test_family.posix_memalign(&out, 4, 64);
    bi_line("result %s%s", bi_errno_name(rc), out == &out ? "" : " out-changed");
    return bi_end();
}

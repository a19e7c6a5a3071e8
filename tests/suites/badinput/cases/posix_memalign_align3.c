/* posix_memalign with alignment 3 (not a power of two): EINVAL. */
#include "../badinput.h"

int main(void)
{
    void *out = &out;
    int rc = test_family.posix_memalign(&out, 3, 64);
    bi_line("result %s%s", bi_errno_name(rc), out == &out ? "" : " out-changed");
    return bi_end();
}

/* posix_memalign with alignment 2^62: valid, but no memory can honour it:
 * ENOMEM. */
#include "../badinput.h"

int main(void)
{
    void *out = &out;
    int rc = test_family.posix_memalign(&out, (size_t)1 << 62, 64);
    bi_line("result %s%s", bi_errno_name(rc), out == &out ? "" : " out-changed");
    return bi_end();
}

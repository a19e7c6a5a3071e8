/* malloc of sizes near SIZE_MAX (SIZE_MAX, SIZE_MAX - 4095, PTRDIFF_MAX + 1):
 * NULL, ENOMEM each; the answers joined into one result line. */
#include "../badinput.h"

int main(void)
{
    size_t sizes[] = {bi_size_max, bi_size_max - 4095, bi_size_max / 2 + 1};
    int ok = 0;
    for (unsigned i = 0; i < 3; i++) {
        errno = 0;
        void *p = test_family.malloc(sizes[i]);
        ok += !p && errno == ENOMEM;
        test_family.free(p);
    }
    bi_line("result %s", ok == 3 ? "NULL ENOMEM" : "wrong");
    return bi_end();
}

/* A block freed twice, then two blocks of its size allocated: after a
 * double free a plain free list may hold the block twice and hand it out
 * to both ("result same"); a safety layer that refused the second free
 * hands out distinct blocks ("result distinct"). */
#include "../badinput.h"

int main(void)
{
    size_t size = 48;
    bi_double_free(size);
    void *a = test_family.malloc(size);
    void *b = test_family.malloc(size);
    bi_line("result %s", a == b ? "same" : "distinct");
    test_family.free(a);
    if (b != a)
        test_family.free(b);
    return bi_end();
}

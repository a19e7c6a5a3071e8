/* The classic stale pointer: realloc moved the block to grow it, and the
 * program frees the old address (already freed by realloc). */
#include "../badinput.h"

int main(void)
{
    size_t size = 40;
    unsigned char *p = test_family.malloc(size);
    bi_block(p, size);
    /* a block after it, so it cannot grow in place at the end of the heap
     * (on Linux stdout's buffer is one; msvcrt takes its own from elsewhere) */
    void *fence = test_family.malloc(size);
    unsigned char *q = test_family.realloc(p, 100000); /* too big to grow in place */
    if (q == p)
        return 2;
    test_family.free(bi_hide(p));
    test_family.free(q);
    test_family.free(fence);
    return bi_end();
}

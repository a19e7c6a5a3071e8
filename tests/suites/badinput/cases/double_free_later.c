/* A block freed, ten blocks of its size allocated and freed, then the first
 * freed again: the double free is no longer the last free. */
#include "../badinput.h"

int main(void)
{
    size_t size = 48;
    void *p = test_family.malloc(size);
    void *others[10];
    for (int i = 0; i < 10; i++)
        others[i] = test_family.malloc(size);
    bi_block(p, size);
    test_family.free(p);
    for (int i = 0; i < 10; i++)
        test_family.free(others[i]);
    test_family.free(bi_hide(p));
    return bi_end();
}

/* free of a live block's address plus one. */
#include "../badinput.h"

int main(void)
{
    unsigned char *p = test_family.malloc(32);
    void *odd = p + 1;
    bi_line("block %#lx", (unsigned long)(uintptr_t)odd);
    test_family.free(bi_hide(odd));
    test_family.free(p);
    return bi_end();
}

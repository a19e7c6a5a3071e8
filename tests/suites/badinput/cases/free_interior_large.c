/* free of a pointer one page inside a live 300000-byte block. */
#include "../badinput.h"

int main(void)
{
    unsigned char *p = test_family.malloc(300000);
    void *inside = p + 4096;
    bi_line("block %#lx", (unsigned long)(uintptr_t)inside);
    test_family.free(bi_hide(inside));
    test_family.free(p);
    return bi_end();
}

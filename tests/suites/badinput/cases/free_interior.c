/* free of a pointer 16 bytes inside a live 64-byte block. */
#include "../badinput.h"

int main(void)
{
    unsigned char *p = test_family.malloc(64);
    void *inside = p + 16;
    bi_line("block %#lx", (unsigned long)(uintptr_t)inside);
    test_family.free(bi_hide(inside));
    test_family.free(p);
    return bi_end();
}

/* Eight bytes written just before a 64-byte block (where a header would be). */
#include "../badinput.h"

int main(void)
{
    size_t size = 64;
    unsigned char *p = test_family.malloc(size);
    bi_block(p, size);
    memset((unsigned char *)bi_hide(p) - 8, 0x41, 8);
    test_family.free(p);
    return bi_end();
}

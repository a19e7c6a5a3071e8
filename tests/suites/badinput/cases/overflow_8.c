/* Eight bytes written past a 40-byte block: a whole word of the neighbour. */
#include "../badinput.h"

int main(void)
{
    size_t size = 40;
    unsigned char *p = test_family.malloc(size);
    bi_block(p, size);
    memset((unsigned char *)bi_hide(p) + size, 0x41, 8);
    test_family.free(p);
    return bi_end();
}

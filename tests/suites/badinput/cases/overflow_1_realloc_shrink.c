/* A block shrunk by realloc from 200 to 50 bytes (it stays in place on every
 * instance), then one byte written at the new end. */
#include "../badinput.h"

int main(void)
{
    unsigned char *p = test_family.malloc(200);
    size_t size = 50;
    p = test_family.realloc(p, size);
    bi_block(p, size);
    ((unsigned char *)bi_hide(p))[size] = 0x5a;
    test_family.free(p);
    return bi_end();
}

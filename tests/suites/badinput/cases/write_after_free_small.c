/* One byte written into a freed 24-byte block, then the blocks of its size
 * allocated and freed until the quarantine (if any) let it go and the
 * block came back. */
#include "../badinput.h"

int main(void)
{
    size_t size = 24;
    unsigned char *p = test_family.malloc(size);
    bi_block(p, size);
    test_family.free(p);
    ((unsigned char *)bi_hide(p))[3] ^= 0x5a;
    bi_push_out_of_quarantine();
    for (int i = 0; i < 64; i++) {
        void *q = test_family.malloc(size);
        test_family.free(q);
    }
    return bi_end();
}

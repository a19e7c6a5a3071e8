/* One word written in the middle of a 64-byte block after its free, then
 * 4096 blocks of other sizes allocated and freed (512 KiB in all), enough
 * to push it out of any quarantine. */
#include "../badinput.h"

int main(void)
{
    size_t size = 64;
    unsigned char *p = test_family.malloc(size);
    bi_block(p, size);
    test_family.free(p);
    memset((unsigned char *)bi_hide(p) + 24, 0x41, 8);
    for (int i = 0; i < 4096; i++) {
        void *q = test_family.malloc(96 + (size_t)(i % 4) * 16);
        test_family.free(q);
    }
    return bi_end();
}

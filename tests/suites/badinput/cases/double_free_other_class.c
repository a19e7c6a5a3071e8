/* A freed 48-byte block freed again after blocks of other size classes
 * (16 bytes to 64 KiB) were allocated and freed in between. */
#include "../badinput.h"

int main(void)
{
    size_t size = 48;
    void *p = test_family.malloc(size);
    bi_block(p, size);
    test_family.free(p);
    for (size_t s = 16; s <= 65536; s *= 2) {
        void *q = test_family.malloc(s);
        test_family.free(q);
    }
    test_family.free(bi_hide(p));
    return bi_end();
}

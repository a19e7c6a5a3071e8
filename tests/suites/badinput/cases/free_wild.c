/* free of wild pointers: an unmapped low address, a non-canonical one and
 * a kernel one (none can be a heap address, whatever the layout). */
#include "../badinput.h"

int main(void)
{
    uintptr_t wild[] = {0x1000, 0xdead0000beef0000u, 0xffffffffffff0003u};
    for (unsigned i = 0; i < sizeof wild / sizeof wild[0]; i++) {
        bi_block_at((uintptr_t)wild[i]);
        test_family.free(bi_hide((void *)wild[i]));
    }
    return bi_end();
}

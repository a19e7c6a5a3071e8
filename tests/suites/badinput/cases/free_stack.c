/* free of the address of a local variable. */
#include "../badinput.h"

int main(void)
{
    char local[64];
    memset(local, 1, sizeof local);
    bi_block_at((uintptr_t)local);
    test_family.free(bi_hide(local));
    return local[0] == 1 ? bi_end() : 1;
}

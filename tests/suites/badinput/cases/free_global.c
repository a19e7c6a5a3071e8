/* free of the address of a global array. */
#include "../badinput.h"

static char global_buffer[256];

int main(void)
{
    bi_block_at((uintptr_t)global_buffer);
    test_family.free(bi_hide(global_buffer));
    return bi_end();
}

/* malloc_usable_size of pointers no allocator handed out: a local, a global,
 * a wild address. Each answers 0. */
#include "../badinput.h"

static char global_buffer[64];

int main(void)
{
    char local[64];
    void *garbage[] = {local, global_buffer, (void *)0x1000, (void *)(uintptr_t)0xdead0000beef0000u};
    size_t total = 0;
    for (unsigned i = 0; i < sizeof garbage / sizeof garbage[0]; i++)
        bi_block_at((uintptr_t)garbage[i]);
    for (unsigned i = 0; i < sizeof garbage / sizeof garbage[0]; i++)
        total += test_family.malloc_usable_size(bi_hide(garbage[i]));
    bi_line("result %zu", total);
    return bi_end();
}

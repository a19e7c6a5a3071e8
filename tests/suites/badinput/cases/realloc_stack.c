/* realloc of the address of a local variable: NULL, EINVAL. */
#include "../badinput.h"

int main(void)
{
    char local[64];
    memset(local, 1, sizeof local);
    bi_block_at((uintptr_t)local);
    (void)BI_RESULT(test_family.realloc(bi_hide(local), 200));
    return local[63] == 1 ? bi_end() : 1;
}

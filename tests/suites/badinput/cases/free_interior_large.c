/* free of a pointer one page inside a live 300000-byte block. */
#include "../badinput.h"

int main(void)
{
    bi_free_inside(300000, 4096);
    return bi_end();
}

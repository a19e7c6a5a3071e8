/* free of a pointer 16 bytes inside a live 64-byte block. */
#include "../badinput.h"

int main(void)
{
    bi_free_inside(64, 16);
    return bi_end();
}

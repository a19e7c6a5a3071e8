/* free of a live block's address plus one. */
#include "../badinput.h"

int main(void)
{
    bi_free_inside(32, 1);
    return bi_end();
}

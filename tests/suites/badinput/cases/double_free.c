/* The same 48-byte block freed twice in a row. */
#include "../badinput.h"

int main(void)
{
    bi_double_free(48);
    return bi_end();
}

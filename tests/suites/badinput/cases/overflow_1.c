/* One byte written past a 24-byte block (a size that fills its 8-byte words:
 * only a check word right after the request can catch it). */
#include "../badinput.h"

int main(void)
{
    bi_overflow_1(24);
    return bi_end();
}

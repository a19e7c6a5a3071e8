/* One byte written past a 13-byte block: the byte lies in the padding of
 * every size class, so only a byte-precise check catches it. */
#include "../badinput.h"

int main(void)
{
    bi_overflow_1(13);
    return bi_end();
}

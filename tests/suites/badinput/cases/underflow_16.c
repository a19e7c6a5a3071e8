/* Sixteen bytes written just before a 64-byte block (a whole safety
 * header's worth), then the block freed (bi_underflow). */
#include "../badinput.h"

int main(void)
{
    bi_underflow(16);
    return bi_end();
}

/* Eight bytes written just before a 64-byte block (where a header would
 * be), then the block freed (bi_underflow). */
#include "../badinput.h"

int main(void)
{
    bi_underflow(8);
    return bi_end();
}

/* One byte past a 200000-byte block (above every slab: a large-block trunk
 * or the OS layer serves it). */
#include "../badinput.h"

int main(void)
{
    bi_overflow_1(200000);
    return bi_end();
}

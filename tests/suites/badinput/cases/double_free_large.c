/* A 300000-byte block (large-block path) freed twice. */
#include "../badinput.h"

int main(void)
{
    bi_double_free(300000);
    return bi_end();
}

/* 64 bytes written past a 40-byte request, into the next block, which is
 * free (freed, then pushed out of any quarantine): the write replaces what
 * the layer below keeps in a free block (its list link, a boundary tag).
 * Then more blocks of that size are allocated, which takes that free block
 * first. */
#include "../badinput.h"

int main(void)
{
    size_t size = 40;
    unsigned char *a, *b;
    bi_adjacent_pair(size, 64, &a, &b);
    void *after = test_family.malloc(size); /* kept: b has a used block on both sides */
    bi_block(a, size);
    bi_block(b, size);
    test_family.free(b);
    bi_push_out_of_quarantine();
    memset((unsigned char *)bi_hide(a) + size, 0x41, 64);
    for (int i = 0; i < 16; i++)
        (void)test_family.malloc(size);
    (void)after;
    return bi_end();
}

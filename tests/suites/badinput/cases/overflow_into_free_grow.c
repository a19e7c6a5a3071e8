/* 64 bytes written past a 40-byte request, into the free block right after
 * it, the last one of the heap (freed, pushed out of any quarantine, merged
 * with the free rest): the write replaces what the layer below keeps in a
 * free block (a list link, a boundary tag). Then small blocks are allocated
 * until the heap has had to grow several times: a trunk that joins new
 * memory to the free block at the heap's end (tlsf_glk over brk_heap) meets
 * the damaged one there, whether or not an allocation looked at it first. */
#include "../badinput.h"

int main(void)
{
    size_t size = 40;
    void *spread[64];
    /* a first free: per-thread state a layer sets up then (a quarantine
     * ring) is allocated now, not after b */
    test_family.free(test_family.malloc(size));
    for (int i = 0; i < 64; i++) /* allocated first: their frees push b out */
        spread[i] = test_family.malloc(2048);
    unsigned char *a, *b;
    bi_adjacent_pair(size, 64, &a, &b);
    test_family.free(b);
    for (int i = 0; i < 64; i++)
        test_family.free(spread[i]);
    /* printed now: stdout's buffer, allocated at the first line, would
     * otherwise sit between b and the free rest of the heap */
    bi_block(a, size);
    bi_block(b, size);
    memset((unsigned char *)bi_hide(a) + size, 0x41, 64);
    for (int i = 0; i < 50000; i++) /* about 4 MiB: more than the heap had */
        (void)test_family.malloc(size);
    return bi_end();
}

/* A freed 64-byte block, pushed out of any quarantine, gets a forged
 * free-list link: the address of a global array, written over the words
 * where the layers below keep their links (the block's first two words and
 * the two in front of it, where a safety header or a boundary tag puts the
 * block below). Then blocks of its size are allocated, more than a carved
 * run (slab_wf reuses a freed block once its bin has run dry): a plain
 * allocator may hand the array out as a heap block. */
#include "../badinput.h"

static _Alignas(64) unsigned char forged_target[4096];

int main(void)
{
    size_t size = 64;
    void *before = test_family.malloc(size); /* the words in front are heap memory */
    unsigned char *p = test_family.malloc(size);
    void *after = test_family.malloc(size);
    bi_block(p, size);
    test_family.free(p);
    bi_push_out_of_quarantine();
    void **words = (void **)bi_hide(p - 16);
    for (int i = 0; i < 4; i++)
        words[i] = forged_target;
    int handed_out = 0; /* 64: a layer may hand out the rest of a carved run before it reuses p */
    for (int i = 0; i < 64; i++)
        handed_out |= test_family.malloc(size) == (void *)forged_target;
    bi_line("result %s", handed_out ? "forged" : "heap");
    (void)before;
    (void)after;
    return bi_end();
}

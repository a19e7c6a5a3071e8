/* A block freed twice, then blocks of its size allocated, more than a
 * carved run (slab_wf reuses a freed block once its bin has run dry): after
 * a double free a plain free list may hold the block twice and hand it out
 * twice ("result same"); a safety layer that refused the second free hands
 * out distinct blocks ("result distinct"). */
#include "../badinput.h"

enum { N = 64 };

int main(void)
{
    size_t size = 48;
    bi_double_free(size);
    void *got[N];
    int same = 0;
    for (int i = 0; i < N; i++) {
        got[i] = test_family.malloc(size);
        for (int j = 0; j < i; j++)
            same |= got[j] == got[i];
    }
    bi_line("result %s", same ? "same" : "distinct");
    for (int i = 0; i < N; i++) {
        int first = 1;
        for (int j = 0; j < i; j++)
            first &= got[j] != got[i];
        if (first)
            test_family.free(got[i]);
    }
    return bi_end();
}

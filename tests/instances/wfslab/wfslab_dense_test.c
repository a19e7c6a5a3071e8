/* mmap_heap's dense side (huge_page=1 with threadlocal_heap_size): slabs
 * that come straight from mmap_heap (64 KiB chunks) are dense. A thread's
 * first 2 MiB of them get normal pages; once it has filled more, the units
 * its dense cursor opens are advised MADV_HUGEPAGE; a long chunk (a 1 MiB
 * block) never is. Composition: wfslab's OS layer and slab_wf, no segfit_lf:
 *   mmap_heap(faa_heap_growth=1, threadlocal_heap_size=256MB, huge_page=1)
 *     :: slab_wf(sizeclass=prime, slab_size=64KB, tllabs=40) :: custom_socket(prefix=d_) */
#include <mortise/mortise.h>

#define MT_FAA_HEAP_GROWTH 1
#define MT_THREADLOCAL_HEAP_SIZE ((size_t)256 << 20)
#define MT_HUGE_PAGE 1
#include <mortise/os/mmap_heap.h>

#define MT_SIZECLASS prime
#define MT_SLAB_SIZE ((size_t)64 << 10)
#define MT_TLLABS 40
#define MT_SIZE_HANDLE 0, 65536
#include <mortise/layers/slab_wf.h>

#define MT_PREFIX d_
#include <mortise/sockets/custom_socket.h>

MT_COMPOSE(mmap_heap, slab_wf, custom_socket)

#include "../../common/check.h"
#include "smaps.h"
#include <stdlib.h>
#include <string.h>

int main(void)
{
    char **b = fill_small(d_malloc);
    CHECK(b != NULL);
    char *big = d_malloc((size_t)1 << 20); /* a sparse chunk, carved from the top */
    int first = huge_advised(b[0]), last = huge_advised(b[SMALL_BLOCKS - 1]), large = huge_advised(big);
    printf("dense: first block's mapping huge-advised %d, last block's %d, a 1 MiB block's %d\n", first, last,
           large);
    CHECK(first == 0); /* the thread's first 2 MiB: normal pages */
    CHECK(last == 1);  /* a thread that fills slabs gets huge pages (huge_page=1) */
    CHECK(large == 0);
    d_free(big);
    free_small(b, d_free);
    return check_report("dense");
}

/* instances/wfslab_chain.h — wfslab's chain below its socket, shared with
 * the test of its memory (tests/instances/wfslab/wfslab_mem_test.c, which
 * puts custom_socket(prefix=x_) on it): thread-local heaps of 256 MiB with
 * huge pages where memory is dense, segfit_lf in log2b classes for blocks
 * of 64 KiB and more, slab_wf in prime classes below. Included right after
 * <mortise/mortise.h>; wfslab.c keeps its whole model line (the `mortise`
 * command reads the .c files). */
#define MT_FAA_HEAP_GROWTH 1
#define MT_THREADLOCAL_HEAP_SIZE ((size_t)256 << 20)
#define MT_HUGE_PAGE 1
#include <mortise/os/mmap_heap.h>

#define MT_SIZECLASS log2b
#define MT_SIZE_HANDLE 65536, SIZE_MAX
#include <mortise/layers/segfit_lf.h>

#define MT_SIZECLASS prime
#define MT_SLAB_SIZE ((size_t)64 << 10)
#define MT_TLLABS 40
#define MT_SIZE_HANDLE 0, 65536
#include <mortise/layers/slab_wf.h>

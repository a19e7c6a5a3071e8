/* wfslabfl — wfslab with a fake layer above every non-OS layer (paper
 * section 4.1): proves that composition costs nothing; tests/suites/zero_cost
 * checks that it compiles to wfslab's machine code.
 * model: mmap_heap(faa_heap_growth=1, threadlocal_heap_size=256MB, huge_page=1)::fake::segfit_lf(sizeclass=log2b, size_handle=[65536,SIZE_MAX])::fake::slab_wf(sizeclass=prime, slab_size=64KB, tllabs=40, size_handle=[0,65536])::fake::malloc_socket
 */
/* Forwarders and glue written out: chains/wfslabfl.inl */
#define MT_GLUE_WRITTEN_OUT
#include <mortise/mortise.h>

#define MT_FAA_HEAP_GROWTH 1
#define MT_THREADLOCAL_HEAP_SIZE ((size_t)256 << 20)
#define MT_HUGE_PAGE 1
#include <mortise/os/mmap_heap.h>

#define MT_NAME fake1
#include "chains/wfslabfl/fake1.inl" /* <mortise/layers/fake.h> as fake1 */

#define MT_SIZECLASS log2b
#define MT_SIZE_HANDLE 65536, SIZE_MAX
#include <mortise/layers/segfit_lf.h>

#define MT_NAME fake2
#include "chains/wfslabfl/fake2.inl" /* <mortise/layers/fake.h> as fake2 */

#define MT_SIZECLASS prime
#define MT_SLAB_SIZE ((size_t)64 << 10)
#define MT_TLLABS 40
#define MT_SIZE_HANDLE 0, 65536
#include <mortise/layers/slab_wf.h>

#define MT_NAME fake3
#include "chains/wfslabfl/fake3.inl" /* <mortise/layers/fake.h> as fake3 */

#include <mortise/sockets/malloc_socket.h>

/* MT_COMPOSE(mmap_heap, fake1, segfit_lf, fake2, slab_wf, fake3, malloc_socket), written out: */
#include "chains/wfslabfl.inl"

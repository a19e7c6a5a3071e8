/* wfslab — the paper's low-latency allocator (section 3): wait-free
 * thread-local slabs for blocks below 64 KiB, lock-free segregated fit
 * above, over thread-local heaps (fewer system calls on the request path;
 * huge_page=1 asks for transparent huge pages only where memory is dense, see
 * os/mmap_heap.h and docs/bench.md "wfslab memory"). No operation takes a
 * lock.
 * model: mmap_heap(faa_heap_growth=1, threadlocal_heap_size=256MB, huge_page=1)::segfit_lf(sizeclass=log2b, size_handle=[65536,SIZE_MAX])::slab_wf(sizeclass=prime, slab_size=64KB, tllabs=40, size_handle=[0,65536])::malloc_socket
 */
/* Forwarders and glue written out: chains/wfslab.inl */
#define MT_GLUE_WRITTEN_OUT
#include <mortise/mortise.h>

#include "wfslab_chain.h"

#include <mortise/sockets/malloc_socket.h>

/* MT_COMPOSE(mmap_heap, segfit_lf, slab_wf, malloc_socket), written out: */
#include "chains/wfslab.inl"

/* safe_tail — a test-only allocator: tail_chksum with the magic policy over
 * the wait-free slabs, through the conformance suite (linked mode).
 * model: mmap_heap::slab_wf(sizeclass=prime, size_handle=[0, 65536])
 *          ::tail_chksum(chksum=magic, err_handle=default)::malloc_socket
 */
#include <mortise/mortise.h>

#include <mortise/os/mmap_heap.h>

#define MT_SIZECLASS prime
#define MT_SIZE_HANDLE 0, 65536
#include <mortise/layers/slab_wf.h>

#define MT_CHKSUM magic
#include <mortise/layers/tail_chksum.h>

#include <mortise/sockets/malloc_socket.h>

MT_COMPOSE(mmap_heap, slab_wf, tail_chksum, malloc_socket)

/* slab_wf — wait-free thread-local slabs for small blocks, every larger
 * request straight to mmap_heap (whole granules, mremap on realloc).
 * model: mmap_heap(threadlocal_heap_size=256MB)::slab_wf(sizeclass=prime, slab_size=64KB, tllabs=40, size_handle=[0, 65536])::malloc_socket
 */
/* Forwarders and glue written out: chains/slab_wf.inl */
#define MT_GLUE_WRITTEN_OUT
#include <mortise/mortise.h>

#define MT_THREADLOCAL_HEAP_SIZE ((size_t)256 << 20)
#include <mortise/os/mmap_heap.h>

#define MT_SIZECLASS prime
#define MT_SLAB_SIZE ((size_t)64 << 10)
#define MT_TLLABS 40
#define MT_SIZE_HANDLE 0, 65536
#include <mortise/layers/slab_wf.h>

#include <mortise/sockets/malloc_socket.h>

/* MT_COMPOSE(mmap_heap, slab_wf, malloc_socket), written out: */
#include "chains/slab_wf.inl"

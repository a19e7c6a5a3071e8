/* slab — slab allocation per size class; large requests go to the OS layer.
 * model: mmap_heap::slab_lk(size_handle=[0, 32768])::malloc_socket
 */
/* Forwarders and glue written out: chains/slab.inl */
#define MT_GLUE_WRITTEN_OUT
#include <mortise/mortise.h>

#include <mortise/os/mmap_heap.h>

#define MT_SIZE_HANDLE 0, 32768
#include <mortise/layers/slab_lk.h>

#include <mortise/sockets/malloc_socket.h>

/* MT_COMPOSE(mmap_heap, slab_lk, malloc_socket), written out: */
#include "chains/slab.inl"

/* segfit_libc — segfit over the C library's own allocator (posix_memalign).
 * model: malloc_heap::segfit_lk(sync=posix_mutex, sizeclass=log2b, size_handle=[0, 262144])::malloc_socket
 */
/* Forwarders and glue written out: chains/segfit_libc.inl */
#define MT_GLUE_WRITTEN_OUT
#include <mortise/mortise.h>

#include <mortise/os/malloc_heap.h>

#define MT_SYNC posix_mutex
#define MT_SIZECLASS log2b
#define MT_SIZE_HANDLE 0, 262144
#include <mortise/layers/segfit_lk.h>

#include <mortise/sockets/malloc_socket.h>

/* MT_COMPOSE(malloc_heap, segfit_lk, malloc_socket), written out: */
#include "chains/segfit_libc.inl"

/* segfit_brk — segfit over one contiguous heap grown with sbrk.
 * model: brk_heap::segfit_lk(sync=posix_mutex, sizeclass=log2b, size_handle=[0, 262144])::malloc_socket
 */
/* Forwarders and glue written out: chains/segfit_brk.inl */
#define MT_GLUE_WRITTEN_OUT
#include <mortise/mortise.h>

#include <mortise/os/brk_heap.h>

#define MT_SYNC posix_mutex
#define MT_SIZECLASS log2b
#define MT_SIZE_HANDLE 0, 262144
#include <mortise/layers/segfit_lk.h>

#include <mortise/sockets/malloc_socket.h>

/* MT_COMPOSE(brk_heap, segfit_lk, malloc_socket), written out: */
#include "chains/segfit_brk.inl"

/* segfit_lf — lock-free segregated fit for every size up to 1 MiB (larger
 * blocks straight from mmap): no lock on any malloc or free.
 * model: mmap_heap::segfit_lf(sizeclass=log2b)::malloc_socket
 */
/* Forwarders and glue written out: chains/segfit_lf.inl */
#define MT_GLUE_WRITTEN_OUT
#include <mortise/mortise.h>

#include <mortise/os/mmap_heap.h>

#define MT_SIZECLASS log2b
#include <mortise/layers/segfit_lf.h>

#include <mortise/sockets/malloc_socket.h>

/* MT_COMPOSE(mmap_heap, segfit_lf, malloc_socket), written out: */
#include "chains/segfit_lf.inl"

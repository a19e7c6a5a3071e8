/* batched — segfit behind per-thread batches of frees (batched_free).
 * model: mmap_heap::segfit_lk(sync=posix_mutex, sizeclass=log2b, size_handle=[0, 262144])::batched_free(batch_size=32, size_handle=[0, 65536])::malloc_socket
 */
/* Forwarders and glue written out: chains/batched.inl */
#define MT_GLUE_WRITTEN_OUT
#include <mortise/mortise.h>

#include "segfit_trunk.h"

#define MT_BATCH_SIZE 32
#define MT_SIZE_HANDLE 0, 65536
#include <mortise/layers/batched_free.h>

#include <mortise/sockets/malloc_socket.h>

/* MT_COMPOSE(mmap_heap, segfit_lk, batched_free, malloc_socket), written out: */
#include "chains/batched.inl"

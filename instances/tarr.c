/* tarr — segfit with per-thread array magazines in front (tarrcache).
 * model: mmap_heap::segfit_lk(sync=posix_mutex, sizeclass=log2b, size_handle=[0, 262144])::tarrcache(sizeclass=log2b, size_handle=[0, 32768], cache_size=1MB)::malloc_socket
 */
/* Forwarders and glue written out: chains/tarr.inl */
#define MT_GLUE_WRITTEN_OUT
#include <mortise/mortise.h>

#include "segfit_trunk.h"

#define MT_SIZECLASS log2b
#define MT_SIZE_HANDLE 0, 32768
#define MT_CACHE_SIZE (1 << 20)
#include <mortise/layers/tarrcache.h>

#include <mortise/sockets/malloc_socket.h>

/* MT_COMPOSE(mmap_heap, segfit_lk, tarrcache, malloc_socket), written out: */
#include "chains/tarr.inl"

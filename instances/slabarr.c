/* slabarr — segfit with a per-thread cache that keeps blocks grouped by
 * their 64 KiB span (slab_arrcache: TLB locality).
 * model: mmap_heap::segfit_lk(sync=posix_mutex, sizeclass=log2b, size_handle=[0, 262144])::slab_arrcache(sizeclass=log2b, size_handle=[0, 32768], cache_size=1MB, slab_size=64KB)::malloc_socket
 */
/* Forwarders and glue written out: chains/slabarr.inl */
#define MT_GLUE_WRITTEN_OUT
#include <mortise/mortise.h>

#include "segfit_trunk.h"

#define MT_SIZECLASS log2b
#define MT_SIZE_HANDLE 0, 32768
#define MT_CACHE_SIZE (1 << 20)
#define MT_SLAB_SIZE (64 << 10)
#include <mortise/layers/slab_arrcache.h>

#include <mortise/sockets/malloc_socket.h>

/* MT_COMPOSE(mmap_heap, segfit_lk, slab_arrcache, malloc_socket), written out: */
#include "chains/slabarr.inl"

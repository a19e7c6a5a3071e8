/* carr — segfit with per-CPU array magazines in front (carrcache_lk).
 * model: mmap_heap::segfit_lk(sync=posix_mutex, sizeclass=log2b, size_handle=[0, 262144])::carrcache_lk(sync=spinlock, sizeclass=log2b, size_handle=[0, 32768], cache_size=1MB)::malloc_socket
 */
/* Forwarders and glue written out: chains/carr.inl */
#define MT_GLUE_WRITTEN_OUT
#include <mortise/mortise.h>

#include "segfit_trunk.h"

#define MT_SYNC spinlock
#define MT_SIZECLASS log2b
#define MT_SIZE_HANDLE 0, 32768
#define MT_CACHE_SIZE (1 << 20)
#include <mortise/layers/carrcache_lk.h>

#include <mortise/sockets/malloc_socket.h>

/* MT_COMPOSE(mmap_heap, segfit_lk, carrcache_lk, malloc_socket), written out: */
#include "chains/carr.inl"

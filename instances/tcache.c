/* tcache — segfit with a per-thread cache in front: the framework's fast-path
 * floor (docs/fastpath.md compares it with bench/baselines/handwritten.c).
 * model: mmap_heap::segfit_lk(sync=posix_mutex, sizeclass=log2b, size_handle=[0, 262144])::thread_cache(sizeclass=log2b, size_handle=[0, 32768], cache_size=2MB)::malloc_socket
 */
/* Forwarders and glue written out: chains/tcache.inl */
#define MT_GLUE_WRITTEN_OUT
#include <mortise/mortise.h>

#include "segfit_trunk.h"

#define MT_SIZECLASS log2b
#define MT_SIZE_HANDLE 0, 32768
#define MT_CACHE_SIZE (2 << 20)
#include <mortise/layers/thread_cache.h>

#include <mortise/sockets/malloc_socket.h>

/* MT_COMPOSE(mmap_heap, segfit_lk, thread_cache, malloc_socket), written out: */
#include "chains/tcache.inl"

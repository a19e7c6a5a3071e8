/* tcache_core — tcache whose per-thread bound follows the core's cache
 * (thread_cache with coreaware_cachesize=1: sizes from MORTISE_CORE_CACHE or
 * sysfs, layers/cache/core_cache.h). On a homogeneous machine it behaves as tcache unless
 * MORTISE_CORE_CACHE emulates cores of different sizes.
 * model: mmap_heap::segfit_lk(sync=posix_mutex, sizeclass=log2b, size_handle=[0, 262144])::thread_cache(sizeclass=log2b, size_handle=[0, 32768], cache_size=2MB, coreaware_cachesize=1)::malloc_socket
 */
/* Forwarders and glue written out: chains/tcache_core.inl */
#define MT_GLUE_WRITTEN_OUT
#include <mortise/mortise.h>

#include "segfit_trunk.h"

#define MT_SIZECLASS log2b
#define MT_SIZE_HANDLE 0, 32768
#define MT_CACHE_SIZE (2 << 20)
#define MT_COREAWARE_CACHESIZE 1
#include <mortise/layers/thread_cache.h>

#include <mortise/sockets/malloc_socket.h>

/* MT_COMPOSE(mmap_heap, segfit_lk, thread_cache, malloc_socket), written out: */
#include "chains/tcache_core.inl"

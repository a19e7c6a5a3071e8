/* affinity — dynamic pool allocation over hslab's chain: objects below
 * 128 bytes grouped by their variable-length call chain (wrappers such as
 * xmalloc or a C++ library's allocate unwound with the toolchain's unwinder) and merged
 * by affinity (a pointer between two groups of one size, or two groups
 * pointed at from the same field), each merged group allocating from its
 * own pool of 4 KiB segments, so linked structures built in interleaved
 * order lie together (docs/affinity.md).
 * model: mmap_heap(faa_heap_growth=1, threadlocal_heap_size=2MB)::buddy_glk(sync=flatcombine, sizeclass=tc, size_handle=[65536,SIZE_MAX])::slab_lk(sync=posix_spin, slab_size=64KB, sizeclass=tc, size_handle=[0,65536])::thread_cache(sizeclass=tc, size_handle=[0,65536], cache_size=2MB, min_blocks=4, coreaware_cachesize=1)::affinity_pool(min_objects=100, max_pooled_size=128, segment_size=4KB, max_chain=8)::malloc_socket
 */
/* Forwarders and glue written out: chains/affinity.inl */
#define MT_GLUE_WRITTEN_OUT
#include <mortise/mortise.h>

#define MT_FAA_HEAP_GROWTH 1
#define MT_THREADLOCAL_HEAP_SIZE ((size_t)2 << 20)
#include <mortise/os/mmap_heap.h>

#define HSLAB_BUDDY_SYNC flatcombine
#define HSLAB_SLAB_SYNC posix_spin
#define HSLAB_COREAWARE 1
#include "hslab_chain.h"

#define MT_MIN_OBJECTS 100
#define MT_MAX_POOLED_SIZE 128
#define MT_SEGMENT_SIZE ((size_t)4 << 10)
#define MT_MAX_CHAIN 8
#include <mortise/layers/affinity_pool.h>

#include <mortise/sockets/malloc_socket.h>

/* MT_COMPOSE(mmap_heap, buddy_glk, slab_lk, thread_cache, affinity_pool, malloc_socket), written out: */
#include "chains/affinity.inl"

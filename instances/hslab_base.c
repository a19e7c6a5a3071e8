/* hslab_base — the paper's hslab (section 3) with plain spinlocks in both
 * trunk layers and a fixed-size thread cache: a global buddy system for
 * blocks of 64 KiB and more, slabs per tcmalloc size class below, and a
 * per-thread cache in front (the paper's had its buddy system from 32 KiB).
 * model: mmap_heap(faa_heap_growth=1, threadlocal_heap_size=2MB)
 *          ::buddy_glk(sync=spinlock, sizeclass=tc, size_handle=[65536, SIZE_MAX])
 *          ::slab_lk(sync=spinlock, slab_size=64KB, sizeclass=tc, size_handle=[0, 65536])
 *          ::thread_cache(sizeclass=tc, size_handle=[0, 65536], cache_size=2MB, min_blocks=4)
 *          ::malloc_socket
 */
/* Forwarders and glue written out: chains/hslab_base.inl */
#define MT_GLUE_WRITTEN_OUT
#include <mortise/mortise.h>

#define MT_FAA_HEAP_GROWTH 1
#define MT_THREADLOCAL_HEAP_SIZE ((size_t)2 << 20)
#include <mortise/os/mmap_heap.h>

#define HSLAB_BUDDY_SYNC spinlock
#define HSLAB_SLAB_SYNC spinlock
#define HSLAB_COREAWARE 0
#include "hslab_chain.h"

#include <mortise/sockets/malloc_socket.h>

/* MT_COMPOSE(mmap_heap, buddy_glk, slab_lk, thread_cache, malloc_socket), written out: */
#include "chains/hslab_base.inl"

/* hslab — the paper's core-aware slab allocator (section 3), shaped like
 * tcmalloc: a global buddy system for blocks of 64 KiB and more under a
 * flat-combining lock (one central lock, many short critical sections),
 * slabs per tcmalloc size class under POSIX spinlocks (contention spread over
 * many classes), and a per-thread cache whose budget follows the cache of
 * the core the thread runs on (MORTISE_CORE_CACHE or sysfs; docs/instances.md).
 * model: mmap_heap(faa_heap_growth=1, threadlocal_heap_size=2MB)::buddy_glk(sync=flatcombine, sizeclass=tc, size_handle=[65536,SIZE_MAX])::slab_lk(sync=posix_spin, slab_size=64KB, sizeclass=tc, size_handle=[0,65536])::thread_cache(sizeclass=tc, size_handle=[0,65536], cache_size=2MB, min_blocks=4, coreaware_cachesize=1)::malloc_socket
 */
/* Forwarders and glue written out: chains/hslab.inl */
#define MT_GLUE_WRITTEN_OUT
#include <mortise/mortise.h>

#define MT_FAA_HEAP_GROWTH 1
#define MT_THREADLOCAL_HEAP_SIZE ((size_t)2 << 20)
#include <mortise/os/mmap_heap.h>

#define HSLAB_BUDDY_SYNC flatcombine
#define HSLAB_SLAB_SYNC posix_spin
#define HSLAB_COREAWARE 1
#include "hslab_chain.h"

#include <mortise/sockets/malloc_socket.h>

/* MT_COMPOSE(mmap_heap, buddy_glk, slab_lk, thread_cache, malloc_socket), written out: */
#include "chains/hslab.inl"

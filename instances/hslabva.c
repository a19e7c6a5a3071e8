/* hslabva — hslab's chain over virtual_alloc_heap: address space reserved
 * in 1 GiB regions and committed only as chunks are handed out, decommitted
 * as they are freed (os/virtual_alloc_heap.h). hslab itself carves from a
 * 64 GiB mmap_heap arena that mt_pal_map commits whole on Windows; this is
 * the form of it a Windows commit limit does not refuse. hslab is the
 * paper's core-aware slab allocator (section 3), shaped like
 * tcmalloc: a global buddy system for blocks of 64 KiB and more under a
 * flat-combining lock (one central lock, many short critical sections),
 * slabs per tcmalloc size class under POSIX spinlocks (contention spread over
 * many classes), and a per-thread cache whose budget follows the cache of
 * the core the thread runs on (MORTISE_CORE_CACHE or sysfs; docs/instances.md).
 * model: virtual_alloc_heap::buddy_glk(sync=flatcombine, sizeclass=tc, size_handle=[65536,SIZE_MAX])::slab_lk(sync=posix_spin, slab_size=64KB, sizeclass=tc, size_handle=[0,65536])::thread_cache(sizeclass=tc, size_handle=[0,65536], cache_size=2MB, min_blocks=4, coreaware_cachesize=1)::malloc_socket
 */
/* Forwarders and glue written out: chains/hslabva.inl */
#define MT_GLUE_WRITTEN_OUT
#include <mortise/mortise.h>

#include <mortise/os/virtual_alloc_heap.h>

#define HSLAB_BUDDY_SYNC flatcombine
#define HSLAB_SLAB_SYNC posix_spin
#define HSLAB_COREAWARE 1
#include "hslab_chain.h"

#include <mortise/sockets/malloc_socket.h>

/* MT_COMPOSE(virtual_alloc_heap, buddy_glk, slab_lk, thread_cache, malloc_socket), written out: */
#include "chains/hslabva.inl"

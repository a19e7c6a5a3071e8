/* hslabd — hslab with a checked header and a 64 KiB per-thread quarantine
 * in front of its thread cache (delayed_free, paper section 4.1): a double
 * free or a write to a quarantined block ends the process (err_handle=fatal).
 * The buddy system (large blocks, slabs), the slabs and the thread cache
 * check every free-list link before following it (link_check, fatal as
 * well): a write into a free block is reported and ends the process,
 * instead of being followed.
 * model: mmap_heap(faa_heap_growth=1, threadlocal_heap_size=2MB)::buddy_glk(sync=flatcombine, sizeclass=tc, size_handle=[65536,SIZE_MAX], link_check=1, err_handle=fatal)::slab_lk(sync=posix_spin, slab_size=64KB, sizeclass=tc, size_handle=[0,65536], link_check=1, err_handle=fatal)::thread_cache(sizeclass=tc, size_handle=[0,65536], cache_size=2MB, min_blocks=4, coreaware_cachesize=1, link_check=1, err_handle=fatal)::delayed_free(chksum=magic, node_xor=1, delayed_size=64KB, err_handle=fatal)::malloc_socket
 */
/* Forwarders and glue written out: chains/hslabd.inl */
#define MT_GLUE_WRITTEN_OUT
#include <mortise/mortise.h>

#define MT_FAA_HEAP_GROWTH 1
#define MT_THREADLOCAL_HEAP_SIZE ((size_t)2 << 20)
#include <mortise/os/mmap_heap.h>

#define MT_SYNC flatcombine
#define MT_SIZECLASS tc
#define MT_SIZE_HANDLE 65536, SIZE_MAX
#define MT_LINK_CHECK 1
#define MT_ERR_HANDLE fatal
#include <mortise/layers/buddy_glk.h>

#define MT_SYNC posix_spin
#define MT_SLAB_SIZE ((size_t)64 << 10)
#define MT_SIZECLASS tc
#define MT_SIZE_HANDLE 0, 65536
#define MT_LINK_CHECK 1
#define MT_ERR_HANDLE fatal
#include <mortise/layers/slab_lk.h>

#define MT_SIZECLASS tc
#define MT_SIZE_HANDLE 0, 65536
#define MT_CACHE_SIZE ((size_t)2 << 20)
#define MT_CACHE_MIN_BLOCKS 4
#define MT_COREAWARE_CACHESIZE 1
#define MT_LINK_CHECK 1
#define MT_ERR_HANDLE fatal
#include <mortise/layers/thread_cache.h>

#define MT_CHKSUM magic
#define MT_NODE_XOR 1
#define MT_DELAYED_SIZE ((size_t)64 << 10)
#define MT_ERR_HANDLE fatal
#include <mortise/layers/delayed_free.h>

#include <mortise/sockets/malloc_socket.h>

/* MT_COMPOSE(mmap_heap, buddy_glk, slab_lk, thread_cache, delayed_free, malloc_socket), written out: */
#include "chains/hslabd.inl"

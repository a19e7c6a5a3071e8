/* The tcache instance with a fake layer above every non-OS layer: must
 * compile to the same machine code as instances/tcache.c — the fakes sit
 * between thread_cache and the getmeta it calls below (MT_BELOW) too.
 * model: mmap_heap::fake::segfit_lk(...)::fake::thread_cache(...)::fake::malloc_socket
 */
#include <mortise/mortise.h>

#include <mortise/os/mmap_heap.h>

#define MT_NAME fake1
#include <mortise/layers/fake.h>

#define MT_SYNC posix_mutex
#define MT_SIZECLASS log2b
#define MT_SIZE_HANDLE 0, 262144
#include <mortise/layers/segfit_lk.h>

#define MT_NAME fake2
#include <mortise/layers/fake.h>

#define MT_SIZECLASS log2b
#define MT_SIZE_HANDLE 0, 32768
#define MT_CACHE_SIZE (2 << 20)
#include <mortise/layers/thread_cache.h>

#define MT_NAME fake3
#include <mortise/layers/fake.h>

#include <mortise/sockets/malloc_socket.h>

MT_COMPOSE(mmap_heap, fake1, segfit_lk, fake2, thread_cache, fake3, malloc_socket)

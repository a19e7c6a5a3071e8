/* safe_both — a test-only allocator: both safety layers over a trunk with a
 * thread cache, run through the whole conformance suite (linked, static,
 * LD_PRELOAD) to show the layers change no answer of the malloc family.
 * model: mmap_heap::segfit_lk(sync=posix_mutex)::thread_cache
 *          ::delayed_free(chksum=crc32, node_xor=1, delayed_size=64KB, err_handle=default)
 *          ::tail_chksum(chksum=xor, err_handle=default)::malloc_socket
 */
#include <mortise/mortise.h>

#include <mortise/os/mmap_heap.h>

#define MT_SYNC posix_mutex
#include <mortise/layers/segfit_lk.h>

#include <mortise/layers/thread_cache.h>

#define MT_CHKSUM crc32
#define MT_NODE_XOR 1
#define MT_DELAYED_SIZE ((size_t)64 << 10)
#define MT_ERR_HANDLE default
#include <mortise/layers/delayed_free.h>

#define MT_CHKSUM xor
#define MT_ERR_HANDLE default
#include <mortise/layers/tail_chksum.h>

#include <mortise/sockets/malloc_socket.h>

MT_COMPOSE(mmap_heap, segfit_lk, thread_cache, delayed_free, tail_chksum, malloc_socket)

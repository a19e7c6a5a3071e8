/* A Mortise allocator that counts what it serves, to preload after
 * wcet_stat_malloc: both must count the same requests.
 * model: mmap_heap::segfit_lk(sync=posix_mutex, sizeclass=log2b, size_handle=[0, 262144])::perf_stat::malloc_socket
 */
#include <mortise/mortise.h>

#include <mortise/os/mmap_heap.h>

#define MT_SYNC posix_mutex
#define MT_SIZECLASS log2b
#define MT_SIZE_HANDLE 0, 262144
#include <mortise/layers/segfit_lk.h>

#include <mortise/layers/perf_stat.h>

#include <mortise/sockets/malloc_socket.h>

MT_COMPOSE(mmap_heap, segfit_lk, perf_stat, malloc_socket)

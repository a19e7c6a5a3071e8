/* instances/segfit.c with lock_stat=1: the negative case of the zero-cost
 * check (malloc and free must differ, or the check sees nothing), and the
 * allocator of the lock-statistics run of a real program. */
#include <mortise/mortise.h>

#include <mortise/os/mmap_heap.h>

#define MT_SYNC posix_mutex
#define MT_SIZECLASS log2b
#define MT_SIZE_HANDLE 0, 262144
#define MT_LOCK_STAT 1
#include <mortise/layers/segfit_lk.h>

#include <mortise/sockets/malloc_socket.h>

MT_COMPOSE(mmap_heap, segfit_lk, malloc_socket)

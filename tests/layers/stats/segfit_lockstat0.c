/* instances/segfit.c with lock_stat=0 spelled out: must compile to the same
 * machine code as segfit itself (the switch off costs nothing). */
#include <mortise/mortise.h>

#include <mortise/os/mmap_heap.h>

#define MT_SYNC posix_mutex
#define MT_SIZECLASS log2b
#define MT_SIZE_HANDLE 0, 262144
#define MT_LOCK_STAT 0
#include <mortise/layers/segfit_lk.h>

#include <mortise/sockets/malloc_socket.h>

MT_COMPOSE(mmap_heap, segfit_lk, malloc_socket)

/* The segfit instance's layers up to segfit_lk (instances/segfit.c), for the
 * negative variants that add one layer above it. */
#include <mortise/mortise.h>

#include <mortise/os/mmap_heap.h>

#define MT_SYNC posix_mutex
#define MT_SIZECLASS log2b
#define MT_SIZE_HANDLE 0, 262144
#include <mortise/layers/segfit_lk.h>

/* instances/segfit_trunk.h — segfit's chain (instances/segfit.c) for the
 * instances that put a cache or a free batch in front of it (tcache,
 * tcache_core, tarr, slabarr, carr, batched): segfit_lk under a mutex with
 * log2b classes for blocks up to 256 KiB, over mmap_heap. Included right
 * after <mortise/mortise.h>; each file keeps its whole model line (the
 * `mortise` command reads the .c files). segfit.c itself writes it out, as
 * `mortise build` would (tests/tools/test_mortise.py compares the two). */
#include <mortise/os/mmap_heap.h>

#define MT_SYNC posix_mutex
#define MT_SIZECLASS log2b
#define MT_SIZE_HANDLE 0, 262144
#include <mortise/layers/segfit_lk.h>

/* segfit with four fake layers, two of them back to back: must compile to
 * the same machine code as instances/segfit.c (tests/suites/zero_cost).
 * model: mmap_heap::fake::fake::segfit_lk(sync=posix_mutex, sizeclass=log2b, size_handle=[0, 262144])::fake::fake::malloc_socket
 */
#include <mortise/mortise.h>

#include <mortise/os/mmap_heap.h>

#define MT_NAME fake1
#include <mortise/layers/fake.h>
#define MT_NAME fake2
#include <mortise/layers/fake.h>

#define MT_SYNC posix_mutex
#define MT_SIZECLASS log2b
#define MT_SIZE_HANDLE 0, 262144
#include <mortise/layers/segfit_lk.h>

#define MT_NAME fake3
#include <mortise/layers/fake.h>
#define MT_NAME fake4
#include <mortise/layers/fake.h>

#include <mortise/sockets/malloc_socket.h>

MT_COMPOSE(mmap_heap, fake1, fake2, segfit_lk, fake3, fake4, malloc_socket)

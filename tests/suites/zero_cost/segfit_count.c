/* Negative self-test of tests/suites/zero_cost: segfit with the count layer
 * (include/mortise/layers/count.h), which does real work on alloc and free:
 * the comparison with instances/segfit.c must see malloc and free change.
 * model: mmap_heap::segfit_lk(...)::count::malloc_socket
 */
#include "segfit_below.h"

#include <mortise/layers/count.h>

#include <mortise/sockets/malloc_socket.h>

MT_COMPOSE(mmap_heap, segfit_lk, count, malloc_socket)

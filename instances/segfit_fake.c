/* segfit_fake — segfit with a fake layer above every non-OS layer; exists to
 * prove zero-cost composition (tests/suites/zero_cost compares its machine code with
 * segfit's).
 * model: mmap_heap::fake::segfit_lk(sync=posix_mutex, sizeclass=log2b, size_handle=[0, 262144])::fake::malloc_socket
 */
/* Forwarders and glue written out: chains/segfit_fake.inl */
#define MT_GLUE_WRITTEN_OUT
#include <mortise/mortise.h>

#include <mortise/os/mmap_heap.h>

#define MT_NAME fake1
#include "chains/segfit_fake/fake1.inl" /* <mortise/layers/fake.h> as fake1 */

#define MT_SYNC posix_mutex
#define MT_SIZECLASS log2b
#define MT_SIZE_HANDLE 0, 262144
#include <mortise/layers/segfit_lk.h>

#define MT_NAME fake2
#include "chains/segfit_fake/fake2.inl" /* <mortise/layers/fake.h> as fake2 */

#include <mortise/sockets/malloc_socket.h>

/* MT_COMPOSE(mmap_heap, fake1, segfit_lk, fake2, malloc_socket), written out: */
#include "chains/segfit_fake.inl"

/* Compiled by CMake, not run. A slot value outside the range its layer's
 * descriptor declares (core/describe.h) must not compile, and the error
 * names the instance and the slot (tools.descriptor_range.OUTSIDE:
 * batch_size=0); the control, 2 and the range's top, compiles
 * (tools.descriptor_range.CONTROL). */
#include <mortise/mortise.h>

#include <mortise/os/mmap_heap.h>
#define MT_SIZE_HANDLE 0, 65536
#include <mortise/layers/segfit_lk.h>

#if defined(OUTSIDE)
#define MT_BATCH_SIZE 0
#else
#define MT_BATCH_SIZE 2
#endif
#include <mortise/layers/batched_free.h>
#define MT_NAME batched_top
#define MT_BATCH_SIZE 65536
#include <mortise/layers/batched_free.h>

#define MT_PREFIX z_
#include <mortise/sockets/custom_socket.h>

MT_COMPOSE(mmap_heap, segfit_lk, batched_free, batched_top, custom_socket)

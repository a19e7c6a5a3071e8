/* `mixed`: the composition the sanitizer tests and the fuzzer run longest
 * (sanitize.mixed.*, fuzz.mixed), beside every instance of instances/
 * (clang_exe.cmake, mortise_sanitized_compositions). The one place it is
 * written:
 *
 *   mmap_heap(faa_heap_growth=1, threadlocal_heap_size=2MB)
 *     :: segfit_lk(sync=posix_mutex, sizeclass=log2b, size_handle=[4096, 262144])
 *     :: segfit_lk(sync=spinlock, sizeclass=interval, size_handle=[0, 4096])
 *     :: fake
 *     :: custom_socket(prefix=san_)
 *
 * Two instances of one layer type, both OS-layer growth modes, two sync
 * policies and two size-class policies, so the checks reach most layer code.
 */
#include <mortise/mortise.h>

#define MT_FAA_HEAP_GROWTH 1
#define MT_THREADLOCAL_HEAP_SIZE 2097152 /* 2 MB */
#include <mortise/os/mmap_heap.h>

#define MT_NAME medium
#define MT_SYNC posix_mutex
#define MT_SIZECLASS log2b
#define MT_SIZE_HANDLE 4096, 262144
#include <mortise/layers/segfit_lk.h>

#define MT_NAME small
#define MT_SYNC spinlock
#define MT_SIZECLASS interval
#define MT_SIZECLASS_STEP 16
#define MT_SIZE_HANDLE 0, 4096
#include <mortise/layers/segfit_lk.h>

#include <mortise/layers/fake.h>

#define MT_PREFIX san_
#include <mortise/sockets/custom_socket.h>

MT_COMPOSE(mmap_heap, medium, small, fake, custom_socket)

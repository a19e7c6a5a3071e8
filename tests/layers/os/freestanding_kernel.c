/* Built freestanding (-ffreestanding -nostdinc, MT_FREESTANDING, MT_NO_THREADS):
 * a kernel's allocator with no C library and no OS below it.
 * model: sheap_glk(pool_size=4MB, sync=spinlock)::segfit_lk(sync=spinlock, size_handle=[0, 65536])::kernel_socket(prefix=fs_)
 */
#define MT_CTX_EXTRA unsigned gfp;
#include <mortise/mortise.h>

#define MT_POOL_SIZE ((size_t)4 << 20)
#define MT_SYNC spinlock
#include <mortise/os/sheap_glk.h>

#define MT_SYNC spinlock
#define MT_SIZE_HANDLE 0, 65536
#include <mortise/layers/segfit_lk.h>

#define MT_PREFIX fs_
#include <mortise/sockets/kernel_socket.h>

MT_COMPOSE(sheap_glk, segfit_lk, kernel_socket)

/* model: sheap_glk(pool_size=2MB, sync=spinlock)
 *          ::buddy_glk(sync=spinlock, size_handle=[32768, SIZE_MAX])
 *          ::slab_lk(sync=spinlock, size_handle=[0, 32768])::kernel_socket(prefix=bm_)
 * A kernel's shape (page allocator, slabs above it) behind the Linux
 * interface; spinlocks as a kernel would take them (one core here). */
#define MT_CTX_EXTRA unsigned gfp;
#include <mortise/mortise.h>

#define MT_POOL_SIZE ((size_t)2 << 20)
#define MT_SYNC spinlock
#include <mortise/os/sheap_glk.h>

#define MT_SYNC spinlock
#define MT_SIZE_HANDLE 32768, SIZE_MAX
#define MT_BUDDY_CHUNK_SHIFT 20
#include <mortise/layers/buddy_glk.h>

#define MT_SYNC spinlock
#define MT_SIZE_HANDLE 0, 32768
#include <mortise/layers/slab_lk.h>

#define MT_PREFIX bm_
#include <mortise/sockets/kernel_socket.h>

MT_COMPOSE(sheap_glk, buddy_glk, slab_lk, kernel_socket)

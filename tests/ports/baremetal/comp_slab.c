/* model: sheap_glk(pool_size=6MB, sync=none)
 *          ::buddy_glk(sync=none, size_handle=[32768, SIZE_MAX])
 *          ::slab_lk(sync=none, size_handle=[0, 32768])::custom_socket(prefix=bm_slab_)
 * hslab's trunks without its cache: slabs of 64 KiB taken from 1 MiB buddy
 * chunks (MT_BUDDY_CHUNK_SHIFT 20: 4 MiB chunks would take most of the pool). */
#include <mortise/mortise.h>

#define MT_POOL_SIZE ((size_t)6 << 20)
#define MT_SYNC none
#include <mortise/os/sheap_glk.h>

#define MT_SYNC none
#define MT_SIZE_HANDLE 32768, SIZE_MAX
#define MT_BUDDY_CHUNK_SHIFT 20
#include <mortise/layers/buddy_glk.h>

#define MT_SYNC none
#define MT_SIZE_HANDLE 0, 32768
#include <mortise/layers/slab_lk.h>

#define MT_PREFIX bm_slab_
#include <mortise/sockets/custom_socket.h>

MT_COMPOSE(sheap_glk, buddy_glk, slab_lk, custom_socket)

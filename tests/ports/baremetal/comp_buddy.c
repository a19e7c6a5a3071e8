/* model: sheap_glk(pool_size=4MB, sync=none)::buddy_glk(sync=none, size_handle=[0, SIZE_MAX])::custom_socket(prefix=bm_buddy_)
 * A buddy system serving every size from 16 bytes (MT_BUDDY_MIN_SHIFT 4,
 * as instance buddy) in 1 MiB chunks; larger requests go to sheap_glk. */
#include <mortise/mortise.h>

#define MT_POOL_SIZE ((size_t)4 << 20)
#define MT_SYNC none
#include <mortise/os/sheap_glk.h>

#define MT_SYNC none
#define MT_SIZE_HANDLE 0, SIZE_MAX
#define MT_BUDDY_CHUNK_SHIFT 20
#define MT_BUDDY_MIN_SHIFT 4
#include <mortise/layers/buddy_glk.h>

#define MT_PREFIX bm_buddy_
#include <mortise/sockets/custom_socket.h>

MT_COMPOSE(sheap_glk, buddy_glk, custom_socket)

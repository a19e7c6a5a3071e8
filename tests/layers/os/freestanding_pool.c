/* Built freestanding (-ffreestanding -nostdinc, MT_FREESTANDING, MT_NO_THREADS):
 * a static pool behind a socket written by hand for its one user, as on bare
 * metal: pool_take(size) / pool_give(p) / pool_room(p).
 * model: sheap_glk(pool_size=1MB, sync=none)::pool_socket
 */
#include <mortise/mortise.h>

#define MT_POOL_SIZE ((size_t)1 << 20)
#define MT_SYNC none
#include <mortise/os/sheap_glk.h>

/* The socket: implements no layer operation (layer_end.h forwards them
 * all) and offers three calls. */
#define MT_NAME pool_socket
#include <mortise/core/layer_end.h>
#include <mortise/sockets/socket_core.h>
#include <mortise/sockets/socket_threads.h>

MT_EXPORT void *pool_take(size_t size)
{
    mt_ctx ctx = mt_socket_request();
    ctx.size = size;
    return mt_chain_alloc(&ctx);
}
MT_EXPORT void pool_give(void *p) { mt_socket_free_req(mt_socket_request(), p); }
MT_EXPORT size_t pool_room(void *p) { return mt_socket_usable_req(mt_socket_request(), p); }

MT_COMPOSE(sheap_glk, pool_socket)

/* safe_cb — a test-only allocator with err_handle=callback, preloaded under
 * preload_handler.c (the exported mortise_set_error_handler).
 * model: mmap_heap::segfit_lk::delayed_free(err_handle=callback)
 *          ::tail_chksum(err_handle=callback)::malloc_socket
 */
#include <mortise/mortise.h>

#include <mortise/os/mmap_heap.h>

#include <mortise/layers/segfit_lk.h>

#define MT_ERR_HANDLE callback
#include <mortise/layers/delayed_free.h>

#define MT_ERR_HANDLE callback
#include <mortise/layers/tail_chksum.h>

#include <mortise/sockets/malloc_socket.h>

MT_COMPOSE(mmap_heap, segfit_lk, delayed_free, tail_chksum, malloc_socket)

/* tlsf — the paper's baseline: TLSF over one contiguous heap, one mutex.
 * model: brk_heap::tlsf_glk(sync=posix_mutex)::malloc_socket
 */
#include <mortise/mortise.h>

#include <mortise/os/brk_heap.h>

#define MT_SYNC posix_mutex
#include <mortise/layers/tlsf_glk.h>

#include <mortise/sockets/malloc_socket.h>

MT_COMPOSE(brk_heap, tlsf_glk, malloc_socket)

/* tlsf — the paper's baseline: TLSF over one contiguous heap, one mutex.
 * model: brk_heap::tlsf_glk(sync=posix_mutex)::malloc_socket
 */
/* Forwarders and glue written out: chains/tlsf.inl */
#define MT_GLUE_WRITTEN_OUT
#include <mortise/mortise.h>

#include <mortise/os/brk_heap.h>

#define MT_SYNC posix_mutex
#include <mortise/layers/tlsf_glk.h>

#include <mortise/sockets/malloc_socket.h>

/* MT_COMPOSE(brk_heap, tlsf_glk, malloc_socket), written out: */
#include "chains/tlsf.inl"

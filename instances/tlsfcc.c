/* tlsfcc — the paper's tlsfcc (section 3): the tlsf baseline with its one
 * global lock replaced by ccsynch, a fair combining lock (one thread runs
 * the queued critical sections of the others), for multicore embedded
 * systems. The heap stays one contiguous brk region, which TLSF's
 * split-and-merge needs to keep fragmentation low.
 * model: brk_heap::tlsf_glk(sync=ccsynch, size_handle=[0,SIZE_MAX])::malloc_socket
 */
/* Forwarders and glue written out: chains/tlsfcc.inl */
#define MT_GLUE_WRITTEN_OUT
#include <mortise/mortise.h>

#include <mortise/os/brk_heap.h>

#define MT_SYNC ccsynch
#define MT_SIZE_HANDLE 0, SIZE_MAX
#include <mortise/layers/tlsf_glk.h>

#include <mortise/sockets/malloc_socket.h>

/* MT_COMPOSE(brk_heap, tlsf_glk, malloc_socket), written out: */
#include "chains/tlsfcc.inl"

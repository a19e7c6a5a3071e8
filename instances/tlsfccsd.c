/* tlsfccsd — tlsfcc with both safety layers (paper section 4.1): the
 * quarantine with checked headers (delayed_free) and, above it, the tail
 * check word (tail_chksum), so an overflow is reported at the free itself
 * and the quarantine keeps the checked block. Each layer keeps the paper's
 * policies: delayed_free ends the process on a bug, tail_chksum reports it
 * and goes on. tlsf_glk checks every free block before it trusts its links
 * or its size (link_check), so a write into a free block is reported, not
 * followed.
 * model: brk_heap::tlsf_glk(sync=ccsynch, size_handle=[0,SIZE_MAX], link_check=1)::delayed_free(chksum=magic, node_xor=1, delayed_size=64KB, err_handle=fatal)::tail_chksum(chksum=xor, err_handle=default)::malloc_socket
 */
/* Forwarders and glue written out: chains/tlsfccsd.inl */
#define MT_GLUE_WRITTEN_OUT
#include <mortise/mortise.h>

#include <mortise/os/brk_heap.h>

#define MT_SYNC ccsynch
#define MT_SIZE_HANDLE 0, SIZE_MAX
#define MT_LINK_CHECK 1
#include <mortise/layers/tlsf_glk.h>

#define MT_CHKSUM magic
#define MT_NODE_XOR 1
#define MT_DELAYED_SIZE ((size_t)64 << 10)
#define MT_ERR_HANDLE fatal
#include <mortise/layers/delayed_free.h>

#define MT_CHKSUM xor
#define MT_ERR_HANDLE default
#include <mortise/layers/tail_chksum.h>

#include <mortise/sockets/malloc_socket.h>

/* MT_COMPOSE(brk_heap, tlsf_glk, delayed_free, tail_chksum, malloc_socket), written out: */
#include "chains/tlsfccsd.inl"

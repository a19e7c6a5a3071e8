/* tlsf_mmap — TLSF over mmap'd chunks (regions join when the kernel places
 * chunks side by side), one spinlock.
 * model: mmap_heap::tlsf_glk(sync=spinlock)::malloc_socket
 */
/* Forwarders and glue written out: chains/tlsf_mmap.inl */
#define MT_GLUE_WRITTEN_OUT
#include <mortise/mortise.h>

#include <mortise/os/mmap_heap.h>

#define MT_SYNC spinlock
#include <mortise/layers/tlsf_glk.h>

#include <mortise/sockets/malloc_socket.h>

/* MT_COMPOSE(mmap_heap, tlsf_glk, malloc_socket), written out: */
#include "chains/tlsf_mmap.inl"

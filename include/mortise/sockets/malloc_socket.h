/* malloc_socket — the malloc(3) interface.
 *
 * Serves: the whole family under the standard names — malloc, free, calloc,
 *   realloc, reallocarray, memalign, posix_memalign, aligned_alloc, valloc,
 *   pvalloc, malloc_usable_size, cfree, free_sized, free_aligned_sized, the glibc
 *   extensions malloc_trim, mallinfo, mallinfo2, malloc_stats, malloc_info,
 *   mallopt, and C++ operator new/delete in all their forms (sockets/family.h
 *   and sockets/cxx_new.h give each one's exact behaviour); and
 *   mortise_check(): NULL if every layer's invariants hold, else "layer:
 *   what is broken" (the chain's check operation; call it while no other
 *   thread is inside the allocator).
 * Threads: per-thread create/exit and fork handlers (core/thread.h).
 * Slots: none. Layer operations: all forwarded (the socket is the top).
 * Use: include last (the entry points call the chain, which MT_COMPOSE then
 *   defines), e.g.  MT_COMPOSE(mmap_heap, segfit_lk, malloc_socket)
 * Example: mmap_heap::segfit_lk::malloc_socket
 */
/* The layer's descriptor (core/describe.h): the data tools/describe_layers.py
 * reads and core/layer_end.h checks the slots against. */
#define MT_DESCRIPTOR_malloc_socket(LAYER, SLOT) \
    LAYER(malloc_socket, socket, 0, (), ())      \
    MT_OPS(SLOT, none)
#ifndef MT_DESCRIBE /* describe mode reads the descriptor alone */
#include "../core/layer.h"

#ifdef MT_NAME /* another instance name: the names below become its own */
#include "../names/malloc_socket.h"
#else
#define MT_NAME malloc_socket
#endif
#define MT_DESCRIPTOR MT_DESCRIPTOR_malloc_socket
#include "../core/layer_end.h"

#if defined(MT_SOCKET_RENAME)
/* The same family under a prefix instead of the standard names (the Windows
 * DLL build: mt_malloc, mt_free, ...; docs/portability.md): the program
 * keeps its C library's malloc and calls these by name. */
#define MT_SOCKET_PREFIX MT_SOCKET_RENAME
#define MT_SOCKET_ERROR_API MT_CAT(MT_SOCKET_RENAME, set_error_handler)
#define MT_SOCKET_CHECK_API MT_CAT(MT_SOCKET_RENAME, check)
#define MT_STATS_PREFIX MT_SOCKET_RENAME
#else
#define MT_SOCKET_PREFIX
#define MT_SOCKET_REPLACES_MALLOC 1 /* family.h: what replacing the C library's needs */
#endif
#include "../core/thread.h"
#include "family.h"
#if !defined(MT_SOCKET_RENAME)
#include "cxx_new.h"
#endif
#ifdef MT_NAMES_malloc_socket
#include "../names/malloc_socket.h" /* forget them */
#endif
#endif /* MT_DESCRIBE */

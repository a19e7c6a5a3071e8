/* custom_socket — the malloc family under a prefix of your choice.
 * Serves: PREFIXmalloc, PREFIXfree, PREFIXcalloc, PREFIXrealloc, ... — the same
 *   family and behaviour as malloc_socket (sockets/family.h), without C++
 *   operators, so a Mortise allocator lives beside the system's malloc:
 *     custom_socket(prefix=myheap_)  →  myheap_malloc(), myheap_free(), ...
 *   and PREFIXcheck(): NULL if every layer's invariants hold, else "layer:
 *   what is broken" (the chain's check operation; call it while no other
 *   thread is inside the allocator).
 * Slots: prefix=IDENT → MT_PREFIX (mortise_).
 * Threads: per-thread create/exit and fork handlers (core/thread.h).
 * Example: mmap_heap::segfit_lk::custom_socket(prefix=myheap_)
 */
/* The layer's descriptor (core/describe.h): the data tools/describe_layers.py
 * reads and core/layer_end.h checks the slots against. */
#define MT_DESCRIPTOR_custom_socket(LAYER, SLOT) \
    LAYER(custom_socket, socket, 0, (), ())      \
    MT_OPS(SLOT, none)                           \
    SLOT(prefix, MT_PREFIX, IDENT, mortise_, (), ())
#ifndef MT_DESCRIBE /* describe mode reads the descriptor alone */
#include "../core/layer.h"

#ifdef MT_NAME /* another instance name: the names below become its own */
#include "../names/custom_socket.h"
#else
#define MT_NAME custom_socket
#endif
#ifndef MT_PREFIX
#define MT_PREFIX mortise_
#endif

#define MT_SOCKET_PREFIX MT_PREFIX
#define MT_SOCKET_ERROR_API MT_CAT(MT_PREFIX, set_error_handler) /* with a safety layer */
#define MT_SOCKET_CHECK_API MT_CAT(MT_PREFIX, check)             /* PREFIXcheck(): the chain's invariants */
#define MT_STATS_PREFIX MT_PREFIX                                /* PREFIXstats_print, PREFIXstats_json */
#include "../core/thread.h"
#include "family.h"
#define MT_DESCRIPTOR MT_DESCRIPTOR_custom_socket
#include "../core/layer_end.h"
/* Forget this instance's slots: the next instance starts from the defaults. */
#undef MT_PREFIX
#ifdef MT_NAMES_custom_socket
#include "../names/custom_socket.h" /* forget them */
#endif
#endif /* MT_DESCRIBE */

/* mortise/sockets/cmalloc_api.h — what code calling a cmalloc_socket
 * allocator includes: the prototypes under the socket's prefix.
 *     #define MT_PREFIX my_
 *     #include <mortise/sockets/cmalloc_api.h>    // my_cmalloc(), ...
 * cmalloc_socket.h includes it too, so definitions and declarations agree.
 * Semantics: sockets/cmalloc_socket.h.
 */
#ifndef MORTISE_SOCKETS_CMALLOC_API_H
#define MORTISE_SOCKETS_CMALLOC_API_H

#include "../core/platform.h"

#ifndef MT_PREFIX
#define MT_PREFIX
#endif
#define MT_CMALLOC_API(name) MT_CAT(MT_PREFIX, name)

void *MT_CMALLOC_API(cmalloc)(size_t size, int cpu);
void *MT_CMALLOC_API(cmalloc_calloc)(size_t n, size_t each, int cpu);
void *MT_CMALLOC_API(cmalloc_realloc)(void *p, size_t size, int cpu);
void *MT_CMALLOC_API(cmalloc_aligned)(size_t align, size_t size, int cpu);
void MT_CMALLOC_API(cmalloc_free)(void *p, int cpu);
size_t MT_CMALLOC_API(cmalloc_usable_size)(void *p);

#endif

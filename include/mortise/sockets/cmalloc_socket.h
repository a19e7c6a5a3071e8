/* cmalloc_socket — malloc with a caller-given CPU id.
 *
 * Serves: the malloc(3) calls with one more argument, the CPU (core, cache
 *   partition, DRAM bank) the caller wants the request served for. It travels
 *   to every layer in ctx->cpu, where core-aware layers read it (per-CPU
 *   caches, memory partitioned by bank or cache colour) instead of asking the
 *   OS which CPU the thread runs on. cpu < 0 means "no preference" and
 *   behaves exactly like malloc.
 *     void  *PREFIXcmalloc(size_t size, int cpu);
 *     void  *PREFIXcmalloc_calloc(size_t n, size_t each, int cpu);
 *     void  *PREFIXcmalloc_realloc(void *p, size_t size, int cpu);
 *     void  *PREFIXcmalloc_aligned(size_t align, size_t size, int cpu);
 *     void   PREFIXcmalloc_free(void *p, int cpu);    cpu: where it is freed
 *     size_t PREFIXcmalloc_usable_size(void *p);
 *   Names start with cmalloc (not c + the malloc names: cfree is taken by the
 *   malloc family), so the socket lives beside the system's malloc.
 *   Answers as malloc(3) (sockets/socket_core.h): NULL with ENOMEM for sizes
 *   above PTRDIFF_MAX or a calloc overflow, NULL with EINVAL for an alignment
 *   that is not a power of two; free never changes errno and ignores
 *   pointers no layer owns; usable_size of those is 0.
 * Slots: prefix=IDENT → MT_PREFIX (empty). Callers include
 *   sockets/cmalloc_api.h under the same prefix for the declarations.
 * Threads: per-thread create/exit and fork handlers (sockets/socket_threads.h).
 * Layer operations: all forwarded (the socket is the top).
 * Example: mmap_heap::segfit_lk::thread_cache(coreaware_cachesize=1)::cmalloc_socket
 */
/* The layer's descriptor (core/describe.h): the data tools/describe_layers.py
 * reads and core/layer_end.h checks the slots against. */
#define MT_DESCRIPTOR_cmalloc_socket(LAYER, SLOT) \
    LAYER(cmalloc_socket, socket, 0, (), ())      \
    MT_OPS(SLOT, none)                            \
    SLOT(prefix, MT_PREFIX, IDENT, empty, (), ())
#ifndef MT_DESCRIBE /* describe mode reads the descriptor alone */
#include "../core/layer.h"

#ifdef MT_NAME /* another instance name: the names below become its own */
#include "../names/cmalloc_socket.h"
#else
#define MT_NAME cmalloc_socket
#endif

#include "cmalloc_api.h" /* the prototypes; MT_PREFIX defaults to none */
#include "socket_core.h"
#include "socket_threads.h"

MT_INLINE mt_ctx mt_cmalloc_request(int cpu)
{
    mt_ctx req = mt_socket_request();
    req.cpu = cpu < 0 ? -1 : cpu;
    return req;
}

MT_EXPORT void *MT_CMALLOC_API(cmalloc)(size_t size, int cpu)
{
    MT_SOCKET_NOTE_CALLER();
    mt_ctx ctx = mt_cmalloc_request(cpu);
    ctx.size = size;
    return mt_socket_alloc(&ctx);
}

MT_EXPORT void *MT_CMALLOC_API(cmalloc_calloc)(size_t n, size_t each, int cpu)
{
    MT_SOCKET_NOTE_CALLER();
    return mt_socket_calloc_req(mt_cmalloc_request(cpu), n, each);
}

MT_EXPORT void *MT_CMALLOC_API(cmalloc_realloc)(void *p, size_t size, int cpu)
{
    MT_SOCKET_NOTE_CALLER();
    return mt_socket_realloc_req(mt_cmalloc_request(cpu), p, size);
}

MT_EXPORT void *MT_CMALLOC_API(cmalloc_aligned)(size_t align, size_t size, int cpu)
{
    MT_SOCKET_NOTE_CALLER();
    return mt_socket_aligned_req(mt_cmalloc_request(cpu), align, size);
}

MT_EXPORT void MT_CMALLOC_API(cmalloc_free)(void *p, int cpu)
{
    MT_SOCKET_NOTE_CALLER();
    mt_socket_free_req(mt_cmalloc_request(cpu), p);
}

MT_EXPORT size_t MT_CMALLOC_API(cmalloc_usable_size)(void *p)
{
    MT_SOCKET_NOTE_CALLER();
    return mt_socket_usable_req(mt_socket_request(), p);
}

#undef MT_PREFIX
#include "stats_exit.h" /* MORTISE_STATS: the report at exit */

#define MT_DESCRIPTOR MT_DESCRIPTOR_cmalloc_socket
#include "../core/layer_end.h"
#ifdef MT_NAMES_cmalloc_socket
#include "../names/cmalloc_socket.h" /* forget them */
#endif
#endif /* MT_DESCRIBE */

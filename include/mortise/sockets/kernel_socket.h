/* kernel_socket — the Linux kernel's allocation interface.
 *
 * Serves (every name after prefix=PREFIX):
 *   void  *page_alloc(unsigned order)        2^order pages of MT_PAGE_SIZE,
 *                                           aligned to their size; NULL iff
 *                                           order > MT_KERNEL_MAX_ORDER or no memory
 *   void   page_free(void *p, unsigned order)
 *   void  *kmalloc(size_t size, unsigned flags)
 *   void  *kzalloc(size_t size, unsigned flags)      kmalloc | MT_GFP_ZERO
 *   void  *kcalloc(size_t n, size_t size, unsigned flags)  NULL on overflow
 *   void   kfree(const void *p)              NULL and MT_ZERO_SIZE_PTR: nothing
 *   size_t ksize(const void *p)              usable bytes, 0 for foreign pointers
 *   mt_kmem_cache *kmem_cache_create(name, size, align, flags, ctor)
 *   void  *kmem_cache_alloc(cache, flags), kmem_cache_zalloc(cache, flags)
 *   void   kmem_cache_free(cache, p), kmem_cache_destroy(cache)
 *   int    kmem_cache_shrink(cache)          purge: free memory back to the OS
 *   As in Linux: kmalloc(0) returns MT_ZERO_SIZE_PTR (not NULL, never to be
 *   dereferenced); a power-of-two kmalloc size up to a page is aligned to
 *   itself; other blocks to MT_MIN_ALIGN; no errno, failures are NULL.
 *   Caches: objects of `size` rounded up to `align` (0: MT_MIN_ALIGN;
 *   MT_SLAB_HWCACHE_ALIGN: at least a cache line); the cache is a typed
 *   request, served by the layers like any other. `ctor` runs on every object
 *   kmem_cache_alloc returns (Linux runs it once per slab object and expects
 *   objects freed constructed; running it each time gives callers the same
 *   guarantee). `name` is kept, not copied. Destroy a cache after freeing
 *   its objects.
 * Flags: MT_GFP_KERNEL (0), MT_GFP_ATOMIC (the caller cannot sleep),
 *   MT_GFP_ZERO (zero-filled; honoured here). Every flag reaches the layers
 *   in ctx->gfp, so a layer can act on them (e.g. take no blocking lock for
 *   MT_GFP_ATOMIC). This needs the context field, declared before Mortise is
 *   included:     #define MT_CTX_EXTRA unsigned gfp;
 * Slots: prefix=IDENT → MT_PREFIX (empty: the kernel's names; set one when
 *   the names exist already, as in a kernel). Callers include
 *   sockets/kernel_api.h under the same prefix for the declarations.
 * Threads: per-thread create/exit (sockets/socket_threads.h); freestanding or
 *   with MT_NO_THREADS none, as a kernel calls into its allocator itself.
 * Freestanding: needs no C library (memset through __builtin_memset).
 * Layer operations: all forwarded (the socket is the top).
 * Example: sheap_glk(pool_size=8MB)::segfit_lk(sync=spinlock)::kernel_socket(prefix=mt_)
 */
/* The layer's descriptor (core/describe.h): the data tools/describe_layers.py
 * reads and core/layer_end.h checks the slots against. */
#define MT_DESCRIPTOR_kernel_socket(LAYER, SLOT)  \
    LAYER(kernel_socket, socket, 0, (), ())       \
    MT_OPS(SLOT, none)                            \
    SLOT(prefix, MT_PREFIX, IDENT, empty, (), ()) \
    MT_CTX_FIELD(SLOT, unsigned, gfp)
#ifndef MT_DESCRIBE /* describe mode reads the descriptor alone */
#include "../core/layer.h"

#ifdef MT_NAME /* another instance name: the names below become its own */
#include "../names/kernel_socket.h"
#else
#define MT_NAME kernel_socket
#endif
#ifndef MT_KERNEL_MAX_ORDER
#define MT_KERNEL_MAX_ORDER 10
#endif

#include "kernel_api.h" /* flags, mt_kmem_cache, prototypes; MT_PREFIX defaults to none */
#include "socket_core.h"
#include "socket_threads.h"

MT_INLINE mt_ctx mt_kernel_request(size_t size, size_t align, unsigned flags)
{
    mt_ctx ctx = mt_socket_request();
    ctx.size = size;
    ctx.align = align;
    ctx.gfp = flags;
    return ctx;
}

/* Run an allocation and honour MT_GFP_ZERO (skipped for blocks a layer
 * reports zero-filled). */
MT_INLINE void *mt_kernel_alloc(mt_ctx ctx)
{
    size_t size = ctx.size;
    if (MT_UNLIKELY(size > MT_MAX_REQUEST))
        return NULL;
    void *p = mt_chain_alloc(&ctx);
    if (p && (ctx.gfp & MT_GFP_ZERO) && ctx.zeroed != p)
        __builtin_memset(p, 0, size);
    return p;
}

MT_EXPORT void *MT_KERNEL_API(page_alloc)(unsigned order)
{
    MT_SOCKET_NOTE_CALLER();
    if (order > MT_KERNEL_MAX_ORDER)
        return NULL;
    size_t len = MT_PAGE_SIZE << order;
    return mt_kernel_alloc(mt_kernel_request(len, len, MT_GFP_KERNEL));
}

MT_EXPORT void MT_KERNEL_API(page_free)(void *p, unsigned order)
{
    (void)order; /* the page map knows the block's size */
    MT_SOCKET_NOTE_CALLER();
    mt_socket_free_req(mt_socket_request(), p);
}

/* The entry points below call these, not one another, so each notes its
 * own caller once (MT_SOCKET_NOTE_CALLER: the program's call site for the
 * lock statistics). */
MT_INLINE void *mt_kernel_kmalloc(size_t size, unsigned flags)
{
    if (MT_UNLIKELY(size == 0))
        return MT_ZERO_SIZE_PTR;
    size_t align = mt_is_pow2(size) && size <= MT_PAGE_SIZE ? size : 1;
    return mt_kernel_alloc(mt_kernel_request(size, align, flags));
}

MT_INLINE void *mt_kernel_cache_alloc(mt_kmem_cache *cache, unsigned flags)
{
    void *object = mt_kernel_alloc(mt_kernel_request(cache->size, cache->align, flags));
    if (object && cache->ctor)
        cache->ctor(object);
    return object;
}

MT_EXPORT void *MT_KERNEL_API(kmalloc)(size_t size, unsigned flags)
{
    MT_SOCKET_NOTE_CALLER();
    return mt_kernel_kmalloc(size, flags);
}

MT_EXPORT void *MT_KERNEL_API(kzalloc)(size_t size, unsigned flags)
{
    MT_SOCKET_NOTE_CALLER();
    return mt_kernel_kmalloc(size, flags | MT_GFP_ZERO);
}

MT_EXPORT void *MT_KERNEL_API(kcalloc)(size_t n, size_t size, unsigned flags)
{
    MT_SOCKET_NOTE_CALLER();
    size_t bytes;
    if (__builtin_mul_overflow(n, size, &bytes))
        return NULL;
    return mt_kernel_kmalloc(bytes, flags | MT_GFP_ZERO);
}

/* MT_ZERO_SIZE_PTR, like any pointer no layer owns, maps to page-map entry
 * 0 and is ignored. */
MT_EXPORT void MT_KERNEL_API(kfree)(const void *p)
{
    MT_SOCKET_NOTE_CALLER();
    mt_socket_free_req(mt_socket_request(), (void *)(uintptr_t)p);
}

MT_EXPORT size_t MT_KERNEL_API(ksize)(const void *p)
{
    MT_SOCKET_NOTE_CALLER();
    return mt_socket_usable_req(mt_socket_request(), (void *)(uintptr_t)p);
}

/* NULL iff size is 0 or too large, align is not 0 or a power of two, or
 * there is no memory for the descriptor. */
MT_EXPORT mt_kmem_cache *MT_KERNEL_API(kmem_cache_create)(const char *name, size_t size, size_t align,
                                                          unsigned flags, void (*ctor)(void *object))
{
    if (align == 0)
        align = MT_MIN_ALIGN;
    if ((flags & MT_SLAB_HWCACHE_ALIGN) && align < MT_CACHELINE)
        align = MT_CACHELINE;
    if (size == 0 || size > MT_MAX_REQUEST || !mt_is_pow2(align) || align > MT_GRANULE)
        return NULL;
    MT_SOCKET_NOTE_CALLER();
    mt_kmem_cache *cache = mt_kernel_kmalloc(sizeof *cache, MT_GFP_KERNEL);
    if (!cache)
        return NULL;
    cache->name = name;
    cache->size = mt_align_up(size, align);
    cache->align = align;
    cache->flags = flags;
    cache->ctor = ctor;
    return cache;
}

MT_EXPORT void *MT_KERNEL_API(kmem_cache_alloc)(mt_kmem_cache *cache, unsigned flags)
{
    MT_SOCKET_NOTE_CALLER();
    return mt_kernel_cache_alloc(cache, flags);
}

MT_EXPORT void *MT_KERNEL_API(kmem_cache_zalloc)(mt_kmem_cache *cache, unsigned flags)
{
    MT_SOCKET_NOTE_CALLER();
    return mt_kernel_cache_alloc(cache, flags | MT_GFP_ZERO);
}

MT_EXPORT void MT_KERNEL_API(kmem_cache_free)(mt_kmem_cache *cache, void *object)
{
    (void)cache;
    MT_SOCKET_NOTE_CALLER();
    mt_socket_free_req(mt_socket_request(), object);
}

MT_EXPORT void MT_KERNEL_API(kmem_cache_destroy)(mt_kmem_cache *cache)
{
    MT_SOCKET_NOTE_CALLER();
    mt_socket_free_req(mt_socket_request(), cache);
}

/* Give free memory back to the layer below and the OS: every layer's purge
 * (the layers hold the memory, not the cache, so every cache shrinks).
 * Returns 1 if anything was released, else 0. */
MT_EXPORT int MT_KERNEL_API(kmem_cache_shrink)(mt_kmem_cache *cache)
{
    (void)cache;
    MT_SOCKET_NOTE_CALLER();
    mt_ctx ctx = mt_socket_request();
    return mt_chain_purge(&ctx) ? 1 : 0;
}

#include "stats_exit.h" /* MORTISE_STATS: the report at exit */

#undef MT_PREFIX
#define MT_DESCRIPTOR MT_DESCRIPTOR_kernel_socket
#include "../core/layer_end.h"
#ifdef MT_NAMES_kernel_socket
#include "../names/kernel_socket.h" /* forget them */
#endif
#endif /* MT_DESCRIBE */

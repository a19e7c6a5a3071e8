/* mortise/sockets/kernel_api.h — what code calling a kernel_socket allocator
 * includes: the flags, the cache type and the prototypes, under the prefix
 * the socket was built with:
 *     #define MT_PREFIX fs_
 *     #include <mortise/sockets/kernel_api.h>     // fs_kmalloc(), ...
 * kernel_socket.h includes it too, so the definitions are checked against
 * these declarations. Needs no C library. Semantics: sockets/kernel_socket.h.
 */
#ifndef MORTISE_SOCKETS_KERNEL_API_H
#define MORTISE_SOCKETS_KERNEL_API_H

#include "../core/platform.h"

#ifndef MT_PREFIX
#define MT_PREFIX
#endif
#define MT_KERNEL_API(name) MT_CAT(MT_PREFIX, name)

#define MT_GFP_KERNEL 0u
#define MT_GFP_ATOMIC 0x1u            /* the caller cannot sleep */
#define MT_GFP_ZERO 0x100u            /* zero-filled memory */
#define MT_SLAB_HWCACHE_ALIGN 0x2000u /* cache flag: objects on their own cache lines */
#define MT_ZERO_SIZE_PTR ((void *)16) /* kmalloc(0): not NULL, never dereferenced */

typedef struct mt_kmem_cache {
    const char *name;
    size_t size; /* object size, a multiple of align */
    size_t align;
    unsigned flags;
    void (*ctor)(void *object);
} mt_kmem_cache;

void *MT_KERNEL_API(page_alloc)(unsigned order);
void MT_KERNEL_API(page_free)(void *p, unsigned order);
void *MT_KERNEL_API(kmalloc)(size_t size, unsigned flags);
void *MT_KERNEL_API(kzalloc)(size_t size, unsigned flags);
void *MT_KERNEL_API(kcalloc)(size_t n, size_t size, unsigned flags);
void MT_KERNEL_API(kfree)(const void *p);
size_t MT_KERNEL_API(ksize)(const void *p);
mt_kmem_cache *MT_KERNEL_API(kmem_cache_create)(const char *name, size_t size, size_t align, unsigned flags,
                                                void (*ctor)(void *object));
void *MT_KERNEL_API(kmem_cache_alloc)(mt_kmem_cache *cache, unsigned flags);
void *MT_KERNEL_API(kmem_cache_zalloc)(mt_kmem_cache *cache, unsigned flags);
void MT_KERNEL_API(kmem_cache_free)(mt_kmem_cache *cache, void *object);
void MT_KERNEL_API(kmem_cache_destroy)(mt_kmem_cache *cache);
int MT_KERNEL_API(kmem_cache_shrink)(mt_kmem_cache *cache);

#endif

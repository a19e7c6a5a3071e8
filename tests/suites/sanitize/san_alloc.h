/* The san_ family: the prefixed Mortise allocator linked in (san_alloc.c, or
 * an instance under the san_ prefix: prefixed/mortise/sockets/malloc_socket.h). */
#ifndef MORTISE_TEST_SAN_ALLOC_H
#define MORTISE_TEST_SAN_ALLOC_H
#include <stddef.h>
#include <stdio.h>

void *san_malloc(size_t size);
void san_free(void *p);
void *san_calloc(size_t n, size_t each);
void *san_realloc(void *p, size_t size);
void *san_reallocarray(void *p, size_t n, size_t each);
void *san_memalign(size_t align, size_t size);
void *san_aligned_alloc(size_t align, size_t size);
int san_posix_memalign(void **out, size_t align, size_t size);
void *san_valloc(size_t size);
void *san_pvalloc(size_t size);
size_t san_malloc_usable_size(void *p);
void san_cfree(void *p);
void san_free_sized(void *p, size_t size);
void san_free_aligned_sized(void *p, size_t align, size_t size);
int san_malloc_trim(size_t pad);
void san_malloc_stats(void);
int san_malloc_info(int options, FILE *out);
int san_mallopt(int param, int value);
#endif

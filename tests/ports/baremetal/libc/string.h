/* The string functions a freestanding Mortise build needs from its embedder
 * (docs/port.md: compilers expand most of them as builtins and emit calls to
 * memcpy/memset/memmove/memcmp for the rest); libc/string.c defines them.
 * This firmware has no C library: this header stands in for its <string.h>. */
#ifndef BAREMETAL_LIBC_STRING_H
#define BAREMETAL_LIBC_STRING_H
#include <stddef.h>
void *memcpy(void *restrict dest, const void *restrict src, size_t len);
void *memmove(void *dest, const void *src, size_t len);
void *memset(void *dest, int value, size_t len);
int memcmp(const void *a, const void *b, size_t len);
size_t strlen(const char *s);
int strcmp(const char *a, const char *b);
#endif

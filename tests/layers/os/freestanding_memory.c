/* The two functions a freestanding Mortise object may need from its
 * environment (compilers emit calls to them for struct copies and
 * __builtin_memset), written for the -nostdlib link check. */
#include <stddef.h>

void *memset(void *dest, int value, size_t len);
void *memcpy(void *dest, const void *src, size_t len);

void *memset(void *dest, int value, size_t len)
{
    volatile unsigned char *d = dest; /* volatile: not turned back into a memset call */
    while (len--)
        *d++ = (unsigned char)value;
    return dest;
}

void *memcpy(void *dest, const void *src, size_t len)
{
    volatile unsigned char *d = dest;
    const unsigned char *s = src;
    while (len--)
        *d++ = *s++;
    return dest;
}

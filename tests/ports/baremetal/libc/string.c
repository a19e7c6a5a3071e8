/* The embedder's string functions (libc/string.h). Plain loops: the point is
 * that nothing here comes from a C library. volatile keeps the compiler from
 * turning the loops back into calls to themselves. */
#include <string.h>

void *memcpy(void *restrict dest, const void *restrict src, size_t len)
{
    volatile unsigned char *d = dest;
    const unsigned char *s = src;
    while (len--)
        *d++ = *s++;
    return dest;
}

void *memmove(void *dest, const void *src, size_t len)
{
    volatile unsigned char *d = dest;
    const unsigned char *s = src;
    if (d < s) {
        while (len--)
            *d++ = *s++;
    } else {
        while (len--)
            d[len] = s[len];
    }
    return dest;
}

void *memset(void *dest, int value, size_t len)
{
    volatile unsigned char *d = dest;
    while (len--)
        *d++ = (unsigned char)value;
    return dest;
}

int memcmp(const void *a, const void *b, size_t len)
{
    const unsigned char *x = a, *y = b;
    for (; len--; x++, y++)
        if (*x != *y)
            return *x - *y;
    return 0;
}

size_t strlen(const char *s)
{
    size_t n = 0;
    while (s[n])
        n++;
    return n;
}

int strcmp(const char *a, const char *b)
{
    while (*a && *a == *b)
        a++, b++;
    return (unsigned char)*a - (unsigned char)*b;
}

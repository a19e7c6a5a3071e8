/* tests/common/family_calls.h — the malloc(3) family behind a volatile table
 * of function pointers, for tests that call it with bad arguments on
 * purpose: the compiler can neither fold such a call (malloc(SIZE_MAX) to
 * NULL), nor warn about it (-Walloc-size-larger-than, -Wfree-nonheap-object,
 * -Wuse-after-free), nor assume it leaves errno or memory alone.
 * The table is filled at load time with whatever the process resolves the
 * names to (an LD_PRELOAD'ed allocator, a linked one, or the C library). */
#ifndef MORTISE_TEST_FAMILY_CALLS_H
#define MORTISE_TEST_FAMILY_CALLS_H
#include <malloc.h>
#include <stdlib.h>
#if defined(_WIN32)
/* msvcrt has none of these: the allocator linked in place of malloc (a
 * Mortise static library, tests/ports/port_windows.py) defines them all. */
void *reallocarray(void *, size_t, size_t);
void *memalign(size_t, size_t);
void *aligned_alloc(size_t, size_t);
void *valloc(size_t);
void *pvalloc(size_t);
int posix_memalign(void **, size_t, size_t);
size_t malloc_usable_size(void *);
#endif

static struct {
    void *(*malloc)(size_t);
    void *(*calloc)(size_t, size_t);
    void *(*realloc)(void *, size_t);
    void *(*reallocarray)(void *, size_t, size_t);
    void *(*memalign)(size_t, size_t);
    void *(*aligned_alloc)(size_t, size_t);
    void *(*valloc)(size_t);
    void *(*pvalloc)(size_t);
    int (*posix_memalign)(void **, size_t, size_t);
    size_t (*malloc_usable_size)(void *);
    void (*free)(void *);
} volatile const test_family = {malloc, calloc,  realloc,        reallocarray,       memalign, aligned_alloc,
                                valloc, pvalloc, posix_memalign, malloc_usable_size, free};
#endif

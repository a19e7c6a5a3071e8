/* mortise/pal/libc.h — the C library's own interface types for a hosted
 * socket that implements the malloc(3) family: FILE and fprintf (malloc_info,
 * malloc_stats) and, on glibc, struct mallinfo / mallinfo2. The socket
 * defines functions with exactly the C library's signatures, so it takes
 * the types from the C library's headers, here and nowhere else. Hosted
 * only; fprintf may allocate (stdio buffers), so only those two extension
 * entry points use it, never a request path.
 */
#ifndef MORTISE_PAL_LIBC_H
#define MORTISE_PAL_LIBC_H

#include "pal.h"
#if defined(MT_FREESTANDING)
#error "pal/libc.h: the malloc(3) interface needs a C library (not MT_FREESTANDING)"
#endif
#include <stdio.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#endif

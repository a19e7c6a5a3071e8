/* mortise/os/os_mmap.h — the few mmap calls the POSIX OS layers share:
 * reserve address space aligned to a granule multiple, release it, and give
 * pages back while keeping the range. Every function preserves errno, so that
 * free() never changes it (POSIX). Slow path only. */
#ifndef MORTISE_OS_OS_MMAP_H
#define MORTISE_OS_OS_MMAP_H

#include "../core/platform.h"
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MAP_NORESERVE
#define MAP_NORESERVE 0
#endif

/* Ask for transparent huge pages on [p, p + len) (no-op where unknown). */
MT_UNUSED static void mt_os_advise_huge(void *p, size_t len)
{
#ifdef MADV_HUGEPAGE
    int saved = errno;
    madvise(p, len, MADV_HUGEPAGE);
    errno = saved;
#else
    (void)p;
    (void)len;
#endif
}

/* len bytes of fresh zeroed read-write memory at an address aligned to align
 * (a power of two >= the page size); NULL when the OS refuses. */
MT_UNUSED static void *mt_os_map_aligned(size_t len, size_t align, bool huge)
{
    int saved = errno;
    size_t span = len + (align > MT_PAGE_SIZE ? align : 0);
    if (span < len)
        return NULL;
    char *raw = mmap(NULL, span, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (raw == MAP_FAILED) {
        errno = saved;
        return NULL;
    }
    char *p = (char *)mt_align_up((uintptr_t)raw, align);
    if (p > raw)
        munmap(raw, (size_t)(p - raw));
    if (raw + span > p + len)
        munmap(p + len, (size_t)(raw + span - (p + len)));
    if (huge)
        mt_os_advise_huge(p, len);
    errno = saved;
    return p;
}

MT_UNUSED static void mt_os_unmap(void *p, size_t len)
{
    int saved = errno;
    munmap(p, len);
    errno = saved;
}

/* Return the pages to the OS but keep the range: the next touch reads zeros. */
MT_UNUSED static void mt_os_discard(void *p, size_t len)
{
    int saved = errno;
    madvise(p, len, MADV_DONTNEED);
    errno = saved;
}

#endif

/* mortise/os/os_mmap.h — the page-mapping helpers the hosted OS layers share,
 * over the port layer's mt_pal_map family: reserve address space aligned to
 * a granule multiple, release it, and give pages back while keeping the
 * range. Every function preserves errno (the port's functions do), so that
 * free() never changes it (POSIX). Slow path only. */
#ifndef MORTISE_OS_OS_MMAP_H
#define MORTISE_OS_OS_MMAP_H

#include "../core/platform.h"

/* Ask for transparent huge pages on [p, p + len) (no-op where unknown). */
MT_UNUSED static void mt_os_advise_huge(void *p, size_t len) { mt_pal_advise_hugepage(p, len); }

/* len bytes of fresh zeroed read-write memory at an address aligned to align
 * (a power of two >= the page size); NULL when the OS refuses. */
MT_UNUSED static void *mt_os_map_aligned(size_t len, size_t align, bool huge)
{
    size_t span = len + (align > MT_PAGE_SIZE ? align : 0);
    if (span < len)
        return NULL;
    char *raw = mt_pal_map(span);
    if (!raw)
        return NULL;
    char *p = (char *)mt_align_up((uintptr_t)raw, align);
    if (p > raw)
        mt_pal_unmap(raw, (size_t)(p - raw));
    if (raw + span > p + len)
        mt_pal_unmap(p + len, (size_t)(raw + span - (p + len)));
    if (huge)
        mt_os_advise_huge(p, len);
    return p;
}

MT_UNUSED static void mt_os_unmap(void *p, size_t len) { mt_pal_unmap(p, len); }

/* Return the pages to the OS but keep the range: the next touch reads zeros. */
MT_UNUSED static void mt_os_discard(void *p, size_t len) { mt_pal_advise_dontneed(p, len); }

#endif

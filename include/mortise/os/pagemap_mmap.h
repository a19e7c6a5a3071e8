/* mortise/os/pagemap_mmap.h — the page map of a hosted OS layer: the radix
 * tree of core/pagemap_radix.h with its 512 KiB leaves mapped straight from
 * the OS (zero-filled, never from the allocator being built, so looking up or
 * installing a leaf can never recurse into malloc), plus the OS counters. */
#ifndef MORTISE_OS_PAGEMAP_MMAP_H
#define MORTISE_OS_PAGEMAP_MMAP_H

#include "os_mmap.h"

static void *mt_pagemap_leaf_alloc(size_t bytes)
{
    return mt_os_map_aligned(mt_align_up(bytes, MT_PAGE_SIZE), MT_PAGE_SIZE, false);
}
#include "../core/pagemap_radix.h"
#include "os_stats.h"

#endif

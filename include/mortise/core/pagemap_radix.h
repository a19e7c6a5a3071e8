/* mortise/core/pagemap_radix.h — the page map of OS layers that take address
 * space from an OS: a two-level radix tree over 48-bit user addresses (on
 * 32-bit targets the whole address space is one leaf, and the root two
 * slots).
 *
 * Level 1 is a static array of 2^16 leaf pointers (512 KiB of untouched BSS);
 * a leaf holds the entries of 2^16 granules (4 GiB of address space) and is
 * obtained from the OS layer's mt_pagemap_leaf_alloc on first use. Only the
 * leaf pages holding live entries become resident.
 * get: a range check, two dependent loads. set: O(len / MT_GRANULE).
 * Thread safety: leaves are installed with CAS; entries are single words.
 *
 * The including OS layer defines, before including this header:
 *     static void *mt_pagemap_leaf_alloc(size_t bytes);  // zeroed memory or NULL
 */
#ifndef MORTISE_CORE_PAGEMAP_RADIX_H
#define MORTISE_CORE_PAGEMAP_RADIX_H

#include "pagemap.h"

#if UINTPTR_MAX > 0xffffffffu
#define MT_PM_ADDR_BITS 48
#define MT_PM_OUTSIDE(a) (((a)-1) >> MT_PM_ADDR_BITS) /* NULL wraps to the top */
#else
#define MT_PM_ADDR_BITS 32 /* one leaf covers the whole address space */
#define MT_PM_OUTSIDE(a) ((a) == 0)
#endif
#define MT_PM_LEAF_BITS 16
#define MT_PM_ROOT_BITS (MT_PM_ADDR_BITS - MT_GRANULE_SHIFT - MT_PM_LEAF_BITS)
#define MT_PM_LEAF_LEN ((size_t)1 << MT_PM_LEAF_BITS)

typedef struct {
    _Atomic(uintptr_t) e[MT_PM_LEAF_LEN];
} mt_pagemap_leaf;
static _Atomic(mt_pagemap_leaf *)
    mt_pagemap_root[((size_t)1 << MT_PM_ROOT_BITS) + 1]; /* + a spare, always empty: mt_pagemap_find */

/* The entry of p's granule in *e, or false (e untouched) when no leaf
 * covers p: NULL, addresses above 48 bits, 4 GiB ranges nobody allocated
 * from. One unsigned test covers NULL and the range (a - 1 wraps for NULL;
 * a == 2^48 lands on the spare root slot, always empty), so the socket's
 * free needs no NULL test of its own (MT_PAGEMAP_FIND). */
#define MT_PAGEMAP_FIND 1
static inline bool mt_pagemap_find(const void *p, uintptr_t *e)
{
    uintptr_t a = (uintptr_t)p;
    if (MT_UNLIKELY(MT_PM_OUTSIDE(a)))
        return false;
    mt_pagemap_leaf *leaf = mt_load_relaxed(&mt_pagemap_root[(a >> MT_GRANULE_SHIFT) >> MT_PM_LEAF_BITS]);
    if (MT_UNLIKELY(!leaf))
        return false;
    *e = mt_load_relaxed(&leaf->e[(a >> MT_GRANULE_SHIFT) & (MT_PM_LEAF_LEN - 1)]);
    return true;
}

static inline uintptr_t mt_pagemap_get(const void *p)
{
    uintptr_t e = 0;
    return mt_pagemap_find(p, &e) ? e : 0;
}

static void *mt_pagemap_leaf_alloc(size_t bytes);

MT_SLOW mt_pagemap_leaf *mt_pagemap_leaf_install(size_t root_index)
{
    mt_pagemap_leaf *fresh = mt_pagemap_leaf_alloc(sizeof(mt_pagemap_leaf));
    mt_pagemap_leaf *expected = NULL;
    if (!fresh)
        return NULL;
    if (!mt_cas(&mt_pagemap_root[root_index], &expected, fresh))
        return expected; /* another thread won; our leaf stays unused (rare, bounded) */
    return fresh;
}

/* Setting an entry for memory we just obtained cannot fail for want of a leaf
 * without failing the whole request, so callers set before handing out. */
static inline bool mt_pagemap_set_checked(const void *p, size_t len, uintptr_t entry)
{
    uintptr_t a = (uintptr_t)p, end = a + (len ? len : 1);
    for (; a < end; a += MT_GRANULE) {
        size_t root_index = (a >> MT_GRANULE_SHIFT) >> MT_PM_LEAF_BITS;
        mt_pagemap_leaf *leaf = mt_load_acquire(&mt_pagemap_root[root_index]);
        if (!leaf && !(leaf = mt_pagemap_leaf_install(root_index)))
            return false;
        mt_store_release(&leaf->e[(a >> MT_GRANULE_SHIFT) & (MT_PM_LEAF_LEN - 1)], entry);
    }
    return true;
}

static inline void mt_pagemap_set(const void *p, size_t len, uintptr_t entry)
{
    (void)mt_pagemap_set_checked(p, len, entry); /* leaves exist: OS layer set them first */
}

#endif

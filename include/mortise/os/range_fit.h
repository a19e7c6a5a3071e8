/* mortise/os/range_fit.h — first fit over free granule ranges, with
 * coalescing, for OS layers that manage one address range themselves
 * (brk_heap's contiguous heap, sheap_glk's static pool).
 *
 * The free ranges form a list in address order. The list lives in the page
 * map, not in the free memory: a free range's first granule has an owner-0
 * entry holding the link to the next range, and its second granule (if it
 * has one) an owner-0 entry holding the range's length. So a free range costs
 * no resident memory (its pages can be given back to the OS whole), nothing
 * is written into memory a program may still be scribbling on after free, and
 * owner 0 still means "nobody's block" to every lookup.
 *   first granule:  payload = (index of the next range + 1) << 1 | (length == 1)
 *   second granule: payload = length in granules (ranges of two granules or more)
 * Indexes count granules from `base`, so a pool far from address 0 fits
 * even a 32-bit entry's payload.
 *
 * Entries of granules the structure does not use as headers are kept 0, and
 * a header it stops using is cleared, so the owner-0 payloads never leak into
 * blocks handed out.
 *
 * Time: take, give, take_at and take_tail are O(free ranges): one walk of the
 * list, a constant number of page-map writes. Space: none beyond the page map.
 * Thread safety: none; the OS layer calls every function under its lock.
 * The page map entries of every granule of [base, end of managed memory) must
 * exist (mt_pagemap_set stores them) before it is used.
 */
#ifndef MORTISE_OS_RANGE_FIT_H
#define MORTISE_OS_RANGE_FIT_H

#include "../core/pagemap.h"

typedef struct mt_range_fit {
    uintptr_t base; /* granule 0 of the page-map encoding (an integer: brk_heap
                            uses 0, and arithmetic on a null pointer is undefined) */
    char *first;    /* lowest free range, NULL when none */
    size_t free_granules;
    size_t ranges;
} mt_range_fit;

MT_INLINE void mt_range_fit_init(mt_range_fit *rf, char *base)
{
    rf->base = (uintptr_t)base;
    rf->first = NULL;
    rf->free_granules = 0;
    rf->ranges = 0;
}

MT_INLINE size_t mt_rf_granules(const mt_range_fit *rf, const char *r)
{
    (void)rf;
    uintptr_t head = mt_entry_payload(mt_pagemap_get(r));
    return (head & 1) ? 1 : (size_t)mt_entry_payload(mt_pagemap_get(r + MT_GRANULE));
}

MT_INLINE char *mt_rf_end(const mt_range_fit *rf, char *r)
{
    return r + (mt_rf_granules(rf, r) << MT_GRANULE_SHIFT);
}

MT_INLINE char *mt_rf_next(const mt_range_fit *rf, const char *r)
{
    uintptr_t link = mt_entry_payload(mt_pagemap_get(r)) >> 1;
    return link ? (char *)(rf->base + ((link - 1) << MT_GRANULE_SHIFT)) : NULL;
}

/* Write the header of the free range [r, r + granules) linking to next. */
MT_INLINE void mt_rf_write(mt_range_fit *rf, char *r, size_t granules, char *next)
{
    uintptr_t link = next ? (((uintptr_t)next - rf->base) >> MT_GRANULE_SHIFT) + 1 : 0;
    mt_pagemap_set(r, MT_GRANULE, mt_entry(0, link << 1 | (granules == 1)));
    if (granules > 1)
        mt_pagemap_set(r + MT_GRANULE, MT_GRANULE, mt_entry(0, granules));
}

/* Forget the header of range r (its granules become plain entry-0 granules). */
MT_INLINE void mt_rf_erase(const mt_range_fit *rf, char *r)
{
    size_t granules = mt_rf_granules(rf, r);
    mt_pagemap_set(r, granules > 1 ? 2 * MT_GRANULE : MT_GRANULE, 0);
}

/* Make prev (NULL: the list head) link to next. */
MT_INLINE void mt_rf_link(mt_range_fit *rf, char *prev, char *next)
{
    if (prev)
        mt_rf_write(rf, prev, mt_rf_granules(rf, prev), next);
    else
        rf->first = next;
}

/* Cut [start, start + granules) out of the free range r (which holds it);
 * what remains before and after stays free, in place in the list. */
static inline void mt_rf_carve(mt_range_fit *rf, char *prev, char *r, char *start, size_t granules)
{
    char *r_end = mt_rf_end(rf, r), *after = mt_rf_next(rf, r);
    char *cut_end = start + (granules << MT_GRANULE_SHIFT);
    char *follow = after;
    mt_rf_erase(rf, r);
    rf->ranges--;
    if (cut_end < r_end) {
        mt_rf_write(rf, cut_end, (size_t)(r_end - cut_end) >> MT_GRANULE_SHIFT, after);
        follow = cut_end;
        rf->ranges++;
    }
    if (start > r) {
        mt_rf_write(rf, r, (size_t)(start - r) >> MT_GRANULE_SHIFT, follow);
        follow = r;
        rf->ranges++;
    }
    mt_rf_link(rf, prev, follow);
    rf->free_granules -= granules;
}

/* First fit: the lowest `granules` free granules starting at a multiple of
 * align (a power of two >= MT_GRANULE). Returns their start, or NULL iff no
 * free range holds such a piece. */
static inline char *mt_range_fit_take(mt_range_fit *rf, size_t granules, size_t align)
{
    size_t len = granules << MT_GRANULE_SHIFT;
    for (char *prev = NULL, *r = rf->first; r; prev = r, r = mt_rf_next(rf, r)) {
        char *start = (char *)mt_align_up((uintptr_t)r, align);
        char *r_end = mt_rf_end(rf, r);
        if (start < r_end && (size_t)(r_end - start) >= len) {
            mt_rf_carve(rf, prev, r, start, granules);
            return start;
        }
    }
    return NULL;
}

/* Take exactly [p, p + granules) if it is free (to grow a block in place).
 * Returns true iff it was free and is now taken. */
static inline bool mt_range_fit_take_at(mt_range_fit *rf, char *p, size_t granules)
{
    for (char *prev = NULL, *r = rf->first; r && r <= p; prev = r, r = mt_rf_next(rf, r)) {
        if (p + (granules << MT_GRANULE_SHIFT) <= mt_rf_end(rf, r)) {
            mt_rf_carve(rf, prev, r, p, granules);
            return true;
        }
    }
    return false;
}

/* Give [p, p + granules) back, merging it with free neighbours. Returns
 * false (and changes nothing) iff it overlaps a free range: a block given
 * back twice is refused rather than corrupting the list. */
static inline bool mt_range_fit_give(mt_range_fit *rf, char *p, size_t granules)
{
    char *prev = NULL, *r = rf->first, *end = p + (granules << MT_GRANULE_SHIFT);
    while (r && r < p) {
        prev = r;
        r = mt_rf_next(rf, r);
    }
    if ((prev && mt_rf_end(rf, prev) > p) || (r && r < end))
        return false;
    char *after = r;
    size_t total = granules;
    rf->free_granules += granules;
    rf->ranges++;
    if (r && r == end) { /* absorb the range that follows */
        total += mt_rf_granules(rf, r);
        after = mt_rf_next(rf, r);
        mt_rf_erase(rf, r);
        rf->ranges--;
    }
    if (prev && mt_rf_end(rf, prev) == p) { /* grow the range before */
        mt_rf_write(rf, prev, mt_rf_granules(rf, prev) + total, after);
        rf->ranges--;
    } else {
        mt_rf_write(rf, p, total, after);
        mt_rf_link(rf, prev, p);
    }
    return true;
}

/* Remove the free range that ends exactly at end, if there is one (to give
 * the top of a heap back). Returns its start, or NULL. */
static inline char *mt_range_fit_take_tail(mt_range_fit *rf, char *end)
{
    char *prev = NULL, *r = rf->first;
    if (!r)
        return NULL;
    for (char *next; (next = mt_rf_next(rf, r)); prev = r, r = next) {
    }
    if (mt_rf_end(rf, r) != end)
        return NULL;
    rf->free_granules -= mt_rf_granules(rf, r);
    rf->ranges--;
    mt_rf_erase(rf, r);
    mt_rf_link(rf, prev, NULL);
    return r;
}

/* Invariant checker: ranges in strictly increasing address order, never
 * touching (coalesced), granule-aligned, and the counters agree. */
static inline bool mt_range_fit_holds(const mt_range_fit *rf)
{
    size_t granules = 0, ranges = 0;
    char *last_end = NULL;
    for (char *r = rf->first; r; r = mt_rf_next(rf, r)) {
        if (((uintptr_t)r & (MT_GRANULE - 1)) || (uintptr_t)r < rf->base || (last_end && r <= last_end))
            return false;
        if (mt_entry_owner(mt_pagemap_get(r)) != 0 || mt_rf_granules(rf, r) == 0)
            return false;
        granules += mt_rf_granules(rf, r);
        ranges++;
        last_end = mt_rf_end(rf, r);
    }
    return granules == rf->free_granules && ranges == rf->ranges;
}

#endif

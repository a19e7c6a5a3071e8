/* mortise/core/pagemap.h — who owns a pointer, in O(1).
 *
 * Every block a layer hands upward starts on a page-map entry naming its owner:
 * memory comes from the OS layer in granules (MT_GRANULE, 64 KiB, aligned), and
 * the page map holds one word per granule: the owner's layer id in the low
 * MT_OWNER_BITS bits and a payload the owner chooses (a span header's address,
 * a granule count) in the rest: 16 and 48 bits on 64-bit targets, 4 and 28 on
 * 32-bit ones, where a pointer payload is kept without its low 4 bits
 * (mt_payload_of / mt_payload_ptr), so what a layer names by address must be
 * 16-byte aligned there, as every record and span header is. Lookups read one or two words, never the block itself, so a
 * foreign or wild pointer is recognised (entry 0) rather than dereferenced.
 *
 * The page map belongs to the OS layer, which knows the address range it can
 * hand out: exactly one OS layer per composition defines mt_pagemap_get,
 * mt_pagemap_set and mt_os_stats (a second one fails to compile).
 *
 * Convention between layers: the owner of a block must keep the entry of the
 * block's first granule; entries of the other granules belong to whoever owns
 * the block (a slab marks every granule of its span, a large block only its
 * first, so an interior pointer of a large block maps to nobody).
 */
#ifndef MORTISE_CORE_PAGEMAP_H
#define MORTISE_CORE_PAGEMAP_H

#include "ctx.h"

#if UINTPTR_MAX > 0xffffffffu
#define MT_OWNER_BITS 16 /* user pointers have at most 48 significant bits */
#define MT_PAYLOAD_PTR_SHIFT 0
#define MT_ADDRESS_BITS 48
#else
#define MT_OWNER_BITS 4 /* 15 layers per translation unit (layer_end.h asserts it) */
#define MT_PAYLOAD_PTR_SHIFT 4
#define MT_ADDRESS_BITS 32
#endif
#define MT_OWNER_MASK (((uintptr_t)1 << MT_OWNER_BITS) - 1)
_Static_assert(MT_ADDRESS_BITS <= sizeof(uintptr_t) * 8 - MT_OWNER_BITS + MT_PAYLOAD_PTR_SHIFT,
               "a pointer payload must fit the page-map entry beside the owner");

MT_INLINE uintptr_t mt_entry(uintptr_t owner, uintptr_t payload)
{
    return (payload << MT_OWNER_BITS) | owner;
}
MT_INLINE uintptr_t mt_entry_owner(uintptr_t e) { return e & MT_OWNER_MASK; }
MT_INLINE uintptr_t mt_entry_payload(uintptr_t e) { return e >> MT_OWNER_BITS; }

/* A layer's record or span header as a payload, and back. */
MT_INLINE uintptr_t mt_payload_of(const void *p) { return (uintptr_t)p >> MT_PAYLOAD_PTR_SHIFT; }
MT_INLINE void *mt_payload_ptr(uintptr_t payload) { return (void *)(payload << MT_PAYLOAD_PTR_SHIFT); }

/* Counters an OS layer keeps (slow path only) for mallinfo and reports. */
typedef struct mt_os_stats {
    size_t mapped;     /* bytes currently obtained from the OS (or the pool) */
    size_t handed_out; /* bytes currently handed to the layers above */
    size_t large;      /* of which in blocks served directly (not spans) */
    size_t returned;   /* bytes given back to the OS since start (cumulative) */
} mt_os_stats;

/* Defined by the OS layer of the composition. */
static inline uintptr_t mt_pagemap_get(const void *p);
static inline void mt_pagemap_set(const void *p, size_t len, uintptr_t entry);
static inline void mt_os_stats_read(mt_os_stats *out);

/* Fill the context's routing fields for a block about to be freed/queried. */
MT_INLINE void mt_ctx_route(mt_ctx *ctx, void *p)
{
    uintptr_t e = mt_pagemap_get(p);
    ctx->ptr = p;
    ctx->owner = mt_entry_owner(e);
    ctx->meta = mt_entry_payload(e);
}

/* Take over a block received from the layer below: mark every granule of
 * [p, p+len) as ours. Returns the previous entry of the first granule, which
 * the layer keeps to hand the block back later (mt_span_release). */
MT_INLINE uintptr_t mt_span_claim(void *p, size_t len, uintptr_t owner, uintptr_t payload)
{
    uintptr_t prev = mt_pagemap_get(p);
    mt_pagemap_set(p, len, mt_entry(owner, payload));
    return prev;
}

/* Give a block back to the layer below that handed it out: restore its entry
 * and route a free to it. */
MT_INLINE void mt_span_release(void *p, size_t len, uintptr_t prev, mt_lfunc *next)
{
    mt_ctx ctx = mt_ctx_for_alloc(0, 1);
    mt_pagemap_set(p, len, 0);
    mt_pagemap_set(p, MT_GRANULE, prev);
    ctx.ptr = p;
    ctx.owner = mt_entry_owner(prev);
    ctx.meta = mt_entry_payload(prev);
    next(&ctx);
}

#endif

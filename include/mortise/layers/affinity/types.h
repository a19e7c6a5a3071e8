/* mortise/layers/affinity/types.h — the types and fixed bounds of
 * affinity_pool, shared by every instance (layers/affinity_pool.h). */
#ifndef MORTISE_LAYERS_AFFINITY_TYPES_H
#define MORTISE_LAYERS_AFFINITY_TYPES_H

#include "../../core/platform.h"
#include "../../policy/sync/spinlock.h"

#define MT_AFF_SITE_BITS 14 /* return addresses: 16384 */
#define MT_AFF_SITES (1u << MT_AFF_SITE_BITS)
#define MT_AFF_PROBES 16     /* linear probes of the slow path */
#define MT_AFF_GROUPS 2048   /* groups, and pools (one per merged class) */
#define MT_AFF_CHAIN_CAP 16  /* max_chain's bound */
#define MT_AFF_FIRST 8       /* a group's first objects in the address table */
#define MT_AFF_ADDR_BITS 14  /* address table: 16384 object starts */
#define MT_AFF_EDGES 8       /* edges kept per group */
#define MT_AFF_SCAN_WORDS 16 /* words scanned per object: its first 128 bytes */
#define MT_AFF_SCAN_SHARE 32 /* scanned bytes <= 64 KiB + bytes seen / 32 */
#define MT_AFF_SCAN_FLOOR 65536
#define MT_AFF_LEARN 32       /* allocations a return address is watched */
#define MT_AFF_FRAME_TRUST 4  /* unwinds agreeing on a wrapper's frame size */
#define MT_AFF_ENTRIES 16     /* socket entry points with a known distance */
#define MT_AFF_RECHECK 4096   /* a walked chain is re-unwound 1 time in this */
#define MT_AFF_WRAP_CALLERS 2 /* distinct callers and sizes that make */
#define MT_AFF_WRAP_SIZES 2   /*   a wrapper */
#define MT_AFF_SPANS 4096     /* 64 KiB spans: 256 MiB of pools */
#define MT_AFF_MERGE_LOG 64   /* merges kept for the report */
#define MT_AFF_SEG_HEADER 64  /* a segment's header; objects follow */
#define MT_AFF_PLAIN_BITS 14  /* unpooled return addresses: 16384 */
#define MT_AFF_MEMO_BITS 12   /* wrapper chains' decisions: 4096 */
#define MT_AFF_WRAP_BITS 12   /* trusted wrappers' frame sizes: 4096 */

/* Wrapper chains read straight off the stack (docs/affinity.md) need the
 * stack pointer and each return address in the word just below its
 * caller's frame: x86-64. Elsewhere every wrapper allocation unwinds. */
#if defined(__x86_64__)
#define MT_AFF_FRAME_WALK 1
#else
#define MT_AFF_FRAME_WALK 0
#endif

/* site->fast: what the fast path does for a return address. */
#define MT_AFF_SLOW ((uintptr_t)0)  /* learning, counting, or a wrapper */
#define MT_AFF_PLAIN ((uintptr_t)1) /* decided: never pooled, pass below */
/* anything else: the mt_aff_pool its group allocates from */

enum { MT_AFF_LEARNING = 0, MT_AFF_DIRECT = 1, MT_AFF_WRAPPER = 2 };
enum { MT_AFF_COUNTING = 0, MT_AFF_POOLED = 1, MT_AFF_UNPOOLED = 2 };
enum { MT_AFF_BY_NAME = 1, MT_AFF_BY_USE = 2 }; /* why a site is a wrapper */

typedef struct {
    _Atomic(uintptr_t) ra;   /* the key; 0: empty */
    _Atomic(uintptr_t) fast; /* MT_AFF_SLOW, MT_AFF_PLAIN or the pool */
    _Atomic(uint8_t) kind;   /* learning, direct or wrapper */
    _Atomic(uint8_t) named;  /* set once its name was looked up */
    uint8_t ncallers, nsizes, why;
    uint8_t frame_seen; /* unwinds that found frame_size */
    uint16_t seen;      /* learning: allocations watched */
    uint32_t group;     /* direct: its group + 1 */
    int32_t frame_size; /* wrapper: its frame's size at this return
                                address; 0 unknown, -1 not constant */
    uintptr_t callers[MT_AFF_WRAP_CALLERS];
    uint32_t sizes[MT_AFF_WRAP_SIZES];
} mt_aff_site;
_Static_assert(sizeof(mt_aff_site) <= 64, "a site fits a cache line");

typedef struct mt_aff_seg mt_aff_seg;
typedef struct mt_aff_pool {
    mt_sync_spinlock lock;
    size_t size;         /* object size, a multiple of 16 */
    uint64_t size_magic; /* 2^64 / size rounded up: divisibility by a
                                multiply, not a divide, on every free */
    mt_aff_seg *cur;     /* the segment bumped from */
    mt_aff_seg *partial; /* other segments with free objects */
    uint32_t root;       /* the group whose class owns it, + 1 */
    uint64_t segments_taken, segments_given;
    uint32_t segments; /* held now */
    uint32_t scan_at;  /* rescan the class when segments reach this */
} mt_aff_pool;

/* At the start of every segment: a pool's segment is carved by a bump
 * pointer, its freed objects form a list through their first words. */
struct mt_aff_seg {
    mt_aff_pool *pool; /* NULL: the segment is free in its span */
    void *free;
    char *bump, *end;
    uint32_t live;
    bool listed; /* on the pool's partial list */
    mt_aff_seg *next, *prev;
};
_Static_assert(sizeof(mt_aff_seg) <= MT_AFF_SEG_HEADER, "segment header fits");

typedef struct {
    uintptr_t prev_entry; /* the page-map entry to restore */
    char *base;           /* NULL: unused record */
    uint64_t used;        /* one bit per segment */
    int32_t next, prev;   /* the list of spans with a free segment */
    bool listed;
} mt_aff_span;

typedef struct {
    uint32_t offset, target; /* a word at offset points at group target - 1 */
} mt_aff_edge;

typedef struct {
    uint64_t hash;
    uint32_t depth, parent; /* parent: union-find, index + 1; self when root */
    uintptr_t chain[MT_AFF_CHAIN_CAP];
    uint64_t allocs, pooled, bytes;
    uint32_t min_size, max_size;
    uint32_t state, nfirst, nedges;
    void *first[MT_AFF_FIRST];
    mt_aff_edge edge[MT_AFF_EDGES];
    mt_aff_pool *pool; /* roots only */
} mt_aff_group;

typedef struct {
    uint8_t type; /* I or II */
    uint32_t a, b, via, offset;
} mt_aff_merge;

typedef struct {
    _Atomic(uintptr_t) addr;
    uint32_t group; /* + 1 */
} mt_aff_addr;

MT_INLINE uint32_t mt_aff_site_hash(uintptr_t ra)
{
    return (uint32_t)((ra * 0x9E3779B97F4A7C15ull) >> (64 - MT_AFF_SITE_BITS));
}
/* The slot of a return address in the table of unpooled sites: its low
 * bits alone, so the malloc fast path spends an `and` on it, not a
 * multiply (call instructions are 5 bytes or more apart, so sites within
 * 16 KiB of code never share a slot). */
MT_INLINE uint32_t mt_aff_plain_slot(uintptr_t ra) { return (uint32_t)ra & ((1u << MT_AFF_PLAIN_BITS) - 1); }

/* A call chain's hash: the group index's key and the memo's. */
MT_INLINE uint64_t mt_aff_chain_hash(const uintptr_t *chain, uint32_t depth)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (uint32_t i = 0; i < depth; i++)
        h = (h ^ chain[i]) * 0x100000001b3ull;
    return h ^ depth;
}

/* A memo entry: the chain hash's high bits and a decision in the low 12:
 * 0 empty, 1 served below, 2 + k pool k. */
#define MT_AFF_MEMO_CODE ((uint64_t)0xfff)
#define MT_AFF_MEMO_BELOW ((uint64_t)1)
_Static_assert(MT_AFF_GROUPS + 2 <= MT_AFF_MEMO_CODE, "a pool index fits a memo code");
MT_INLINE uint32_t mt_aff_memo_slot(uint64_t h)
{
    return (uint32_t)(h >> 40) & ((1u << MT_AFF_MEMO_BITS) - 1);
}

/* A trusted wrapper in the walk's table: its return address above 16 bits
 * (user addresses have 47), its frame size in 8-byte words below. */
MT_INLINE uint64_t mt_aff_wrap_entry(uintptr_t ra, int32_t frame_size)
{
    return ((uint64_t)ra << 16) | (uint64_t)(frame_size >> 3);
}

MT_INLINE uint32_t mt_aff_addr_hash(uintptr_t a)
{
    return (uint32_t)(((a >> 4) * 0x9E3779B97F4A7C15ull) >> (64 - MT_AFF_ADDR_BITS));
}

#endif

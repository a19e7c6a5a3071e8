/* mortise/layers/affinity/types.h — the types and fixed bounds of
 * affinity_pool, shared by every instance (layers/affinity_pool.h). */
#ifndef MORTISE_LAYERS_AFFINITY_TYPES_H
#define MORTISE_LAYERS_AFFINITY_TYPES_H

#include "../../core/platform.h"
#include "../../policy/sync/spinlock.h"

#define MT_AFF_SITE_BITS 14 /* return addresses: 16384 */
#define MT_AFF_SITES (1u << MT_AFF_SITE_BITS)
#define MT_AFF_PROBES 16   /* linear probes of the slow path */
#define MT_AFF_GROUPS 2048 /* groups */
#define MT_AFF_POOLS \
    128 /* pools (one per merged class): each thread
                                        keeps two words per pool in TLS */
#define MT_AFF_LOOK \
    4                         /* a thread's other segments of a pool looked
                                        at per refill before a fresh one */
#define MT_AFF_CHAIN_CAP 16   /* max_chain's bound */
#define MT_AFF_FIRST 8        /* a group's first objects in the address table */
#define MT_AFF_ADDR_BITS 14   /* address table: 16384 object starts */
#define MT_AFF_EDGES 8        /* edges kept per group */
#define MT_AFF_EDGE_SUPPORT 2 /* scanned objects that must show an edge */
#define MT_AFF_SCAN_WORDS 16  /* words scanned per object: its first 128 bytes */
#define MT_AFF_SCAN_SHARE 32  /* scanned bytes <= 64 KiB + bytes seen / 32 */
#define MT_AFF_SCAN_FLOOR 65536
#define MT_AFF_LEARN 16                  /* allocations a return address is watched */
#define MT_AFF_FRAME_TRUST 4             /* unwinds agreeing on a wrapper's frame size */
#define MT_AFF_ENTRIES 16                /* socket entry points with a known distance */
#define MT_AFF_RECHECK 4096              /* a walked chain is re-unwound 1 time in this */
#define MT_AFF_YOUNG_WAIT 64             /* a learning site in a wrapper chain: walks before it */
#define MT_AFF_YOUNG_SAMPLE 4            /*   is unwound and learned from, then 1 walk in this */
#define MT_AFF_JUDGE 8                   /* rechecks a pool lives before its footprint is judged */
#define MT_AFF_SMALL_POOL (16u << 10)    /* a pool never holding more bytes than this is retired */
#define MT_AFF_SLOT_SLACK 4              /* slots may take 1/this more than the sizes (decide.h) */
#define MT_AFF_WRAP_CALLERS 2            /* distinct callers and sizes that make */
#define MT_AFF_WRAP_SIZES 2              /*   a wrapper */
#define MT_AFF_MERGE_LOG 64              /* merges kept for the report */
#define MT_AFF_RUN 4                     /* segments a pool's run reserves in a span */
#define MT_AFF_OWNER_NONE ((uintptr_t)1) /* a segment's owner: free or abandoned */
#define MT_AFF_PLAIN_BITS 14             /* unpooled return addresses: 16384 */
#define MT_AFF_MEMO_BITS 12              /* wrapper chains' decisions: 4096 */
#define MT_AFF_WRAP_BITS \
    14                       /* trusted wrappers' frame sizes: 16384 (the
                                        plain table's row serves both) */
#define MT_AFF_WCACHE_BITS 6 /* per thread: decided (wrapper, caller) pairs, 64 */

/* Span records, one per 64 KiB span of pools: 2 GiB of pools where
 * addresses have 64 bits (the segment headers then take 32 MiB of
 * zero-filled static memory at 4 KiB segments, touched only as far as
 * pools reach), 256 MiB elsewhere. */
#if UINTPTR_MAX > 0xffffffffu
#define MT_AFF_SPANS 32768
#else
#define MT_AFF_SPANS 4096
#endif

/* Wrapper chains read straight off the stack (docs/affinity.md) need the
 * stack pointer and each return address in the word just below its
 * caller's frame: x86-64. Elsewhere every wrapper allocation unwinds. */
#if defined(__x86_64__)
#define MT_AFF_FRAME_WALK 1
#else
#define MT_AFF_FRAME_WALK 0
#endif

/* A pooled return address's entry names its pool by the offset of the
 * thread's current-segment word from the thread pointer (the same for every
 * thread: initial-exec TLS, platform.h), so the fast path reads it with
 * one %fs-relative load, no TLS offset from the GOT. Elsewhere (and
 * without threads, where %fs may not be set up) the pool's index. */
#ifndef MT_AFF_TP_REL /* a test may set 0: the portable path on x86-64 */
#if defined(__x86_64__) && defined(__linux__) && !defined(MT_NO_THREADS)
#define MT_AFF_TP_REL 1
#else
#define MT_AFF_TP_REL 0
#endif
#endif
#if MT_AFF_TP_REL
MT_INLINE uintptr_t mt_aff_thread_pointer(void)
{
    uintptr_t tp;
    __asm__("mov %%fs:0, %0" : "=r"(tp));
    return tp;
}
/* Is v the thread pointer? One compare with %fs:0 (flag output). */
MT_INLINE bool mt_aff_is_thread_pointer(uintptr_t v)
{
    bool eq;
    __asm__("cmp %%fs:0, %1" : "=@ccz"(eq) : "r"(v));
    return eq;
}
/* The word at the thread pointer plus off. Volatile: the compiler sees no
 * memory operand, so it must neither drop nor merge the read (the words
 * change only in out-of-line calls). */
MT_INLINE void *mt_aff_tp_load(uintptr_t off)
{
    void *v;
    __asm__ volatile("mov %%fs:(%1), %0" : "=r"(v) : "r"(off));
    return v;
}
#endif

/* site->fast: what the fast path does for a return address. */
#define MT_AFF_SLOW ((uintptr_t)0)  /* learning, counting, or a wrapper */
#define MT_AFF_PLAIN ((uintptr_t)1) /* decided: never pooled, pass below */
/* anything else: the mt_aff_pool its group allocates from */

enum { MT_AFF_LEARNING = 0, MT_AFF_DIRECT = 1, MT_AFF_WRAPPER = 2 };
/* a group: counting its first objects, pooled, left below for a size of
 * max_pooled_size or more or for sizes too varied to share one slot
 * (MT_AFF_SLOT_SLACK), or left below when its class's pool was retired
 * (it never held more than MT_AFF_SMALL_POOL bytes: nothing to gain) */
enum { MT_AFF_COUNTING = 0, MT_AFF_POOLED = 1, MT_AFF_UNPOOLED = 2, MT_AFF_RETIRED = 3 };
enum { MT_AFF_BY_NAME = 1, MT_AFF_BY_USE = 2 }; /* why a site is a wrapper */

typedef struct {
    _Atomic(uintptr_t) ra;   /* the key; 0: empty */
    _Atomic(uintptr_t) fast; /* MT_AFF_SLOW, MT_AFF_PLAIN or the pool */
    _Atomic(uint8_t) kind;   /* learning, direct or wrapper */
    _Atomic(uint8_t) named;  /* 0 unseen, 1 seen once, 2 name looked up */
    uint8_t ncallers, nsizes, why;
    uint8_t frame_seen;        /* unwinds that found frame_size */
    uint16_t seen;             /* learning: allocations watched */
    uint32_t group;            /* direct: its group + 1 */
    int32_t frame_size;        /* wrapper: its frame's size at this return
                                address; 0 unknown, -1 not constant */
    _Atomic(uint16_t) reached; /* learning: wrapper chains' walks that
                                  stopped here (it wraps: a count, no more) */
    uintptr_t callers[MT_AFF_WRAP_CALLERS];
    uint32_t sizes[MT_AFF_WRAP_SIZES];
} mt_aff_site;
_Static_assert(sizeof(mt_aff_site) <= 64, "a site fits a cache line");

typedef struct mt_aff_seg mt_aff_seg;
typedef struct mt_aff_pool {
    mt_sync_spinlock lock;           /* abandoned, the counts below */
    size_t size;                     /* object size, a multiple of 16 */
    uint32_t size_magic;             /* 2^32 / size rounded up: divisibility by a
                                multiply, not a divide, on every free */
    _Atomic(mt_aff_seg *) abandoned; /* segments of ended threads with live
                                objects (written under lock, peeked without) */
    uint32_t root;                   /* the group whose class owns it, + 1 */
    uint64_t segments_taken, segments_given;
    uint32_t segments; /* held now, by every thread */
    uint32_t peak;     /* the most segments held at once */
    uint32_t born;     /* the layer's rechecks when it was made (state lock) */
    bool retired;      /* its class goes below for good (state lock) */
    int32_t next_span; /* the segment after its last taken, if free, is its next: */
    uint32_t next_seg; /*   span index + 1 (0: none) and segment (spans lock) */
    uint32_t placed;   /* segments placed, up to a span's worth (spans lock) */
} mt_aff_pool;

/* A segment's header, out of band: in the span record's table, one cache
 * line per segment (headers of neighbouring segments are neighbouring
 * lines, never one L1 set), found from the page map's payload. The owning
 * thread alone touches free, used and its ring links; other threads push
 * onto remote. */
struct mt_aff_seg {
    void *free;               /* owner: objects to hand out, and the owner's frees */
    uint32_t magic;           /* its pool's size_magic: the owner's free tests
                           for an object start without the pool's line */
    uint16_t frees_left;      /* owner: its frees until the next note
                           (affinity_pool_free_note), which comes when
                           the segment, not current, gets its first free
                           object back or its last one; current: a large
                           number (the malloc fast path keeps no count) */
    uint16_t pool;            /* its pool's index + 1; 0: free in its span */
    size_t size;              /* object size, a word (the malloc fast path
                           compares the request with it in memory); 0
                           while free (the size check fails on it) */
    uint32_t gen;             /* the owning thread's unique id (its ring), the
                                id's low 32 bits */
    uint16_t out_at_note;     /* objects out of a segment that is not current
                                when frees_left reaches 0 (remote frees not
                                yet taken included): frees_left + out_at_note
                                are out now (affinity_pool_out) */
    _Atomic(uintptr_t) owner; /* the owning thread's mark (its thread pointer
                                on x86-64 Linux, else its id), or
                                MT_AFF_OWNER_NONE */
    _Atomic(void *) remote;   /* frees by other threads (multi-producer) */
    mt_aff_seg *next, *prev;  /* the owner's ring of the pool's other
                                segments, or the pool's abandoned list */
};
_Static_assert(sizeof(mt_aff_seg) <= 64, "a segment header fits a cache line");

typedef struct {
    uintptr_t prev_entry; /* the page-map entry to restore */
    char *base;           /* NULL: unused record */
    uint64_t used;        /* one bit per segment */
    uint64_t reserved;    /* free segments a pool's run means to take next */
    int32_t next, prev;   /* the list of spans with a free segment */
    bool listed;
} mt_aff_span;

typedef struct {
    uint32_t offset, target; /* a word at offset points at group target - 1 */
    uint32_t objects;        /* in this many of the scanned objects */
} mt_aff_edge;

typedef struct {
    uint64_t hash;
    uint32_t depth, parent; /* parent: union-find, index + 1; self when root */
    uintptr_t chain[MT_AFF_CHAIN_CAP];
    uint64_t allocs, pooled, bytes;
    uint64_t rounded; /* counted objects' sizes, each rounded up to MT_MIN_ALIGN */
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
/* The row of a return address in the fast-path array (layers/affinity/
 * state.h), as the index of its first word: bits 1 to 14 of the address
 * pick one of 2^MT_AFF_PLAIN_BITS rows of MT_AFF_ROW words, so the malloc
 * fast path spends an `and` on it, neither a multiply nor a shift. Call
 * instructions are 2 bytes or more apart, so calls within 32 KiB of code
 * never share a row. */
#define MT_AFF_ROW 2
MT_INLINE uintptr_t mt_aff_plain_slot(uintptr_t ra)
{
    return ra & ((((uintptr_t)1 << MT_AFF_PLAIN_BITS) - 1) * MT_AFF_ROW);
}

/* A row: its site word, a return address decided unpooled or the
 * complement of one decided pooled (never a return address of the same
 * row: the complement's row bits are the complement of its own), and the
 * pooled one's pool word. One load and one compare serve the unpooled
 * site, and the pooled one's second word is the only other read. */
#define MT_AFF_SITE_AT(slot) (MT_SELF(fast)[(slot)])
#define MT_AFF_POOL_AT(slot) (MT_SELF(fast)[(slot) + 1])

/* The walk's table of trusted wrappers (affinity_pool_wrap) is mapped by
 * the same bits: entry slot / MT_AFF_ROW. */
MT_INLINE uintptr_t mt_aff_wrap_index(uintptr_t ra) { return mt_aff_plain_slot(ra) / MT_AFF_ROW; }

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
_Static_assert(MT_AFF_POOLS + 2 <= MT_AFF_MEMO_CODE, "a pool index fits a memo code");
MT_INLINE uint32_t mt_aff_memo_slot(uint64_t h)
{
    return (uint32_t)(h >> 40) & ((1u << MT_AFF_MEMO_BITS) - 1);
}

/* A trusted wrapper in the walk's table: its return address above 16 bits
 * (user addresses have 47), its frame size in bytes below (a frame of 64
 * KiB or more is never in the table: its chains take the slow path). */
#define MT_AFF_WRAP_FRAME_MAX 65535
MT_INLINE uint64_t mt_aff_wrap_entry(uintptr_t ra, int32_t frame_size)
{
    return ((uint64_t)ra << 16) | (uint64_t)frame_size;
}

/* The wrapper cache's entry (per thread, layers/affinity/state.h): a
 * wrapper chain the memo decided, keyed by its first two return addresses
 * (the wrapper's and its caller's) and holding the rest (up to[more]),
 * and what the chain's group does: the pool's fast-path word (as in the
 * fast-path rows, MT_AFF_POOL_AT) or MT_AFF_WC_BELOW. One cache line. */
#define MT_AFF_WC_UP 4 /* frames kept beyond the first two */
typedef struct {
    uintptr_t ra, caller, word, more;
    uintptr_t up[MT_AFF_WC_UP];
} mt_aff_wc;
_Static_assert(sizeof(mt_aff_wc) == 64, "a wrapper cache entry is a cache line");
#define MT_AFF_WC_WAYS 4            /* entries an out-of-line lookup compares: slot ^ 0..3 */
#define MT_AFF_WC_EVICT 8           /* a chain missing a full set evicts one of its ways 1 time in this */
#define MT_AFF_WC_BELOW UINTPTR_MAX /* neither a thread-pointer offset nor an index */
/* An entry the inline lookup must leave to alloc_other (a chain deeper
 * than two frames, or one out of its first way) has this bit set in its address
 * (user addresses have 47 bits), so the inline path makes one compare. */
#define MT_AFF_WC_OUT ((uintptr_t)1 << 63)
/* The slot of a two-frame chain: the low bits of the two return addresses
 * xored, an `xor` and an `and` inline (a wrapper's callers are distinct
 * call instructions, so callers within 64 bytes of each other are all the
 * slot's low bits tell apart). A deeper chain (looked up out of line),
 * whose frames' xor can equal another's in its low bits where they differ
 * in two frames: a multiplicative hash of the xor. */
MT_INLINE uintptr_t mt_aff_wc_slot(uintptr_t ra, uintptr_t caller)
{
    return (ra ^ caller) & ((1u << MT_AFF_WCACHE_BITS) - 1);
}
MT_INLINE uintptr_t mt_aff_wc_slot_of(uintptr_t xored, uintptr_t depth)
{
    return depth == 2 ? mt_aff_wc_slot(xored, 0)
                      : (uintptr_t)((xored * 0x9E3779B97F4A7C15ull) >> (64 - MT_AFF_WCACHE_BITS));
}

/* The malloc fast path looks the cache up inline where the compiler gives
 * the entry point's canonical frame address (the wrapper's stack pointer)
 * without a frame pointer: gcc's __builtin_dwarf_cfa (clang's sets one up,
 * a cost every malloc would pay). Elsewhere alloc_other looks it up, at
 * the learned distance from its own stack pointer. */
#if MT_AFF_FRAME_WALK && defined(__GNUC__) && !defined(__clang__)
#define MT_AFF_WC_INLINE 1
#else
#define MT_AFF_WC_INLINE 0
#endif

MT_INLINE uint32_t mt_aff_addr_hash(uintptr_t a)
{
    return (uint32_t)(((a >> 4) * 0x9E3779B97F4A7C15ull) >> (64 - MT_AFF_ADDR_BITS));
}

#endif

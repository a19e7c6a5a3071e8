/* tlsf_glk — Two-Level Segregated Fit under one global lock.
 *
 * Serves: sizes in size_handle up to max_block, any power-of-two alignment,
 *   with O(1) alloc and free (Masmano, Ripoll, Crespo, Real, ECRTS 2004): free
 *   blocks sit in segregated lists indexed by a first level (power of two) and
 *   a second level (sl_count linear steps inside it); two bitmaps say which
 *   lists are non-empty, so finding a fitting list is a find-first-set on each
 *   (count trailing zeros), never a walk. Blocks carry boundary tags and are
 *   split on allocation and merged with free neighbours at once on free.
 *   Requests above max_block go straight to the layer below (mmap_heap maps
 *   them and moves them with mremap on realloc; their memory goes back to the
 *   OS on free, as glibc's mmap threshold does); max_block=SIZE_MAX keeps
 *   every size here, for hard real-time bounds on every request.
 * Slots (model language → macro, default):
 *   size_handle=[lo, hi] → MT_SIZE_HANDLE (0, SIZE_MAX)
 *   sync=POLICY          → MT_SYNC (posix_mutex): the one lock; every critical
 *                          section runs through the policy's exec, so combining
 *                          and delegation locks (ccsynch, flatcombine, rcl) fit
 *   max_block=BYTES      → MT_MAX_BLOCK (4 MiB): larger requests pass on
 *   sl_count=N           → MT_SL_COUNT (32): second-level lists per power of
 *                          two (a power of two, 2..64); more lists waste less
 *                          (a block is at most 1/N larger than needed)
 *   pool_size=BYTES      → MT_POOL_SIZE (1 MiB): the least the heap grows by
 *   link_check=0|1       → MT_LINK_CHECK (0): 1 checks a free block before
 *                          its header or links are trusted: taken from its
 *                          list (take_fit), walked past (purge), or merged
 *                          with a neighbour being freed, resized or grown
 *                          (free's two neighbours, realloc's successor, and
 *                          a new chunk's: the block in front of the
 *                          region's sentinel and the first block of the
 *                          region after it), and the block being freed
 *                          itself. free_ok: its size leads to a header
 *                          naming it as free predecessor; its list links
 *                          point at headers of ours that link back;
 *                          used_ok (the freed block): it says used, its
 *                          size leads to a header of ours;
 *                          safety/link_check.h. So an overflow into a
 *                          neighbour or a write after free never sends the
 *                          layer outside its heap. A damaged block is
 *                          reported once (corrupted-metadata at its user
 *                          address, operation alloc, free, realloc, grow or
 *                          purge) and condemned: never merged, handed out
 *                          or reported again; the list it was found in ends
 *                          in front of it (a list head's whole list is
 *                          dropped), a neighbour is not merged. The check
 *                          operation reports a list link that names no
 *                          header of ours instead of following it. Cost: most
 *                          checks follow a link or the next header into
 *                          another granule, a page-map lookup each.
 *   err_handle=POLICY    → MT_ERR_HANDLE (default): what a failed check does
 *                          after its report (policy/err).
 * Needs from below: granule-aligned chunks (any OS layer). A chunk that lands
 *   right next to one of ours (brk_heap: always, mmap_heap: often) joins its
 *   region: the sentinel between them becomes free space and merges, so one
 *   contiguous heap behaves as one pool.
 * Layers above: a trunk layer may take its spans from tlsf_glk if it takes
 *   whole granules (64 KiB-aligned multiples of 64 KiB, as they all do) and
 *   claims them in the page map; when such a block comes back, tlsf_glk marks
 *   its granules as its own again (the release cleared all but the first).
 * Structure: block = 16-byte header {previous physical block, size | free |
 *   previous-free} before the user's bytes; the previous-block pointer is
 *   valid only while that block is free and lives in its last word, so a used
 *   block's overhead is 8 bytes (12 on 32-bit targets, where that word is 4
 *   of the header's 16). Free blocks hold their list links. A region
 *   (adjacent chunks) ends in a 32-byte sentinel (size 0, used) that also
 *   links the regions for the checker. Each chunk has an out-of-line record
 *   (layers/glk/record_pool.h: its neighbours in the region, the layer below's
 *   page-map entry) that every granule of the chunk maps to.
 * Time: alloc, free, aligned alloc, resize: O(1) — a bounded number of steps
 *   (bitmap searches, list operations, one split, up to two merges) whatever
 *   the heap's size or state: malloc 5, aligned 7, free 5, resize 4;
 *   tests/layers/tlsf_glk/tlsf_steps_test measures it (MT_TLSF_STEP).
 *   Growing the heap adds one call to the layer below and O(chunk granules)
 *   page-map writes; a block a layer above used as a span costs O(granules)
 *   page-map writes when it comes back (as its claim and release did).
 *   purge: O(free blocks of a granule or more + chunks released).
 *   getmeta: O(1), no lock.
 * Space: 8 bytes per used block (12 on 32-bit targets), blocks of at least
 *   32 bytes in multiples of 16 (internal waste under 16 bytes, plus a tail
 *   under 32 bytes too small to split off). A request is served from a
 *   list whose blocks are all large enough ("good fit": it is rounded up by
 *   up to 1/sl_count), so a free block
 *   less than that much larger than the request may be passed over: the
 *   external fragmentation TLSF trades for O(1). 32 bytes per region, a 48-byte
 *   record per chunk; control state (61 - log2 sl_count) * (sl_count + 1) words
 *   (29 - log2 sl_count on 32-bit targets).
 * Purge: a chunk entirely inside a free block (with room left for the
 *   boundary tags around it) goes back to the layer below; a region may split
 *   in two. A heap whose blocks are all freed merges back to one free block per
 *   region, and every chunk goes back.
 * Thread safety: all operations under the lock (getmeta reads a header word
 *   atomically without it). Lock order: this lock, the record pool's, then
 *   the layer below's (purge releases chunks under the lock; growing calls
 *   below without it).
 * Fails: alloc returns NULL with the layer below's ctx->err (ENOMEM) iff no
 *   free block fits and the layer below cannot give a chunk large enough (and
 *   a granule for chunk records when the pool needs one).
 * Check (the contract's check operation; NAME_walk(&stats) also counts)
 *   walks every region and list under the lock; "NAME: what" names the
 *   first broken invariant.
 * Example: brk_heap::tlsf_glk(sync=posix_mutex)::malloc_socket   (instance tlsf)
 *          #define MT_SYNC spinlock
 *          #include <mortise/layers/tlsf_glk.h>
 *          MT_COMPOSE(mmap_heap, tlsf_glk, malloc_socket)      (instance tlsf_mmap)
 */
/* The layer's descriptor (core/describe.h): the data tools/describe_layers.py
 * reads and core/layer_end.h checks the slots against. */
#define MT_DESCRIPTOR_tlsf_glk(LAYER, SLOT)                                                         \
    LAYER(tlsf_glk, trunk, 0, (), ())                                                               \
    MT_OPS(SLOT, alloc, free, getmeta, resize, fork_prepare, fork_parent, fork_child, purge, check) \
    MT_SLOT_SIZE_HANDLE(SLOT, 0, SIZE_MAX)                                                          \
    MT_SLOT_SYNC(SLOT, posix_mutex)                                                                 \
    SLOT(max_block, MT_MAX_BLOCK, BYTES, 4 << 20, (1, SIZE_MAX), ())                                \
    SLOT(sl_count, MT_SL_COUNT, N, 32, (2, 64), ())                                                 \
    SLOT(pool_size, MT_POOL_SIZE, BYTES, 1 << 20, (64 << 10, SIZE_MAX), ())                         \
    MT_SLOTS_LINK_CHECK(SLOT)
#ifndef MT_DESCRIBE /* describe mode reads the descriptor alone */
#include "../core/layer.h"
#include "../policy/sync/sync.h"
#include "glk/record_pool.h"

#ifdef MT_NAME /* another instance name: the names below become its own */
#include "../names/tlsf_glk.h"
#else
#define MT_NAME tlsf_glk
#endif
#ifndef MT_SIZE_HANDLE
#define MT_SIZE_HANDLE 0, SIZE_MAX
#endif
#ifndef MT_SYNC
#define MT_SYNC posix_mutex
#endif
#ifndef MT_SL_COUNT
#define MT_SL_COUNT 32
#endif
#ifndef MT_POOL_SIZE
#define MT_POOL_SIZE ((size_t)1 << 20)
#endif
#ifndef MT_MAX_BLOCK
#define MT_MAX_BLOCK ((size_t)4 << 20)
#endif

_Static_assert(mt_is_pow2_const(MT_SL_COUNT) && MT_SL_COUNT >= 2 && MT_SL_COUNT <= 64,
               "tlsf_glk: sl_count must be a power of two from 2 to 64");
_Static_assert(MT_POOL_SIZE >= MT_GRANULE, "tlsf_glk: pool_size must be at least 64 KiB");

#ifndef MORTISE_LAYERS_TLSF_GLK_TYPES /* once, for every instance */
#define MORTISE_LAYERS_TLSF_GLK_TYPES

/* Counts the steps of alloc, free and resize (bitmap searches, list
 * operations, splits and merges). Off (nothing) unless a test defines it. */
#ifndef MT_TLSF_STEP
#define MT_TLSF_STEP() ((void)0)
#endif

typedef struct mt_tlsf_block {
    struct mt_tlsf_block *prev_phys; /* valid iff MT_TLSF_PREV_FREE */
    size_t head;                     /* size | flags, read and written atomically */
    struct mt_tlsf_block *next_free; /* free blocks: list links; sentinels: */
    struct mt_tlsf_block *prev_free; /* the list of regions */
} mt_tlsf_block;

#define MT_TLSF_FREE ((size_t)1)
#define MT_TLSF_PREV_FREE ((size_t)2)
#define MT_TLSF_CONDEMNED ((size_t)4) /* link_check: damaged, reported, never used again */
#define MT_TLSF_FLAGS ((size_t)15)
#define MT_TLSF_HDR ((size_t)16)       /* header before the user pointer */
#define MT_TLSF_OVERLAP sizeof(void *) /* next header's first word, usable while used */
#define MT_TLSF_MIN ((size_t)32)       /* header + two links */
#define MT_TLSF_RESERVE ((size_t)32)   /* a region's sentinel */

/* A chunk from below; every granule of it maps to this record. Chunks of a
 * region are linked in address order (prev, next: NULL at the region's ends). */
typedef struct mt_tlsf_chunk {
    struct mt_tlsf_chunk *prev, *next;
    uintptr_t base;
    size_t len;
    uintptr_t prev_entry;                     /* the layer below's page-map entry, restored on release */
} __attribute__((aligned(16))) mt_tlsf_chunk; /* 16: a page-map pointer payload (core/pagemap.h) */

typedef struct mt_tlsf_req {
    size_t size, align;
    void *ptr;   /* resize: the block */
    char *chunk; /* grow: a new chunk from below, its length and record */
    size_t len;
    mt_tlsf_chunk *rec;
} mt_tlsf_req;

/* What the checker counts on its walk (NAME_check). */
typedef struct mt_tlsf_stats {
    size_t regions, chunks, heap_bytes; /* chunks and bytes obtained from below */
    size_t used_blocks, used_bytes;
    size_t free_blocks, free_bytes, largest_free;
} mt_tlsf_stats;

/* The header word is read and written atomically (relaxed: plain moves),
 * because getmeta reads a used block's size without the lock while a
 * neighbour's free or allocation changes its previous-free flag. */
MT_INLINE size_t mt_tlsf_head(const mt_tlsf_block *b) { return __atomic_load_n(&b->head, __ATOMIC_RELAXED); }
MT_INLINE void mt_tlsf_set_head(mt_tlsf_block *b, size_t h)
{
    __atomic_store_n(&b->head, h, __ATOMIC_RELAXED);
}
MT_INLINE size_t mt_tlsf_size(const mt_tlsf_block *b)
{
    return __atomic_load_n(&b->head, __ATOMIC_RELAXED) & ~MT_TLSF_FLAGS;
}
MT_INLINE size_t mt_tlsf_flags(const mt_tlsf_block *b)
{
    return __atomic_load_n(&b->head, __ATOMIC_RELAXED) & MT_TLSF_FLAGS;
}
MT_INLINE void mt_tlsf_set(mt_tlsf_block *b, size_t size, size_t flags)
{
    __atomic_store_n(&b->head, size | flags, __ATOMIC_RELAXED);
}
MT_INLINE bool mt_tlsf_is_free(const mt_tlsf_block *b) { return mt_tlsf_flags(b) & MT_TLSF_FREE; }
MT_INLINE bool mt_tlsf_prev_free(const mt_tlsf_block *b) { return mt_tlsf_flags(b) & MT_TLSF_PREV_FREE; }
MT_INLINE void mt_tlsf_set_prev_free(mt_tlsf_block *b, bool free)
{
    size_t h = __atomic_load_n(&b->head, __ATOMIC_RELAXED);
    __atomic_store_n(&b->head, free ? h | MT_TLSF_PREV_FREE : h & ~MT_TLSF_PREV_FREE, __ATOMIC_RELAXED);
}
MT_INLINE bool mt_tlsf_is_sentinel(const mt_tlsf_block *b) { return mt_tlsf_size(b) == 0; }
MT_INLINE mt_tlsf_block *mt_tlsf_at(uintptr_t a) { return (mt_tlsf_block *)a; }
MT_INLINE mt_tlsf_block *mt_tlsf_next(const mt_tlsf_block *b)
{
    return mt_tlsf_at((uintptr_t)b + mt_tlsf_size(b));
}
MT_INLINE mt_tlsf_block *mt_tlsf_of(void *p) { return mt_tlsf_at((uintptr_t)p - MT_TLSF_HDR); }
MT_INLINE void *mt_tlsf_user(mt_tlsf_block *b) { return (char *)b + MT_TLSF_HDR; }

/* Block size for a request: the request plus the overlap word's complement,
 * in multiples of 16, at least MT_TLSF_MIN. */
MT_INLINE size_t mt_tlsf_block_size(size_t request)
{
    size_t s = mt_align_up(request + MT_TLSF_HDR - MT_TLSF_OVERLAP, 16);
    return s < MT_TLSF_MIN ? MT_TLSF_MIN : s;
}

/* The mapping: sizes below 16 << sl_log2 share first level 0 in steps of 16;
 * above, first level k - sl_log2 - 3 for a size in [2^k, 2^(k+1)), cut into
 * 2^sl_log2 equal steps. Sizes up to 2^64 need 61 - sl_log2 first levels
 * (2^32: 29 - sl_log2, on 32-bit targets). */
#define MT_TLSF_FL_COUNT(sl_log2) ((int)sizeof(size_t) * 8 - 3 - (sl_log2))
MT_INLINE void mt_tlsf_map(size_t size, unsigned sl_log2, unsigned *fl, unsigned *sl)
{
    if (size < ((size_t)16 << sl_log2)) {
        *fl = 0;
        *sl = (unsigned)(size >> 4);
    } else {
        unsigned k = mt_log2_floor(size);
        *fl = k - sl_log2 - 3;
        *sl = (unsigned)(size >> (k - sl_log2)) - (1u << sl_log2);
    }
}
/* Round a wanted size up to the start of the next list, so that every block
 * of the list found for it is large enough (good fit, no walk). */
MT_INLINE size_t mt_tlsf_round(size_t size, unsigned sl_log2)
{
    if (size >= ((size_t)16 << sl_log2))
        size += ((size_t)1 << (mt_log2_floor(size) - sl_log2)) - 1;
    return size;
}
#endif /* MORTISE_LAYERS_TLSF_GLK_TYPES */

enum { tlsf_glk_id = MT_NEW_LAYER_ID };
MT_DECLARE_BELOW(free); /* purge hands chunks back through the free chain */
#define MT_SELF_ID MT_SELF(id)
#include "../written/tlsf_glk/safety_link_check.inl" /* link_check, err_handle */

enum {
    tlsf_glk_sl_log2 = __builtin_ctz(MT_SL_COUNT),
    tlsf_glk_fl_count = MT_TLSF_FL_COUNT(__builtin_ctz(MT_SL_COUNT)),
};

static struct {
    MT_SYNC_T(MT_SYNC) lock; /* zero-filled = unlocked (sync.h) */
    uint64_t fl_map;
    uint64_t sl_map[tlsf_glk_fl_count];
    mt_tlsf_block *heads[tlsf_glk_fl_count][MT_SL_COUNT];
    mt_tlsf_block *regions; /* sentinels, linked through next_free/prev_free */
    mt_record_pool records; /* chunk records */
} tlsf_glk_state;

/* ---- the segregated lists (lock held) ---- */

/* ---- link_check: free blocks are checked before they are trusted ---- */

/* Can x be a block header of ours, read without faulting? 16-aligned, and
 * in f's granule or in a granule this layer owns (never one a layer above
 * claimed: those hold no headers). */
MT_INLINE bool tlsf_glk_header_at(const mt_tlsf_block *f, const mt_tlsf_block *x)
{
    /* no branch hint: free neighbours and list links are as often far */
    return !((uintptr_t)x & (MT_MIN_ALIGN - 1)) && (!(((uintptr_t)f ^ (uintptr_t)x) >> MT_GRANULE_SHIFT) ||
                                                    mt_entry_owner(mt_pagemap_get(x)) == MT_SELF_ID);
}

/* May f, a block believed free whose header word reads h, be taken out of
 * its list or merged? Its size leads to a header that names f as its free
 * predecessor, and its list links point at headers of ours that link back
 * to f (the list head when it has no predecessor). An overflow into f or a
 * write after free into it changes one of these. list_head: f was read
 * from its list's head (take_fit), so it needs no look at the heads. */
MT_INLINE bool tlsf_glk_free_ok(const mt_tlsf_block *f, size_t h, bool list_head)
{
    size_t size = h & ~MT_TLSF_FLAGS;
    if (!(h & MT_TLSF_FREE) || size < MT_TLSF_MIN || (size & (MT_MIN_ALIGN - 1)))
        return false;
    const mt_tlsf_block *n = mt_tlsf_at((uintptr_t)f + size), *nx = f->next_free, *pv = f->prev_free;
    if ((uintptr_t)n < (uintptr_t)f || !tlsf_glk_header_at(f, n) || n->prev_phys != f ||
        !mt_tlsf_prev_free(n))
        return false;
    if (nx && (!tlsf_glk_header_at(f, nx) || nx->prev_free != f))
        return false;
    if (pv) /* a condemned predecessor: f is left of a dropped list, adopted */
        return !list_head && tlsf_glk_header_at(f, pv) &&
               (pv->next_free == f || (mt_tlsf_head(pv) & MT_TLSF_CONDEMNED));
    if (list_head)
        return true;
    unsigned fl, sl;
    mt_tlsf_map(size, tlsf_glk_sl_log2, &fl, &sl);
    /* clang-format off */
    return fl < tlsf_glk_fl_count && tlsf_glk_state.heads[fl][sl] == f;
    /* clang-format on */
}

/* The free block f failed its check in operation op: reported at its user
 * address and condemned (no longer free: never merged, never handed out,
 * never reported again; its memory leaks). A block condemned before is
 * not reported again. */
MT_SLOW void tlsf_glk_free_broken(mt_tlsf_block *f, const char *op)
{
    size_t h = mt_tlsf_head(f);
    if (!(h & MT_TLSF_CONDEMNED))
        tlsf_glk_link_broken(mt_tlsf_user(f), op);
    mt_tlsf_set_head(f, (h & ~MT_TLSF_FREE) | MT_TLSF_CONDEMNED);
}

/* link_check on: is the free neighbour f (header word *h) whole? When not,
 * reports and condemns it, and *h is its header word as it is now (not
 * free: a caller that writes the word back keeps it condemned). Off: true
 * without a look. */
MT_INLINE bool tlsf_glk_neighbour_ok(mt_tlsf_block *f, size_t *h, const char *op)
{
    if (!MT_LINK_CHECK || MT_LIKELY(tlsf_glk_free_ok(f, *h, false)))
        return true;
    tlsf_glk_free_broken(f, op);
    *h = mt_tlsf_head(f);
    return false;
}

/* File free block b of `size` bytes (its size, read by the caller). */
MT_INLINE void tlsf_glk_insert(mt_tlsf_block *b, size_t size)
{
    unsigned fl, sl;
    mt_tlsf_map(size, tlsf_glk_sl_log2, &fl, &sl);
    mt_tlsf_block *head = tlsf_glk_state.heads[fl][sl];
    MT_TLSF_STEP();
    b->next_free = head;
    b->prev_free = NULL;
    if (head)
        head->prev_free = b;
    tlsf_glk_state.heads[fl][sl] = b;
    tlsf_glk_state.sl_map[fl] |= (uint64_t)1 << sl;
    tlsf_glk_state.fl_map |= (uint64_t)1 << fl;
}

MT_INLINE void tlsf_glk_emptied(unsigned fl, unsigned sl)
{
    tlsf_glk_state.sl_map[fl] &= ~((uint64_t)1 << sl);
    if (!tlsf_glk_state.sl_map[fl])
        tlsf_glk_state.fl_map &= ~((uint64_t)1 << fl);
}

/* Take free block b of `size` bytes out of its list. */
MT_INLINE void tlsf_glk_remove(mt_tlsf_block *b, size_t size)
{
    unsigned fl, sl;
    mt_tlsf_map(size, tlsf_glk_sl_log2, &fl, &sl);
    MT_TLSF_STEP();
    mt_tlsf_block *next = b->next_free, *prev = b->prev_free;
    if (next)
        next->prev_free = prev;
    if (prev) {
        prev->next_free = next;
    } else {
        tlsf_glk_state.heads[fl][sl] = next;
        if (!next)
            tlsf_glk_emptied(fl, sl);
    }
}

/* link_check: f, found in list (fl, sl) after `pred` (NULL: at its head),
 * failed its check in operation op. It is reported and condemned, and the
 * list ends before it: nothing past f can be trusted (those blocks leak, or
 * are adopted when a neighbour's free merges them: free_ok). */
MT_SLOW void tlsf_glk_list_broken(mt_tlsf_block *f, mt_tlsf_block *pred, unsigned fl, unsigned sl,
                                  const char *op)
{
    tlsf_glk_free_broken(f, op);
    if (pred) {
        pred->next_free = NULL;
    } else {
        tlsf_glk_state.heads[fl][sl] = NULL;
        tlsf_glk_emptied(fl, sl);
    }
}

/* Take a free block of at least `size` bytes out of the lists: two
 * find-first-set searches, then the head of the list they found. */
MT_INLINE mt_tlsf_block *tlsf_glk_take_fit(size_t size)
{
    unsigned fl, sl;
    mt_tlsf_map(mt_tlsf_round(size, tlsf_glk_sl_log2), tlsf_glk_sl_log2, &fl, &sl);
    if (fl >= tlsf_glk_fl_count)
        return NULL;
again:
    MT_TLSF_STEP();
    uint64_t sl_bits = tlsf_glk_state.sl_map[fl] & (~(uint64_t)0 << sl);
    if (!sl_bits) {
        MT_TLSF_STEP();
        uint64_t fl_bits = tlsf_glk_state.fl_map & (~(uint64_t)0 << (fl + 1));
        if (!fl_bits)
            return NULL;
        fl = (unsigned)__builtin_ctzll(fl_bits);
        sl_bits = tlsf_glk_state.sl_map[fl];
    }
    sl = (unsigned)__builtin_ctzll(sl_bits);
    mt_tlsf_block *b = tlsf_glk_state.heads[fl][sl];
    if (MT_LINK_CHECK && MT_UNLIKELY(!tlsf_glk_free_ok(b, mt_tlsf_head(b), true))) {
        /* nothing in this list can be trusted past b: it is dropped (its
         * blocks leak) and the search starts over */
        tlsf_glk_list_broken(b, NULL, fl, sl, "alloc");
        mt_tlsf_map(mt_tlsf_round(size, tlsf_glk_sl_log2), tlsf_glk_sl_log2, &fl, &sl);
        goto again;
    }
    mt_tlsf_block *next = b->next_free;
    MT_TLSF_STEP();
    tlsf_glk_state.heads[fl][sl] = next;
    if (next)
        next->prev_free = NULL;
    else
        tlsf_glk_emptied(fl, sl);
    return b;
}

/* ---- boundary tags: split and merge (lock held) ---- */

/* Mark b (not in a list) used: its successor no longer has a free neighbour. */
MT_INLINE void tlsf_glk_use(mt_tlsf_block *b)
{
    size_t h = mt_tlsf_head(b);
    mt_tlsf_block *after = mt_tlsf_at((uintptr_t)b + (h & ~MT_TLSF_FLAGS));
    mt_tlsf_set_head(b, h & ~MT_TLSF_FREE);
    mt_tlsf_set_head(after, mt_tlsf_head(after) & ~MT_TLSF_PREV_FREE);
}

/* Used block b keeps `size` bytes; the rest, if it can be a block, becomes a
 * free block (merged with a free successor, which only a shrink can have). */
MT_INLINE void tlsf_glk_split(mt_tlsf_block *b, size_t size)
{
    size_t h = mt_tlsf_head(b), total = h & ~MT_TLSF_FLAGS;
    if (total - size < MT_TLSF_MIN)
        return;
    MT_TLSF_STEP();
    mt_tlsf_block *rest = mt_tlsf_at((uintptr_t)b + size), *after = mt_tlsf_at((uintptr_t)b + total);
    size_t rest_size = total - size, after_h = mt_tlsf_head(after);
    if ((after_h & MT_TLSF_FREE) && tlsf_glk_neighbour_ok(after, &after_h, "realloc")) {
        tlsf_glk_remove(after, after_h & ~MT_TLSF_FLAGS);
        rest_size += after_h & ~MT_TLSF_FLAGS;
        after = mt_tlsf_at((uintptr_t)rest + rest_size);
        after_h = mt_tlsf_head(after);
    }
    mt_tlsf_set_head(b, size | (h & MT_TLSF_FLAGS));
    mt_tlsf_set_head(rest, rest_size | MT_TLSF_FREE);
    after->prev_phys = rest;
    mt_tlsf_set_head(after, after_h | MT_TLSF_PREV_FREE);
    tlsf_glk_insert(rest, rest_size);
}

/* b (free, not in a list) starts `gap` bytes too early for its alignment:
 * the gap becomes a free block of its own; returns the block after it. */
MT_INLINE mt_tlsf_block *tlsf_glk_trim_leading(mt_tlsf_block *b, size_t gap)
{
    size_t h = mt_tlsf_head(b);
    mt_tlsf_block *rest = mt_tlsf_at((uintptr_t)b + gap);
    MT_TLSF_STEP();
    mt_tlsf_set_head(rest, ((h & ~MT_TLSF_FLAGS) - gap) | MT_TLSF_FREE | MT_TLSF_PREV_FREE);
    rest->prev_phys = b;
    mt_tlsf_set_head(b, gap | (h & MT_TLSF_FLAGS));
    tlsf_glk_insert(b, gap);
    return rest;
}

/* ---- the critical sections (run through the sync policy's exec) ---- */

MT_INLINE void *tlsf_glk_take(size_t size, size_t align)
{
    size_t need = mt_tlsf_block_size(size);
    size_t search = align > MT_MIN_ALIGN ? need + align + MT_MIN_ALIGN : need;
    mt_tlsf_block *b = tlsf_glk_take_fit(search);
    if (!b)
        return NULL;
    if (align > MT_MIN_ALIGN) {
        uintptr_t user = (uintptr_t)mt_tlsf_user(b);
        size_t gap = mt_align_up(user, align) - user;
        if (gap && gap < MT_TLSF_MIN)
            gap += align;
        if (gap)
            b = tlsf_glk_trim_leading(b, gap);
    }
    tlsf_glk_use(b);
    tlsf_glk_split(b, need);
    return mt_tlsf_user(b);
}

static inline void *tlsf_glk_cs_alloc(void *arg)
{
    mt_tlsf_req *r = arg;
    return tlsf_glk_take(r->size, r->align);
}

MT_SLOW void tlsf_glk_reclaim(mt_tlsf_block *b, size_t size);

/* link_check: b's free predecessor failed prev_ok in operation op. When
 * the word in front of b names a header of ours in front of b that says
 * free (or condemned), that block is the damaged one: reported there (once)
 * and condemned. Otherwise the word itself is not to be trusted: reported
 * at b, whose header holds it. */
MT_SLOW void tlsf_glk_prev_broken(mt_tlsf_block *b, const char *op)
{
    mt_tlsf_block *prev = b->prev_phys;
    if (tlsf_glk_header_at(b, prev) && (uintptr_t)prev < (uintptr_t)b &&
        (mt_tlsf_head(prev) & (MT_TLSF_FREE | MT_TLSF_CONDEMNED)))
        tlsf_glk_free_broken(prev, op);
    else
        tlsf_glk_link_broken(mt_tlsf_user(b), op);
}

/* link_check: b's free predecessor, named by the word in front of b's
 * header (the predecessor's last word), is a whole free block ending at b.
 * Reports it (prev_broken) when not. */
MT_INLINE bool tlsf_glk_prev_ok(mt_tlsf_block *b, const char *op)
{
    mt_tlsf_block *prev = b->prev_phys;
    if (MT_LIKELY(tlsf_glk_header_at(b, prev) && (uintptr_t)prev < (uintptr_t)b &&
                  (uintptr_t)prev + mt_tlsf_size(prev) == (uintptr_t)b &&
                  tlsf_glk_free_ok(prev, mt_tlsf_head(prev), false)))
        return true;
    tlsf_glk_prev_broken(b, op);
    return false;
}

/* link_check: may b, a block handed out and now freed whose header word
 * reads h, be filed? It says used, and its size leads to a header of ours
 * that does not call b free. An overflow from the block in front (a layer
 * above may have left b without a check of its own: a quarantine's ring)
 * changes the word. */
MT_INLINE bool tlsf_glk_used_ok(const mt_tlsf_block *b, size_t h)
{
    size_t size = h & ~MT_TLSF_FLAGS;
    if ((h & (MT_TLSF_FREE | MT_TLSF_CONDEMNED)) || size < MT_TLSF_MIN || (size & (MT_MIN_ALIGN - 1)))
        return false;
    const mt_tlsf_block *n = mt_tlsf_at((uintptr_t)b + size);
    return (uintptr_t)n > (uintptr_t)b && tlsf_glk_header_at(b, n) && !mt_tlsf_prev_free(n);
}

static inline void *tlsf_glk_cs_free(void *arg)
{
    mt_tlsf_block *b = mt_tlsf_of(arg);
    size_t h = mt_tlsf_head(b), size = h & ~MT_TLSF_FLAGS, flags = h & MT_TLSF_PREV_FREE;
    if (MT_LINK_CHECK && MT_UNLIKELY(!tlsf_glk_used_ok(b, h))) {
        tlsf_glk_free_broken(b, "free"); /* reported, condemned: its memory leaks */
        return NULL;
    }
    if (MT_UNLIKELY(size > MT_GRANULE))
        tlsf_glk_reclaim(b, size);
    if (MT_LINK_CHECK && flags && MT_UNLIKELY(!tlsf_glk_prev_ok(b, "free")))
        flags = 0; /* not merged: the damaged block stays where it is */
    if (flags) {
        mt_tlsf_block *prev = b->prev_phys;
        size_t prev_size = mt_tlsf_size(prev);
        MT_TLSF_STEP();
        tlsf_glk_remove(prev, prev_size);
        size += prev_size;
        flags = 0; /* prev's predecessor is used: free blocks never touch */
        b = prev;
    }
    mt_tlsf_block *after = mt_tlsf_at((uintptr_t)b + size);
    size_t after_h = mt_tlsf_head(after);
    if ((after_h & MT_TLSF_FREE) && tlsf_glk_neighbour_ok(after, &after_h, "free")) {
        MT_TLSF_STEP();
        tlsf_glk_remove(after, after_h & ~MT_TLSF_FLAGS);
        size += after_h & ~MT_TLSF_FLAGS;
        after = mt_tlsf_at((uintptr_t)b + size);
        after_h = mt_tlsf_head(after);
    }
    mt_tlsf_set_head(b, size | flags | MT_TLSF_FREE);
    after->prev_phys = b;
    mt_tlsf_set_head(after, after_h | MT_TLSF_PREV_FREE);
    tlsf_glk_insert(b, size);
    return NULL;
}

/* In place: shrink by splitting off the tail, grow into a free successor
 * (up to max_block; beyond, the socket moves the block below). */
static inline void *tlsf_glk_cs_resize(void *arg)
{
    mt_tlsf_req *r = arg;
    mt_tlsf_block *b = mt_tlsf_of(r->ptr);
    size_t need = mt_tlsf_block_size(r->size), h = mt_tlsf_head(b), size = h & ~MT_TLSF_FLAGS;
    if (need > size) {
        mt_tlsf_block *after = mt_tlsf_at((uintptr_t)b + size);
        size_t after_h = mt_tlsf_head(after), after_size = after_h & ~MT_TLSF_FLAGS;
        if (!(after_h & MT_TLSF_FREE) || size + after_size < need ||
            !tlsf_glk_neighbour_ok(after, &after_h, "realloc"))
            return NULL;
        MT_TLSF_STEP();
        tlsf_glk_remove(after, after_size);
        mt_tlsf_set_head(b, (size + after_size) | (h & MT_TLSF_FLAGS));
        mt_tlsf_block *next = mt_tlsf_at((uintptr_t)b + size + after_size);
        mt_tlsf_set_head(next, mt_tlsf_head(next) & ~MT_TLSF_PREV_FREE);
    }
    tlsf_glk_split(b, need);
    return r->ptr;
}

/* ---- chunks and regions (lock held; slow paths) ---- */

/* The page map is read only at granules no layer above can have claimed: a
 * granule holding a block header or a sentinel (a span claimed from a block
 * is whole granules inside it, starting at its user pointer). */
MT_INLINE mt_tlsf_chunk *tlsf_glk_chunk_at(uintptr_t a)
{
    uintptr_t e = mt_pagemap_get((void *)a);
    return mt_entry_owner(e) == MT_SELF_ID ? (mt_tlsf_chunk *)mt_payload_ptr(mt_entry_payload(e)) : NULL;
}

/* Block b of `size` bytes comes back: if a layer above used it as a span,
 * the span's release left every granule after its first nobody's; make the
 * granules that start inside b ours again (b's own granule was not claimed). */
MT_SLOW void tlsf_glk_reclaim(mt_tlsf_block *b, size_t size)
{
    uintptr_t g = mt_align_up((uintptr_t)b + 1, MT_GRANULE), end = (uintptr_t)b + size;
    if (g + MT_GRANULE >= end || tlsf_glk_chunk_at(g + MT_GRANULE))
        return; /* not two granules inside, or nobody took them */
    mt_tlsf_chunk *c = tlsf_glk_chunk_at((uintptr_t)b);
    for (; g < end; g += MT_GRANULE) {
        while (g >= c->base + c->len)
            c = c->next;
        mt_pagemap_set((void *)g, MT_GRANULE, mt_entry(MT_SELF_ID, mt_payload_of(c)));
    }
}

static void tlsf_glk_link_region(mt_tlsf_block *sentinel)
{
    sentinel->prev_free = NULL;
    sentinel->next_free = tlsf_glk_state.regions;
    if (tlsf_glk_state.regions)
        tlsf_glk_state.regions->prev_free = sentinel;
    tlsf_glk_state.regions = sentinel;
}
static void tlsf_glk_unlink_region(mt_tlsf_block *sentinel)
{
    if (sentinel->next_free)
        sentinel->next_free->prev_free = sentinel->prev_free;
    if (sentinel->prev_free)
        sentinel->prev_free->next_free = sentinel->next_free;
    else
        tlsf_glk_state.regions = sentinel->next_free;
}
/* A sentinel at s ends a region; prev is the free block before it, or NULL
 * when that block is used: then the sentinel's first word is the used
 * block's last 8 bytes (the overlap) and must not be written. */
static void tlsf_glk_place_sentinel(uintptr_t s, mt_tlsf_block *prev)
{
    mt_tlsf_block *sentinel = mt_tlsf_at(s);
    mt_tlsf_set(sentinel, 0, prev ? MT_TLSF_PREV_FREE : 0);
    if (prev)
        sentinel->prev_phys = prev;
    tlsf_glk_link_region(sentinel);
}

/* Add a chunk (record rec): one free block over it, joined with the region
 * that ends right before it (its last granule holds the sentinel) and the
 * one that starts right after it (its first granule, the first block). */
static void tlsf_glk_add_chunk(char *chunk, size_t len, mt_tlsf_chunk *rec)
{
    uintptr_t lo = (uintptr_t)chunk, hi = lo + len;
    rec->base = lo;
    rec->len = len;
    rec->prev_entry = mt_span_claim(chunk, len, MT_SELF_ID, mt_payload_of(rec));
    rec->prev = tlsf_glk_chunk_at(lo - MT_GRANULE);
    rec->next = tlsf_glk_chunk_at(hi);
    mt_tlsf_block *b = mt_tlsf_at(lo);
    size_t flags = MT_TLSF_FREE;
    if (rec->prev) { /* the region below ends with its sentinel */
        mt_tlsf_block *below = mt_tlsf_at(lo - MT_TLSF_RESERVE);
        rec->prev->next = rec;
        tlsf_glk_unlink_region(below);
        b = below;
        if (mt_tlsf_prev_free(below)) {
            if (!MT_LINK_CHECK || MT_LIKELY(tlsf_glk_prev_ok(below, "grow"))) {
                b = below->prev_phys;
                tlsf_glk_remove(b, mt_tlsf_size(b));
            } else {
                mt_tlsf_set_prev_free(below, false); /* damaged: left out, not merged */
            }
        }
        flags |= mt_tlsf_flags(b) & MT_TLSF_PREV_FREE;
    }
    mt_tlsf_block *after;
    if (rec->next) { /* the region above starts with its first block */
        rec->next->prev = rec;
        after = mt_tlsf_at(hi);
        size_t after_h = mt_tlsf_head(after);
        if ((after_h & MT_TLSF_FREE) && tlsf_glk_neighbour_ok(after, &after_h, "grow")) {
            tlsf_glk_remove(after, mt_tlsf_size(after));
            after = mt_tlsf_next(after);
        }
    } else {
        after = mt_tlsf_at(hi - MT_TLSF_RESERVE);
        tlsf_glk_place_sentinel(hi - MT_TLSF_RESERVE, NULL);
    }
    size_t size = (uintptr_t)after - (uintptr_t)b;
    mt_tlsf_set(b, size, flags);
    after->prev_phys = b;
    mt_tlsf_set_prev_free(after, true);
    tlsf_glk_insert(b, size);
}

static inline void *tlsf_glk_cs_grow(void *arg)
{
    mt_tlsf_req *r = arg;
    tlsf_glk_add_chunk(r->chunk, r->len, r->rec);
    return tlsf_glk_take(r->size, r->align);
}

/* Within free block f (out of the lists), the longest run of whole chunks
 * [*lo, *hi), starting with chunk *first, that can go back below with the
 * boundary tags around it still in place: before it either the region's
 * start or room for a sentinel (after a free block of at least MT_TLSF_MIN,
 * or none); after it either the region's end or a free block of at least
 * MT_TLSF_MIN, or none. */
static bool tlsf_glk_releasable(mt_tlsf_block *f, uintptr_t *lo, uintptr_t *hi, mt_tlsf_chunk **first)
{
    uintptr_t f0 = (uintptr_t)f, f1 = f0 + mt_tlsf_size(f);
    bool last = mt_tlsf_is_sentinel(mt_tlsf_at(f1));
    uintptr_t end = last ? f1 + MT_TLSF_RESERVE : f1;
    *lo = *hi = 0;
    for (mt_tlsf_chunk *c = tlsf_glk_chunk_at(f0); c && c->base < end; c = c->next) {
        if (!*lo && c->base >= f0) {
            size_t room = c->base - f0;
            if (!c->prev ? room == 0 : room == MT_TLSF_RESERVE || room >= MT_TLSF_RESERVE + MT_TLSF_MIN) {
                *lo = c->base;
                *first = c;
            }
        }
        uintptr_t e = c->base + c->len;
        if (*lo && e <= end && ((last && e == end) || (e <= f1 && (f1 - e == 0 || f1 - e >= MT_TLSF_MIN))))
            *hi = e;
    }
    return *lo && *hi > *lo;
}

/* Give [lo, hi) of free block f back below and close the region(s) around
 * the hole: a sentinel (after a shrunk f) below it, a new first block above. */
static void tlsf_glk_release_run(mt_tlsf_block *f, uintptr_t lo, uintptr_t hi, mt_tlsf_chunk *first)
{
    uintptr_t f0 = (uintptr_t)f, f1 = f0 + mt_tlsf_size(f);
    mt_tlsf_block *after = mt_tlsf_at(f1);
    if (lo != f0) {
        size_t left = lo - MT_TLSF_RESERVE - f0;
        if (left) {
            mt_tlsf_set(f, left, mt_tlsf_flags(f));
            tlsf_glk_insert(f, left);
        }
        tlsf_glk_place_sentinel(lo - MT_TLSF_RESERVE, left ? f : NULL);
    }
    if (mt_tlsf_is_sentinel(after) && hi == f1 + MT_TLSF_RESERVE) {
        tlsf_glk_unlink_region(after);
    } else if (f1 == hi) {
        mt_tlsf_set_prev_free(after, false);
    } else {
        mt_tlsf_block *rest = mt_tlsf_at(hi);
        mt_tlsf_set(rest, f1 - hi, MT_TLSF_FREE);
        after->prev_phys = rest;
        tlsf_glk_insert(rest, f1 - hi);
    }
    if (first->prev)
        first->prev->next = NULL;
    mt_tlsf_chunk *c = first;
    while (c && c->base < hi) {
        mt_tlsf_chunk *next = c->next;
        mt_span_release((void *)c->base, c->len, c->prev_entry, MT_BELOW(free));
        mt_record_put(&tlsf_glk_state.records, c);
        c = next;
    }
    if (c)
        c->prev = NULL;
}

static inline void *tlsf_glk_cs_purge(void *arg)
{
    (void)arg;
    unsigned fl0, sl0;
    mt_tlsf_map(MT_GRANULE, tlsf_glk_sl_log2, &fl0, &sl0);
    mt_tlsf_block *candidates = NULL;
    for (unsigned fl = fl0; fl < tlsf_glk_fl_count; fl++) {
        for (unsigned sl = 0; sl < MT_SL_COUNT; sl++) {
            mt_tlsf_block *b = tlsf_glk_state.heads[fl][sl], *next, *pred = NULL;
            for (; b; b = next) {
                uintptr_t lo, hi;
                mt_tlsf_chunk *first;
                if (MT_LINK_CHECK && MT_UNLIKELY(!tlsf_glk_free_ok(b, mt_tlsf_head(b), !pred))) {
                    tlsf_glk_list_broken(b, pred, fl, sl, "purge");
                    break;
                }
                next = b->next_free;
                if (tlsf_glk_releasable(b, &lo, &hi, &first)) {
                    tlsf_glk_remove(b, mt_tlsf_size(b));
                    b->next_free = candidates;
                    candidates = b;
                } else {
                    pred = b;
                }
            }
        }
    }
    void *any = NULL;
    while (candidates) { /* an earlier release may have changed a neighbour: look again */
        mt_tlsf_block *b = candidates;
        uintptr_t lo, hi;
        mt_tlsf_chunk *first;
        candidates = b->next_free;
        if (tlsf_glk_releasable(b, &lo, &hi, &first)) {
            tlsf_glk_release_run(b, lo, hi, first);
            any = (void *)1;
        } else {
            tlsf_glk_insert(b, mt_tlsf_size(b));
        }
    }
    return any;
}

/* ---- the layer operations ---- */

MT_SLOW void *tlsf_glk_alloc_grow(mt_ctx *ctx, mt_lfunc *next)
{
    size_t need = mt_tlsf_block_size(ctx->size);
    if (ctx->align > MT_MIN_ALIGN)
        need += ctx->align + MT_MIN_ALIGN;
    need = mt_align_up(mt_tlsf_round(need, tlsf_glk_sl_log2) + MT_TLSF_RESERVE, MT_GRANULE);
    mt_tlsf_req r = {.size = ctx->size, .align = ctx->align};
    r.len = need > MT_POOL_SIZE ? need : mt_align_up(MT_POOL_SIZE, MT_GRANULE);
    /* the record first: a granule the pool takes from below then does not
     * land between two chunks of a heap that grows contiguously (brk_heap) */
    mt_ctx sub = mt_ctx_for_alloc(r.len, MT_GRANULE);
    r.rec = mt_record_get(&tlsf_glk_state.records, sizeof(mt_tlsf_chunk), next);
    r.chunk = r.rec ? next(&sub) : NULL;
    if (!r.chunk) {
        if (r.rec)
            mt_record_put(&tlsf_glk_state.records, r.rec);
        ctx->err = sub.err ? sub.err : MT_ENOMEM;
        return NULL;
    }
    return MT_SYNC_FN(MT_SYNC, exec)(&tlsf_glk_state.lock, tlsf_glk_cs_grow, &r);
}

#define MT_IMPLEMENTS_alloc
MT_INLINE void *tlsf_glk_alloc(mt_ctx *ctx, mt_lfunc *next)
{
    if (!mt_size_in(ctx->size, MT_SIZE_HANDLE_LO(MT_SIZE_HANDLE), MT_SIZE_HANDLE_HI(MT_SIZE_HANDLE)) ||
        ctx->size > (size_t)(MT_MAX_BLOCK) || MT_UNLIKELY(ctx->align > MT_MAX_REQUEST - ctx->size))
        return next(ctx); /* no room for the alignment gap: the layer below decides */
    mt_tlsf_req r = {.size = ctx->size, .align = ctx->align};
    void *p = MT_SYNC_FN(MT_SYNC, exec)(&tlsf_glk_state.lock, tlsf_glk_cs_alloc, &r);
    if (MT_UNLIKELY(!p))
        return MT_COLD_CALL(ctx, copy, tlsf_glk_alloc_grow(&copy, next));
    return p;
}

#define MT_IMPLEMENTS_free
MT_INLINE void *tlsf_glk_free(mt_ctx *ctx, mt_lfunc *next)
{
    if (MT_NOT_MINE(ctx, MT_SELF_ID))
        return next(ctx);
    MT_SYNC_FN(MT_SYNC, exec)(&tlsf_glk_state.lock, tlsf_glk_cs_free, ctx->ptr);
    return NULL;
}

#define MT_IMPLEMENTS_getmeta
MT_INLINE void *tlsf_glk_getmeta(mt_ctx *ctx, mt_lfunc *next)
{
    if (MT_NOT_MINE(ctx, MT_SELF_ID))
        return next(ctx);
    ctx->usable = mt_tlsf_size(mt_tlsf_of(ctx->ptr)) - MT_TLSF_HDR + MT_TLSF_OVERLAP;
    return ctx->ptr;
}

#define MT_IMPLEMENTS_resize
MT_INLINE void *tlsf_glk_resize(mt_ctx *ctx, mt_lfunc *next)
{
    if (MT_NOT_MINE(ctx, MT_SELF_ID))
        return next(ctx);
    if (ctx->size > (size_t)(MT_MAX_BLOCK))
        return NULL;
    mt_tlsf_req r = {.size = ctx->size, .ptr = ctx->ptr};
    return MT_SYNC_FN(MT_SYNC, exec)(&tlsf_glk_state.lock, tlsf_glk_cs_resize, &r);
}

MT_SLOW MT_UNUSED const char *tlsf_glk_walk(mt_tlsf_stats *stats);

/* Level 2 walks the heap after a purge, not after a growth: a walk is
 * O(heap), and a heap grows O(heap) times. */
#define MT_IMPLEMENTS_purge
MT_INLINE void *tlsf_glk_purge(mt_ctx *ctx, mt_lfunc *next)
{
    void *any = MT_SYNC_FN(MT_SYNC, exec)(&tlsf_glk_state.lock, tlsf_glk_cs_purge, NULL);
    MT_ASSERT_HOLDS(tlsf_glk_walk(NULL));
    return (next(ctx) || any) ? (void *)1 : NULL;
}

#define MT_GLK_LOCK MT_SELF(state).lock
#define MT_GLK_RECORDS MT_SELF(state).records
#include "../written/tlsf_glk/glk_fork.inl" /* fork: the lock, then the record pool */

/* ---- the invariant checker (the check operation) ---- */

typedef struct {
    mt_tlsf_stats stats;
    const char *broken;
} tlsf_glk_check_result;

#define MT__TLSF_REQUIRE(cond, what)                 \
    do {                                             \
        if (!(cond)) {                               \
            res->broken = MT_STR(MT_NAME) ": " what; \
            return res;                              \
        }                                            \
    } while (0)

/* Granule g maps to the chunk holding it (*at: the chunks of the region in
 * address order, advanced as g grows). */
static bool tlsf_glk_mapped(uintptr_t g, mt_tlsf_chunk **at)
{
    while (*at && g >= (*at)->base + (*at)->len)
        *at = (*at)->next;
    return *at && tlsf_glk_chunk_at(g) == *at;
}

/* Walk one region from its first chunk to its sentinel. */
static void *tlsf_glk_check_region(tlsf_glk_check_result *res, mt_tlsf_block *sentinel)
{
    mt_tlsf_chunk *c = tlsf_glk_chunk_at((uintptr_t)sentinel);
    uintptr_t end = (uintptr_t)sentinel + MT_TLSF_RESERVE;
    MT__TLSF_REQUIRE(c && !c->next && c->base + c->len == end, "region does not end at its sentinel");
    for (; c->prev; c = c->prev)
        MT__TLSF_REQUIRE(c->prev->next == c && c->prev->base + c->prev->len == c->base, "chunk links");
    MT__TLSF_REQUIRE(!tlsf_glk_chunk_at(c->base - MT_GRANULE) && !tlsf_glk_chunk_at(end),
                     "a region next to another one of ours");
    for (mt_tlsf_chunk *k = c; k; k = k->next) {
        MT__TLSF_REQUIRE(k->len && k->len % MT_GRANULE == 0, "chunk length");
        res->stats.chunks++;
        res->stats.heap_bytes += k->len;
    }
    mt_tlsf_block *prev = NULL;
    mt_tlsf_chunk *at = c;
    for (mt_tlsf_block *b = mt_tlsf_at(c->base);; b = mt_tlsf_next(b)) {
        MT__TLSF_REQUIRE((uintptr_t)b < end && ((uintptr_t)b & 15) == 0, "block outside its region");
        MT__TLSF_REQUIRE(tlsf_glk_mapped((uintptr_t)b, &at),
                         "a block header's granule not mapped to its chunk");
        MT__TLSF_REQUIRE(mt_tlsf_prev_free(b) == (prev && mt_tlsf_is_free(prev)), "previous-free flag");
        MT__TLSF_REQUIRE(!mt_tlsf_prev_free(b) || b->prev_phys == prev, "previous-block pointer");
        if (mt_tlsf_is_sentinel(b)) {
            MT__TLSF_REQUIRE(b == sentinel && !mt_tlsf_is_free(b), "sentinel");
            break;
        }
        size_t size = mt_tlsf_size(b);
        MT__TLSF_REQUIRE(size >= MT_TLSF_MIN && size % 16 == 0, "block size");
        if (mt_tlsf_is_free(b)) {
            MT__TLSF_REQUIRE(!mt_tlsf_prev_free(b), "two free blocks side by side");
            for (uintptr_t g = mt_align_up((uintptr_t)b + 1, MT_GRANULE); g < (uintptr_t)b + size;
                 g += MT_GRANULE)
                MT__TLSF_REQUIRE(tlsf_glk_mapped(g, &at), "a free block's granule not mapped to its chunk");
            res->stats.free_blocks++;
            res->stats.free_bytes += size;
            if (size > res->stats.largest_free)
                res->stats.largest_free = size;
        } else {
            res->stats.used_blocks++;
            res->stats.used_bytes += size;
        }
        prev = b;
    }
    return NULL;
}

static void *tlsf_glk_cs_check(void *arg)
{
    tlsf_glk_check_result *res = arg;
    for (mt_tlsf_block *s = tlsf_glk_state.regions; s; s = s->next_free) {
        MT__TLSF_REQUIRE(s->next_free != s && (!s->next_free || s->next_free->prev_free == s),
                         "region list links");
        res->stats.regions++;
        if (tlsf_glk_check_region(res, s))
            return res;
    }
    size_t listed = 0;
    for (unsigned fl = 0; fl < tlsf_glk_fl_count; fl++) {
        MT__TLSF_REQUIRE(!tlsf_glk_state.sl_map[fl] == !(tlsf_glk_state.fl_map >> fl & 1),
                         "first-level bitmap");
        for (unsigned sl = 0; sl < MT_SL_COUNT; sl++) {
            mt_tlsf_block *b = tlsf_glk_state.heads[fl][sl];
            MT__TLSF_REQUIRE(!b == !(tlsf_glk_state.sl_map[fl] >> sl & 1), "second-level bitmap");
            MT__TLSF_REQUIRE(!b || !b->prev_free, "list head has a predecessor");
            for (; b; b = b->next_free) {
                unsigned f, s;
                mt_tlsf_map(mt_tlsf_size(b), tlsf_glk_sl_log2, &f, &s);
                MT__TLSF_REQUIRE(mt_tlsf_is_free(b) && f == fl && s == sl, "block in the wrong list");
                /* link_check: a link the program rewrote is reported, not followed */
                MT__TLSF_REQUIRE(!b->next_free || ((!MT_LINK_CHECK || tlsf_glk_header_at(b, b->next_free)) &&
                                                   b->next_free->prev_free == b),
                                 "free list links");
                MT__TLSF_REQUIRE(++listed <= res->stats.free_blocks, "more listed than free blocks");
            }
        }
    }
    MT__TLSF_REQUIRE(listed == res->stats.free_blocks, "free block missing from the lists");
    return NULL;
}
#undef MT__TLSF_REQUIRE

/* Check every invariant under the lock: NULL if they all hold, else "NAME:
 * the first one broken". Fills *stats (if not NULL) with what the walk
 * counted (tests). */
MT_SLOW MT_UNUSED const char *tlsf_glk_walk(mt_tlsf_stats *stats)
{
    tlsf_glk_check_result res = {{0}, NULL};
    MT_SYNC_FN(MT_SYNC, exec)(&tlsf_glk_state.lock, tlsf_glk_cs_check, &res);
    if (stats)
        *stats = res.stats;
    return res.broken;
}

#define MT_IMPLEMENTS_check
MT_INLINE void *tlsf_glk_check(mt_ctx *ctx, mt_lfunc *next)
{
    return mt_check_then(tlsf_glk_walk(NULL), ctx, next);
}

#define MT_DESCRIPTOR MT_DESCRIPTOR_tlsf_glk
#include "../core/layer_end.h"
/* Forget this instance's slots: the next instance starts from the defaults. */
#undef MT_SIZE_HANDLE
#undef MT_SYNC
#undef MT_POOL_SIZE
#undef MT_ERR_HANDLE
#undef MT_LINK_CHECK
#undef MT_SL_COUNT
#undef MT_MAX_BLOCK
#undef MT_LOCK_STAT
#ifdef MT_NAMES_tlsf_glk
#include "../names/tlsf_glk.h" /* forget them */
#endif
#endif /* MT_DESCRIBE */

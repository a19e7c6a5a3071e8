/* buddy_glk — binary buddy system, one global lock.
 *
 * Serves: blocks of 2^k bytes, min <= 2^k <= chunk (defaults: 4 KiB and
 *   4 MiB), aligned to their size up to the 64 KiB granule (chunks are
 *   granule-aligned; see below), carved from chunks it takes from the
 *   layer below, for
 *     - requests in size_handle (user requests), and
 *     - any request aligned to exactly a granule: the spans a layer above
 *       asks for (slab_lk's slabs, which may be smaller than size_handle's
 *       lower bound) and memalign(64 KiB, ...)
 *   when the size is at most a chunk. Everything else (larger requests and
 *   alignments above a granule) goes to the next layer.
 *   Chunks are asked for aligned to a granule, not to their size: an OS
 *   layer reuses freed granule-aligned chunks (mmap_heap's chunk cache,
 *   its FAA arena and thread-local regions serve only those), so chunks
 *   cycling through purge and free cost no new mappings. Buddies are found
 *   by offsets from the chunk's base.
 * Slots (model language → macro, default):
 *   size_handle=[lo, hi] → MT_SIZE_HANDLE (32768, SIZE_MAX)
 *   sync=POLICY          → MT_SYNC (spinlock): the one lock; every critical
 *                          section runs through the policy's exec, so a
 *                          combining policy (hslab: flatcombine) fits
 *   sizeclass=POLICY     → MT_SIZECLASS (none): accepted so a model line
 *                          can name it (hslab writes sizeclass=tc); it must
 *                          name a policy and has no effect: block sizes are
 *                          the buddy orders, powers of two, whatever the
 *                          policy.
 *   link_check=0|1       → MT_LINK_CHECK (0): 1 checks both links of a
 *                          free block before a removal follows them (safe
 *                          unlinking; safety/link_check.h), and the next
 *                          link before purge's walk over a list follows
 *                          it: each is NULL
 *                          (prev only for the list's head) or the start of
 *                          a free block of the same level in a chunk of
 *                          ours (page map and state map) whose link back
 *                          names the block. An overflow into a free
 *                          neighbour or a write after free over the first
 *                          16 bytes is reported (corrupted-metadata, at the
 *                          block) and the level's list is rebuilt from the
 *                          state maps (nothing leaked, no link of the
 *                          program's followed); the check operation reports
 *                          a list link outside its chunks instead of
 *                          following it. Cost: per removal two page
 *                          map lookups, two state bytes and two link loads
 *                          under the lock (large blocks and spans only; no
 *                          fast path goes through this layer).
 *   err_handle=POLICY    → MT_ERR_HANDLE (default): what a failed link check
 *                          does after its report (policy/err); it runs
 *                          under the layer's lock.
 *   Tuning (not model slots): MT_BUDDY_CHUNK_SHIFT (22: 4 MiB chunks; at
 *   least the granule) and MT_BUDDY_MIN_SHIFT (12: 4 KiB smallest block;
 *   4 .. 12, at most 2^18 smallest blocks per chunk). A buddy that serves
 *   small requests too wants a small minimum (instance buddy: 16 bytes).
 * Needs from below: granule-aligned chunks, and spans for large state
 *   maps (any OS layer), and free.
 * Structure: per chunk a record (layers/glk/record_pool.h) with a state map
 *   out of line: one byte per smallest block telling what starts there (a
 *   used block of level k, a free block of level k and whether it is
 *   known zero-filled) or that it lies inside a block; the map is in the
 *   record when it is at most 8 KiB (minimum 512 bytes and more), else a
 *   span of its own from below. Per level, one doubly-linked LIFO list of
 *   free blocks over all chunks, its links in the free blocks' first 16
 *   bytes, and a bit mask of the levels that have one. The page map names
 *   buddy_glk for every granule of a chunk, with the record as payload, so
 *   free and getmeta find the map in O(1) and check that a pointer starts
 *   a used block before anything is done with it (the owner of a block
 *   keeps the entry of its first granule: a layer above that claims a
 *   span gets those granules, and free puts the chunk's entry back on
 *   all of them).
 * Time: alloc O(levels): the smallest level with a free block (one ctz),
 *   then one split per level down; free O(levels): one merge per level up.
 *   A new chunk costs a record, maybe a map, and one call below; that, and
 *   giving a chunk back, happen outside the lock. getmeta O(1), no lock.
 *   resize in place: shrinking frees the upper halves, growing takes free
 *   buddies, O(levels). purge: one call below per wholly free chunk, then,
 *   under the lock, one madvise per touched free block of two pages or
 *   more (malloc_trim is rare; nothing else waits on it but this lock).
 * Space: per chunk a 64-byte record and a map of chunk / min bytes (4 MiB
 *   chunks: 1 KiB with 4 KiB blocks, 0.03 %; 256 KiB with 16-byte blocks,
 *   6.25 %, resident only where blocks were used). Internal fragmentation:
 *   a block is the power of two at or above the request (up to 100 %,
 *   e.g. 32769 B -> 64 KiB). A chunk whose blocks are all free stays cached
 *   if it is the only such one, else goes back below on free; purge gives
 *   back all of them. Free blocks inside a chunk in use keep their pages
 *   until purge (malloc_trim), which gives back all of each one's pages but
 *   the one holding its links.
 * Thread safety: all operations, under the one lock. Lock order: the lock
 *   (never held while calling below), then the record pool's lock, then
 *   the layer below. fork_prepare takes the lock, then the pool's;
 *   parent/child release/reset them after the layers below.
 * Fails: only when the layer below fails (ctx->err from it).
 * Check (the contract's check operation; NAME_invariants() for this layer
 *   alone): block tiling, coalescing, free lists, counts and the page map
 *   agree; "NAME: what" names the first that does not.
 * Example:
 *   mmap_heap(faa_heap_growth=1, threadlocal_heap_size=2MB)
 *     :: buddy_glk(sync=spinlock, sizeclass=tc, size_handle=[32768, SIZE_MAX])
 *     :: slab_lk(sync=spinlock, slab_size=64KB, sizeclass=tc, size_handle=[0, 32768])
 *     :: malloc_socket
 */
/* The layer's descriptor (core/describe.h): the data tools/describe_layers.py
 * reads and core/layer_end.h checks the slots against. */
#define MT_DESCRIPTOR_buddy_glk(LAYER, SLOT)                                                 \
    LAYER(buddy_glk, trunk, 0, (), ())                                                       \
    MT_OPS(SLOT, alloc, free, getmeta, resize, fork_prepare, fork_parent, fork_child, purge) \
    MT_SLOT_SIZE_HANDLE(SLOT, 32768, SIZE_MAX)                                               \
    MT_SLOT_SYNC(SLOT, spinlock)                                                             \
    MT_SLOT_SIZECLASS(SLOT, none)                                                            \
    MT_SLOTS_LINK_CHECK(SLOT)
#ifndef MT_DESCRIBE /* describe mode reads the descriptor alone */
#include "../core/layer.h"
#include "../policy/sync/sync.h"
#include "../policy/sizeclass/sizeclass.h"
#include "glk/record_pool.h"

#ifdef MT_NAME /* another instance name: the names below become its own */
#include "../names/buddy_glk.h"
#else
#define MT_NAME buddy_glk
#endif
#include "../written/buddy_glk/safety_link_check.inl" /* link_check, err_handle */
#ifndef MT_SIZE_HANDLE
#define MT_SIZE_HANDLE 32768, SIZE_MAX
#endif
#ifndef MT_SYNC
#define MT_SYNC spinlock
#endif
#ifdef MT_SIZECLASS
_Static_assert(MT_SZCLS_CLASSES(MT_SIZECLASS) > 0, "buddy_glk: sizeclass names no policy");
#endif
#ifndef MT_BUDDY_CHUNK_SHIFT
#define MT_BUDDY_CHUNK_SHIFT 22
#endif
#ifndef MT_BUDDY_MIN_SHIFT
#define MT_BUDDY_MIN_SHIFT 12
#endif

_Static_assert(MT_BUDDY_CHUNK_SHIFT >= MT_GRANULE_SHIFT && MT_BUDDY_CHUNK_SHIFT <= 30,
               "buddy_glk: a chunk is a granule multiple, at most 1 GiB");
_Static_assert(MT_BUDDY_MIN_SHIFT >= 4 && MT_BUDDY_MIN_SHIFT <= 12 &&
                   MT_BUDDY_CHUNK_SHIFT - MT_BUDDY_MIN_SHIFT <= 18,
               "buddy_glk: smallest block 16 bytes to 4 KiB, at most 2^18 of them per chunk");

enum { buddy_glk_id = MT_NEW_LAYER_ID };
#define MT_SELF_ID MT_SELF(id)
MT_DECLARE_BELOW(free); /* chunks go back through the free chain */

#ifndef MORTISE_LAYERS_BUDDY_GLK_TYPES
#define MORTISE_LAYERS_BUDDY_GLK_TYPES
/* A page's state byte: what starts there, and the order above the minimum. */
#define MT_BUDDY_USED 0x80u  /* start of a used block */
#define MT_BUDDY_FREE 0x40u  /* start of a free block */
#define MT_BUDDY_ZERO 0x20u  /* (free blocks) known zero-filled */
#define MT_BUDDY_LEVEL 0x1fu /* order - MT_BUDDY_MIN_SHIFT */
#endif

enum {
    buddy_glk_levels = MT_BUDDY_CHUNK_SHIFT - MT_BUDDY_MIN_SHIFT + 1,
    buddy_glk_pages = 1 << (MT_BUDDY_CHUNK_SHIFT - MT_BUDDY_MIN_SHIFT), /* smallest blocks per chunk */
    buddy_glk_inline_map = buddy_glk_pages <= 8192,                     /* the state map fits in the record */
};
#define MT_SELF_CHUNK ((size_t)1 << MT_BUDDY_CHUNK_SHIFT)
#define MT_SELF_TOP (MT_SELF(levels) - 1) /* the level of a whole chunk */

/* A free block's first 16 bytes: its links in the free list of its level. */
typedef struct buddy_glk_node {
    struct buddy_glk_node *prev, *next;
} buddy_glk_node;

typedef struct buddy_glk_chunk {
    char *base;                                  /* aligned to a granule */
    _Atomic(uint8_t) *state;                     /* one byte per smallest block; read without the lock */
    uintptr_t prev_entry;                        /* the layer below's page-map entry */
    struct buddy_glk_chunk *all_next, *all_prev; /* every chunk */
    size_t free_pages;                           /* free smallest blocks */
    _Atomic(uint8_t) map[];                      /* the state map when it is inline */
} buddy_glk_chunk;

static struct {
    MT_SYNC_T(MT_SYNC) lock;                /* zero-filled = unlocked (sync.h) */
    buddy_glk_node *free[buddy_glk_levels]; /* free blocks per level (LIFO, doubly linked) */
    uint32_t nonempty;                      /* bit l: free[l] has a block */
    buddy_glk_chunk *all;
    size_t chunks, free_chunks; /* free_chunks: chunks wholly free */
    mt_record_pool records;
} buddy_glk_state;

MT_INLINE uint8_t buddy_glk_get(buddy_glk_chunk *ch, size_t page)
{
    return mt_load_relaxed(&ch->state[page]);
}
MT_INLINE void buddy_glk_set(buddy_glk_chunk *ch, size_t page, unsigned v)
{
    mt_store_relaxed(&ch->state[page], (uint8_t)v);
}
MT_INLINE size_t buddy_glk_span(unsigned level) { return (size_t)1 << level; } /* pages in a block */
MT_INLINE char *buddy_glk_at(buddy_glk_chunk *ch, size_t page)
{
    return ch->base + (page << MT_BUDDY_MIN_SHIFT);
}
MT_INLINE uintptr_t buddy_glk_entry(buddy_glk_chunk *ch) { return mt_entry(MT_SELF_ID, mt_payload_of(ch)); }

/* ---- free lists, lock held ---- */

MT_INLINE void buddy_glk_push_free(buddy_glk_chunk *ch, size_t page, unsigned level, bool zero)
{
    buddy_glk_node *n = (buddy_glk_node *)buddy_glk_at(ch, page), *first = buddy_glk_state.free[level];
    buddy_glk_set(ch, page, MT_BUDDY_FREE | (zero ? MT_BUDDY_ZERO : 0) | level);
    n->prev = NULL;
    n->next = first;
    if (first)
        first->prev = n;
    buddy_glk_state.free[level] = n;
    buddy_glk_state.nonempty |= (uint32_t)1 << level;
}

/* The chunk a block lies in (a free block's granule names us). */
MT_INLINE buddy_glk_chunk *buddy_glk_chunk_of(const void *p)
{
    return (buddy_glk_chunk *)mt_payload_ptr(mt_entry_payload(mt_pagemap_get(p)));
}

/* link_check: may n's link l (its next when `forward`) be followed? NULL
 * (a prev only at the head), or a free block of the level in a chunk of
 * ours whose link back is n. */
MT_INLINE bool buddy_glk_link_sound(buddy_glk_node *n, buddy_glk_node *l, unsigned level, bool forward)
{
    if (!l)
        return forward || buddy_glk_state.free[level] == n;
    if (!mt_link_far_ok(l, MT_SELF_ID))
        return false;
    buddy_glk_chunk *ch = buddy_glk_chunk_of(l);
    uintptr_t off = (uintptr_t)l - (uintptr_t)ch->base;
    if (off >= MT_SELF_CHUNK || (off & ((buddy_glk_span(level) << MT_BUDDY_MIN_SHIFT) - 1)))
        return false;
    if ((buddy_glk_get(ch, off >> MT_BUDDY_MIN_SHIFT) & ~MT_BUDDY_ZERO) != (MT_BUDDY_FREE | level))
        return false;
    return (forward ? l->prev : l->next) == n;
}

MT_INLINE void buddy_glk_push_free(buddy_glk_chunk *ch, size_t page, unsigned level, bool zero);

/* link_check failed at n: the level's list is made again from the state
 * maps, which no program reaches (every free block of the level, once). */
MT_SLOW void buddy_glk_relink(buddy_glk_node *n, unsigned level, const char *op)
{
    buddy_glk_link_broken(n, op);
    buddy_glk_state.free[level] = NULL;
    buddy_glk_state.nonempty &= ~((uint32_t)1 << level);
    for (buddy_glk_chunk *ch = buddy_glk_state.all; ch; ch = ch->all_next)
        for (size_t page = 0; page < buddy_glk_pages; page += buddy_glk_span(level)) {
            unsigned st = buddy_glk_get(ch, page);
            if ((st & ~MT_BUDDY_ZERO) == (MT_BUDDY_FREE | level))
                buddy_glk_push_free(ch, page, level, st & MT_BUDDY_ZERO);
        }
}

MT_INLINE void buddy_glk_remove_free(buddy_glk_chunk *ch, size_t page, unsigned level, const char *op)
{
    buddy_glk_node *n = (buddy_glk_node *)buddy_glk_at(ch, page);
    if (MT_LINK_CHECK && MT_UNLIKELY(!buddy_glk_link_sound(n, n->prev, level, false) ||
                                     !buddy_glk_link_sound(n, n->next, level, true)))
        buddy_glk_relink(n, level, op);
    if (n->prev)
        n->prev->next = n->next;
    else if (!(buddy_glk_state.free[level] = n->next))
        buddy_glk_state.nonempty &= ~((uint32_t)1 << level);
    if (n->next)
        n->next->prev = n->prev;
}

/* Take chunk ch (wholly free) out of the lists. */
MT_INLINE void buddy_glk_drop_chunk(buddy_glk_chunk *ch, const char *op)
{
    buddy_glk_remove_free(ch, 0, MT_SELF_TOP, op);
    if (ch->all_prev)
        ch->all_prev->all_next = ch->all_next;
    else
        buddy_glk_state.all = ch->all_next;
    if (ch->all_next)
        ch->all_next->all_prev = ch->all_prev;
    buddy_glk_state.chunks--;
    buddy_glk_state.free_chunks--;
}

/* ---- critical sections (run through MT_SYNC's exec) ---- */

typedef struct {
    unsigned level;      /* alloc, resize: the block's level */
    bool zeroed;         /* alloc: the block is known zero-filled */
    buddy_glk_chunk *ch; /* alloc: a new chunk to add; free, resize: the block's chunk */
    size_t page;         /* free, resize: the block's first page */
    bool added;          /* alloc: the new chunk was needed and added */
} buddy_glk_args;

/* A block of a->level from the smallest free block that holds it; NULL
 * when there is none. */
static void *buddy_glk_cs_alloc(void *arg)
{
    buddy_glk_args *a = arg;
    unsigned level = a->level;
    uint32_t fit = buddy_glk_state.nonempty & ~(((uint32_t)1 << level) - 1);
    if (!fit)
        return NULL;
    unsigned j = (unsigned)__builtin_ctz(fit);
    char *p = (char *)buddy_glk_state.free[j];
    buddy_glk_chunk *ch = buddy_glk_chunk_of(p);
    size_t page = (size_t)(p - ch->base) >> MT_BUDDY_MIN_SHIFT;
    bool zero = buddy_glk_get(ch, page) & MT_BUDDY_ZERO;
    buddy_glk_remove_free(ch, page, j, "alloc");
    if (j == MT_SELF_TOP)
        buddy_glk_state.free_chunks--;
    while (j > level) { /* split: the upper half stays free */
        j--;
        buddy_glk_push_free(ch, page + buddy_glk_span(j), j, zero);
    }
    buddy_glk_set(ch, page, MT_BUDDY_USED | level);
    ch->free_pages -= buddy_glk_span(level);
    if (zero) /* zero-filled but for the links written while it was free */
        *(buddy_glk_node *)p = (buddy_glk_node){NULL, NULL};
    a->zeroed = zero;
    return p;
}

/* Allocate; if nothing fits, add the new chunk a->ch (one free block)
 * first. A chunk is added only to be used at once, so adding never leaves
 * a second wholly free chunk. */
static void *buddy_glk_cs_add_chunk(void *arg)
{
    buddy_glk_args *a = arg;
    buddy_glk_chunk *ch = a->ch;
    bool zeroed = a->zeroed;
    void *p = buddy_glk_cs_alloc(a); /* another thread freed or added meanwhile */
    if (p)
        return p;
    a->added = true;
    ch->all_prev = NULL;
    ch->all_next = buddy_glk_state.all;
    if (ch->all_next)
        ch->all_next->all_prev = ch;
    buddy_glk_state.all = ch;
    buddy_glk_state.chunks++;
    buddy_glk_state.free_chunks++;
    buddy_glk_push_free(ch, 0, MT_SELF_TOP, zeroed);
    return buddy_glk_cs_alloc(a);
}

/* Free the used block at a->page of a->ch, merging it with free buddies.
 * Returns a wholly free chunk to give back below, or NULL. */
static void *buddy_glk_cs_free(void *arg)
{
    buddy_glk_args *a = arg;
    buddy_glk_chunk *ch = a->ch;
    size_t page = a->page;
    unsigned st = buddy_glk_get(ch, page), level = st & MT_BUDDY_LEVEL;
    if (!(st & MT_BUDDY_USED))
        return NULL;                                    /* freed meanwhile by another thread: a double free */
    if (level + MT_BUDDY_MIN_SHIFT >= MT_GRANULE_SHIFT) /* a layer above may have claimed it */
        mt_pagemap_set(buddy_glk_at(ch, page), buddy_glk_span(level) << MT_BUDDY_MIN_SHIFT,
                       buddy_glk_entry(ch));
    ch->free_pages += buddy_glk_span(level);
    while (level < MT_SELF_TOP) {
        size_t buddy = page ^ buddy_glk_span(level);
        if ((buddy_glk_get(ch, buddy) & ~MT_BUDDY_ZERO) != (MT_BUDDY_FREE | level))
            break;
        buddy_glk_remove_free(ch, buddy, level, "free");
        buddy_glk_set(ch, page > buddy ? page : buddy, 0);
        page = page < buddy ? page : buddy;
        level++;
    }
    buddy_glk_push_free(ch, page, level, false);
    if (level < MT_SELF_TOP)
        return NULL;
    if (buddy_glk_state.free_chunks++ == 0)
        return NULL; /* the one wholly free chunk we keep */
    buddy_glk_drop_chunk(ch, "free");
    return ch;
}

/* Resize the used block at a->page of a->ch to a->level in place. Returns
 * non-NULL on success. */
static void *buddy_glk_cs_resize(void *arg)
{
    buddy_glk_args *a = arg;
    buddy_glk_chunk *ch = a->ch;
    size_t page = a->page;
    unsigned st = buddy_glk_get(ch, page), level = st & MT_BUDDY_LEVEL, to = a->level;
    if (!(st & MT_BUDDY_USED))
        return NULL;
    if (to < level) { /* shrink: the upper halves become free blocks */
        for (unsigned j = level; j > to; j--)
            buddy_glk_push_free(ch, page + buddy_glk_span(j - 1), j - 1, false);
        ch->free_pages += buddy_glk_span(level) - buddy_glk_span(to);
    } else { /* grow: every buddy up to the new level must be a whole free block */
        if (page & (buddy_glk_span(to) - 1))
            return NULL;
        for (unsigned j = level; j < to; j++)
            if ((buddy_glk_get(ch, page + buddy_glk_span(j)) & ~MT_BUDDY_ZERO) != (MT_BUDDY_FREE | j))
                return NULL;
        for (unsigned j = level; j < to; j++) {
            buddy_glk_remove_free(ch, page + buddy_glk_span(j), j, "resize");
            buddy_glk_set(ch, page + buddy_glk_span(j), 0);
        }
        ch->free_pages -= buddy_glk_span(to) - buddy_glk_span(level);
    }
    buddy_glk_set(ch, page, MT_BUDDY_USED | to);
    return ch;
}

/* purge: take a wholly free chunk out, or NULL. */
static void *buddy_glk_cs_take_free_chunk(void *arg)
{
    (void)arg;
    buddy_glk_node *n = buddy_glk_state.free[MT_SELF_TOP];
    buddy_glk_chunk *ch = n ? buddy_glk_chunk_of(n) : NULL;
    if (ch)
        buddy_glk_drop_chunk(ch, "purge");
    return ch;
}

/* purge, after the wholly free chunks went back: the pages of the free
 * blocks inside chunks still in use go back to the OS too (all but the
 * page holding the block's list links). One live block would otherwise
 * keep a whole written chunk (4 MiB) resident after malloc_trim, also a
 * block the program did not allocate itself (one the C library keeps after
 * the program freed all of its own), in a chunk that scheduling chose.
 * Blocks known zero-filled were never touched and are skipped. */
static void *buddy_glk_cs_discard_free(void *arg)
{
    (void)arg;
    void *any = NULL; /* non-NULL: some pages went back (malloc_trim's 1) */
    for (unsigned level = 0; level < MT_SELF_TOP; level++) {
        size_t bytes = buddy_glk_span(level) << MT_BUDDY_MIN_SHIFT;
        if (bytes < 2 * mt_page_size())
            continue;
        for (buddy_glk_node *n = buddy_glk_state.free[level], *next; n; n = next) {
            buddy_glk_chunk *ch = buddy_glk_chunk_of(n);
            size_t page = (size_t)((char *)n - ch->base) >> MT_BUDDY_MIN_SHIFT;
            if (!(buddy_glk_get(ch, page) & MT_BUDDY_ZERO)) {
                mt_pal_advise_dontneed(n + 1, bytes - sizeof *n);
                any = n;
            }
            next = n->next;
            if (MT_LINK_CHECK && MT_UNLIKELY(!buddy_glk_link_sound(n, next, level, true))) {
                buddy_glk_relink(n, level, "purge"); /* then the rebuilt list from its head */
                next = buddy_glk_state.free[level];  /* (a page advised twice is harmless) */
            }
        }
    }
    return any;
}

/* ---- chunks from and back to the layer below (no lock held) ---- */

MT_INLINE size_t buddy_glk_record_size(void)
{
    return mt_align_up(sizeof(buddy_glk_chunk) + (buddy_glk_inline_map ? buddy_glk_pages : 0), 64);
}

/* Give a chunk, its record and its state map back. */
MT_SLOW void buddy_glk_release(buddy_glk_chunk *ch)
{
    mt_span_release(ch->base, MT_SELF_CHUNK, ch->prev_entry, MT_BELOW(free));
    if (!buddy_glk_inline_map) {
        mt_ctx sub = mt_ctx_for_alloc(0, 1);
        mt_ctx_route(&sub, (void *)ch->state);
        MT_BELOW(free)(&sub);
    }
    mt_record_put(&buddy_glk_state.records, ch);
}

/* A chunk from below with its record and state map (all pages inside
 * blocks: 0), not yet listed; NULL with ctx->err when below fails. */
MT_SLOW buddy_glk_chunk *buddy_glk_new_chunk(mt_ctx *ctx, bool *zeroed, mt_lfunc *next)
{
    buddy_glk_chunk *ch = mt_record_get(&buddy_glk_state.records, buddy_glk_record_size(), next);
    mt_ctx sub = mt_ctx_for_alloc(buddy_glk_pages, MT_GRANULE), map = sub;
    _Atomic(uint8_t) *state = !ch ? NULL : buddy_glk_inline_map ? ch->map : next(&map);
    char *base = NULL;
    if (state) {
        sub = mt_ctx_for_alloc(MT_SELF_CHUNK, MT_GRANULE);
        base = next(&sub);
    }
    if (!base) {
        if (state && !buddy_glk_inline_map) {
            mt_ctx_route(&map, (void *)state);
            MT_BELOW(free)(&map);
        }
        if (ch)
            mt_record_put(&buddy_glk_state.records, ch);
        ctx->err = sub.err ? sub.err : map.err ? map.err : MT_ENOMEM;
        return NULL;
    }
    ch->base = base;
    ch->state = state;
    ch->free_pages = buddy_glk_pages;
    if (buddy_glk_inline_map || map.zeroed != (void *)state) /* a fresh map is zero already */
        for (size_t i = 0; i < buddy_glk_pages; i++)
            buddy_glk_set(ch, i, 0);
    ch->prev_entry = mt_span_claim(base, MT_SELF_CHUNK, MT_SELF_ID, mt_payload_of(ch));
    *zeroed = sub.zeroed == base;
    return ch;
}

/* The level serving `size` bytes aligned to `align` (both at most a chunk). */
MT_INLINE unsigned buddy_glk_level_for(size_t size, size_t align)
{
    unsigned order = mt_log2_ceil(size > align ? size : align);
    return order > MT_BUDDY_MIN_SHIFT ? order - MT_BUDDY_MIN_SHIFT : 0;
}

MT_SLOW void *buddy_glk_alloc_block(mt_ctx *ctx, mt_lfunc *next)
{
    buddy_glk_args a = {buddy_glk_level_for(ctx->size, ctx->align), false, NULL, 0, false};
    void *p = MT_SYNC_FN(MT_SYNC, exec)(&buddy_glk_state.lock, buddy_glk_cs_alloc, &a);
    if (!p) { /* a new chunk */
        if (!(a.ch = buddy_glk_new_chunk(ctx, &a.zeroed, next)))
            return NULL;
        p = MT_SYNC_FN(MT_SYNC, exec)(&buddy_glk_state.lock, buddy_glk_cs_add_chunk, &a);
        if (!a.added)
            buddy_glk_release(a.ch);
    }
    if (a.zeroed)
        ctx->zeroed = p;
    return p;
}

#define MT_IMPLEMENTS_alloc
MT_INLINE void *buddy_glk_alloc(mt_ctx *ctx, mt_lfunc *next)
{
    size_t size = ctx->size, align = ctx->align;
    if ((align < MT_GRANULE &&
         !mt_size_in(size, MT_SIZE_HANDLE_LO(MT_SIZE_HANDLE), MT_SIZE_HANDLE_HI(MT_SIZE_HANDLE))) ||
        size > MT_SELF_CHUNK || align > MT_GRANULE)
        return next(ctx);
    return MT_COLD_CALL(ctx, copy, buddy_glk_alloc_block(&copy, next));
}

/* The first page of the block starting at p, or SIZE_MAX if p is not the
 * start of a used block of chunk ch (inside a block, free, or no block). */
MT_INLINE size_t buddy_glk_block_page(buddy_glk_chunk *ch, const void *p)
{
    uintptr_t off = (uintptr_t)p - (uintptr_t)ch->base;
    if (off >= MT_SELF_CHUNK || (off & (((uintptr_t)1 << MT_BUDDY_MIN_SHIFT) - 1)))
        return SIZE_MAX;
    size_t page = off >> MT_BUDDY_MIN_SHIFT;
    return (buddy_glk_get(ch, page) & MT_BUDDY_USED) ? page : SIZE_MAX;
}

MT_SLOW void buddy_glk_free_block(buddy_glk_chunk *ch, void *p)
{
    buddy_glk_args a = {0, false, ch, buddy_glk_block_page(ch, p), false};
    if (a.page == SIZE_MAX)
        return; /* not a block: ignored */
    buddy_glk_chunk *gone = MT_SYNC_FN(MT_SYNC, exec)(&buddy_glk_state.lock, buddy_glk_cs_free, &a);
    if (gone)
        buddy_glk_release(gone);
}

#define MT_IMPLEMENTS_free
MT_INLINE void *buddy_glk_free(mt_ctx *ctx, mt_lfunc *next)
{
    if (MT_NOT_MINE(ctx, MT_SELF_ID))
        return next(ctx);
    buddy_glk_free_block((buddy_glk_chunk *)mt_payload_ptr(ctx->meta), ctx->ptr);
    return NULL;
}

#define MT_IMPLEMENTS_getmeta
MT_INLINE void *buddy_glk_getmeta(mt_ctx *ctx, mt_lfunc *next)
{
    if (MT_NOT_MINE(ctx, MT_SELF_ID))
        return next(ctx);
    buddy_glk_chunk *ch = (buddy_glk_chunk *)mt_payload_ptr(ctx->meta);
    size_t page = buddy_glk_block_page(ch, ctx->ptr);
    if (page == SIZE_MAX)
        return NULL;
    ctx->usable = (size_t)1 << ((buddy_glk_get(ch, page) & MT_BUDDY_LEVEL) + MT_BUDDY_MIN_SHIFT);
    return ctx->ptr;
}

/* In place, for sizes this layer serves: shrink by freeing upper halves,
 * grow by taking free buddies. NULL: the socket moves the block. */
MT_SLOW void *buddy_glk_resize_block(mt_ctx *ctx)
{
    buddy_glk_args a = {0, false, (buddy_glk_chunk *)mt_payload_ptr(ctx->meta), 0, false};
    size_t size = ctx->size;
    if (!mt_size_in(size, MT_SIZE_HANDLE_LO(MT_SIZE_HANDLE), MT_SIZE_HANDLE_HI(MT_SIZE_HANDLE)) ||
        size > MT_SELF_CHUNK || (a.page = buddy_glk_block_page(a.ch, ctx->ptr)) == SIZE_MAX)
        return NULL;
    a.level = buddy_glk_level_for(size, 1);
    if (buddy_glk_get(a.ch, a.page) == (MT_BUDDY_USED | a.level))
        return ctx->ptr;
    return MT_SYNC_FN(MT_SYNC, exec)(&buddy_glk_state.lock, buddy_glk_cs_resize, &a) ? ctx->ptr : NULL;
}

#define MT_IMPLEMENTS_resize
MT_INLINE void *buddy_glk_resize(mt_ctx *ctx, mt_lfunc *next)
{
    if (MT_NOT_MINE(ctx, MT_SELF_ID))
        return next(ctx);
    return MT_COLD_CALL(ctx, copy, buddy_glk_resize_block(&copy));
}

/* malloc_trim: every wholly free chunk goes back below. */
#define MT_HAS_INVARIANTS /* check: these, then the layers below (core/ops.h) */
MT_SLOW MT_UNUSED const char *buddy_glk_invariants(void);

#define MT_IMPLEMENTS_purge
MT_INLINE void *buddy_glk_purge(mt_ctx *ctx, mt_lfunc *next)
{
    bool any = false;
    buddy_glk_chunk *ch;
    while ((ch = MT_SYNC_FN(MT_SYNC, exec)(&buddy_glk_state.lock, buddy_glk_cs_take_free_chunk, NULL))) {
        buddy_glk_release(ch);
        any = true;
    }
    if (MT_SYNC_FN(MT_SYNC, exec)(&buddy_glk_state.lock, buddy_glk_cs_discard_free, NULL))
        any = true;
    MT_ASSERT_HOLDS(buddy_glk_invariants());
    return (next(ctx) || any) ? (void *)1 : NULL;
}

#define MT_GLK_LOCK MT_SELF(state).lock
#define MT_GLK_RECORDS MT_SELF(state).records
#include "../written/buddy_glk/glk_fork.inl" /* fork: the lock, then the record pool */

/* ---- invariant checker (the check operation) ---- */

#define MT__BUDDY_REQUIRE(cond, what)         \
    do {                                      \
        if (!(cond))                          \
            return MT_STR(MT_NAME) ": " what; \
    } while (0)

/* One chunk, the lock held; adds its free blocks per level to `counted`. */
MT_SLOW const char *buddy_glk_check_chunk(buddy_glk_chunk *ch, size_t *counted)
{
    size_t free_pages = 0;
    MT__BUDDY_REQUIRE(((uintptr_t)ch->base & (MT_GRANULE - 1)) == 0, "chunk not granule-aligned");
    for (size_t page = 0; page < buddy_glk_pages;) {
        unsigned st = buddy_glk_get(ch, page), level = st & MT_BUDDY_LEVEL;
        size_t n = buddy_glk_span(level);
        MT__BUDDY_REQUIRE((st & (MT_BUDDY_USED | MT_BUDDY_FREE)) && level <= MT_SELF_TOP &&
                              !(page & (n - 1)) && !((st & MT_BUDDY_USED) && (st & MT_BUDDY_ZERO)),
                          "blocks do not tile the chunk (state, level or alignment)");
        for (size_t i = 1; i < n; i++)
            MT__BUDDY_REQUIRE(buddy_glk_get(ch, page + i) == 0, "a page inside a block starts a block");
        if (st & MT_BUDDY_FREE) {
            free_pages += n;
            counted[level]++;
            MT__BUDDY_REQUIRE(level >= MT_SELF_TOP ||
                                  (buddy_glk_get(ch, page ^ n) & ~MT_BUDDY_ZERO) != (MT_BUDDY_FREE | level),
                              "a free block with a free buddy (not coalesced)");
        }
        /* the page map names us for every granule, except granules of a
         * used block of at least a granule (a layer above may claim it) */
        uintptr_t at = (uintptr_t)buddy_glk_at(ch, page);
        bool claimable = (st & MT_BUDDY_USED) && level + MT_BUDDY_MIN_SHIFT >= MT_GRANULE_SHIFT;
        for (uintptr_t g = mt_align_up(at, MT_GRANULE); !claimable && g < at + (n << MT_BUDDY_MIN_SHIFT);
             g += MT_GRANULE)
            MT__BUDDY_REQUIRE(mt_pagemap_get((void *)g) == buddy_glk_entry(ch),
                              "page map does not name the chunk");
        page += n;
    }
    MT__BUDDY_REQUIRE(free_pages == ch->free_pages, "chunk's free-page count");
    return NULL;
}

/* Everything, the lock held. */
MT_SLOW const char *buddy_glk_check_locked(void)
{
    size_t chunks = 0, free_chunks = 0;
    size_t counted[buddy_glk_levels] = {0};
    const char *broken;
    buddy_glk_chunk *prev = NULL;
    for (buddy_glk_chunk *ch = buddy_glk_state.all; ch; prev = ch, ch = ch->all_next, chunks++) {
        MT__BUDDY_REQUIRE(chunks < buddy_glk_state.chunks && ch->all_prev == prev,
                          "chunk list links or count");
        if ((broken = buddy_glk_check_chunk(ch, counted)))
            return broken;
        free_chunks += ch->free_pages == buddy_glk_pages;
    }
    MT__BUDDY_REQUIRE(chunks == buddy_glk_state.chunks && free_chunks == buddy_glk_state.free_chunks,
                      "chunk counts");
    MT__BUDDY_REQUIRE(free_chunks <= 1, "more than one wholly free chunk kept");
    for (unsigned level = 0; level < buddy_glk_levels; level++) {
        size_t n = 0;
        buddy_glk_node *p = NULL;
        for (buddy_glk_node *b = buddy_glk_state.free[level]; b; p = b, b = b->next, n++) {
            MT__BUDDY_REQUIRE(n < counted[level], "free list longer than the free blocks of its level");
            /* link_check: a link the program rewrote is reported, not followed */
            MT__BUDDY_REQUIRE(!MT_LINK_CHECK || mt_link_far_ok(b, MT_SELF_ID), "free list links");
            buddy_glk_chunk *ch = buddy_glk_chunk_of(b);
            uintptr_t off = (uintptr_t)b - (uintptr_t)ch->base;
            MT__BUDDY_REQUIRE(b->prev == p, "free list links");
            MT__BUDDY_REQUIRE(off < MT_SELF_CHUNK &&
                                  !(off & ((buddy_glk_span(level) << MT_BUDDY_MIN_SHIFT) - 1)) &&
                                  (buddy_glk_get(ch, off >> MT_BUDDY_MIN_SHIFT) & ~MT_BUDDY_ZERO) ==
                                      (MT_BUDDY_FREE | level),
                              "free list holds a block that is not a free block of its level");
        }
        MT__BUDDY_REQUIRE(n == counted[level], "free block missing from its list");
        MT__BUDDY_REQUIRE(!(buddy_glk_state.nonempty & ((uint32_t)1 << level)) == !n, "nonempty-levels mask");
    }
    return NULL;
}
#undef MT__BUDDY_REQUIRE

/* buddy_glk's invariants: the blocks of every chunk tile it, free blocks
 * are coalesced, the free lists hold exactly the free blocks (each of its
 * level, doubly linked), counts agree, at most one wholly free chunk is
 * kept, and the page map names us where it must. Takes the lock. NULL if
 * all hold, else "NAME: what". */
MT_SLOW MT_UNUSED const char *buddy_glk_invariants(void)
{
    MT_SYNC_FN(MT_SYNC, lock)(&buddy_glk_state.lock);
    const char *broken = buddy_glk_check_locked();
    MT_SYNC_FN(MT_SYNC, unlock)(&buddy_glk_state.lock);
    return broken;
}

#define MT_DESCRIPTOR MT_DESCRIPTOR_buddy_glk
#include "../core/layer_end.h"
/* Forget this instance's slots: the next instance starts from the defaults. */
#undef MT_SIZE_HANDLE
#undef MT_SYNC
#undef MT_SIZECLASS
#undef MT_ERR_HANDLE
#undef MT_LINK_CHECK
#undef MT_LOCK_STAT
#undef MT_SELF_CHUNK
#undef MT_SELF_TOP
#undef MT_BUDDY_CHUNK_SHIFT
#undef MT_BUDDY_MIN_SHIFT
#ifdef MT_NAMES_buddy_glk
#include "../names/buddy_glk.h" /* forget them */
#endif
#endif /* MT_DESCRIBE */

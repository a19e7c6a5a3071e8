/* slab_lk — slabs per size class, a lock per class.
 *
 * Serves: sizes in size_handle up to the policy's last class, aligned to
 *   16, or to a larger power of two (at most the 64 KiB granule) by taking
 *   the smallest class in range whose size is a multiple of it (blocks sit
 *   at multiples of their size from a granule-aligned slab start; class
 *   selection shared with segfit_lk, layers/segfit/classes.h). Everything
 *   else goes to the next layer.
 * Slots (model language → macro, default):
 *   size_handle=[lo, hi] → MT_SIZE_HANDLE (0, 32768)
 *   sizeclass=POLICY     → MT_SIZECLASS (tc); interval also reads
 *                          MT_SIZECLASS_STEP (16)
 *   sync=POLICY          → MT_SYNC (posix_spin): one lock per class, as
 *                          hslab has it (spinlock when freestanding); every
 *                          critical section runs through the policy's exec,
 *                          so combining and delegating policies fit
 *   slab_size=BYTES      → MT_SLAB_SIZE (64 KiB), a multiple of the 64 KiB
 *                          granule. A class whose blocks would leave more
 *                          than 1/8 of a slab unused (with the record) gets
 *                          slabs of slab_size times the smallest power of
 *                          two that wastes at most 1/8 (tc: 24576-byte
 *                          blocks in 128 KiB slabs, 26624 and 32768 in
 *                          256 KiB).
 *   link_check=0|1       → MT_LINK_CHECK (0): 1 checks every free-list link
 *                          before a pop follows it, one alloc's or a batch
 *                          refill's (NULL or a carved block start of the
 *                          same slab; safety/link_check.h): an overflow into
 *                          a free block or a write after free is reported
 *                          (corrupted-metadata) and the slab's list ends
 *                          there; the blocks after it count as in use for
 *                          good, so the slab never carves past its last
 *                          block. Batched frees check each block of the
 *                          chain in the page map and the block test. Cost:
 *                          a compare and the block test per pop, under the
 *                          class lock.
 *   err_handle=POLICY    → MT_ERR_HANDLE (default): what a failed link check
 *                          does after its report (policy/err).
 *   Tuning: MT_SLAB_LK_CHECK (1): free and getmeta accept only block
 *   starts (an interior pointer of a slab is ignored / nobody's); costs a
 *   multiply, a rotate and one compare (is_block), 0 leaves it out.
 *   free_batch tests its first block so; the blocks of the chain after it
 *   are block starts by free_batch's contract (core/ctx.h) and are tested
 *   only with link_check=1 (a rewritten link in a cached block).
 *   MT_SLAB_LK_COLORS (8, a power of two): how many cache-line offsets
 *   the records of slabs take turns at; 1 puts every record at its span's
 *   very end.
 * Needs from below: granule-aligned spans of slab size (any OS layer, or
 *   buddy_glk, which serves any request aligned to a granule), and the
 *   free chain to give them back.
 * Structure: a slab is one span from below holding blocks of one class;
 *   its record, 128 bytes near the span's end (0 to MT_SLAB_LK_COLORS - 1
 *   cache lines below it, by the span's address, so that the records of
 *   many slabs do not share one cache set), keeps a LIFO free list
 *   threaded through its freed blocks, a bump pointer over its never-used
 *   blocks (their pages stay untouched), and its use count. Its first line
 *   holds the geometry, fixed while the slab lives, which every free and
 *   getmeta reads without the lock; its second the counts and lists the
 *   class lock guards, so a thread holding the lock never takes the first
 *   line away from the threads that free into the slab. The page map
 *   names slab_lk for every granule of a slab, with the record as payload,
 *   so free and getmeta find the record in O(1) without reading memory
 *   next to the block. A record inside its slab leaves with it: no
 *   metadata stays behind to pin memory of the layer below (records taken
 *   from a pool pinned one buddy chunk each).
 *   Per class: a list of partial slabs (the head serves allocations), a
 *   list of full slabs, and at most one cached empty slab; a slab that
 *   empties while one is cached goes back to the layer below at once.
 * Time: alloc/free O(1) under the class lock (a pop or push, a count, a list
 *   move when a slab fills, unfills or empties). alloc_batch and
 *   free_batch (core/ctx.h; asked by thread_cache): a refill of n blocks
 *   and the free of a chain of n blocks of one class take the class lock
 *   once, O(n) under it (a refill that needs a new slab: twice). Fresh
 *   blocks come out in ascending addresses, one at a time and in batches.
 *   A new slab costs one
 *   call below, outside the lock; giving one back costs one free below,
 *   outside the lock. purge: O(classes) — the cached empty slab of every
 *   class goes back below.
 * Space: no per-block header; a 128-byte record per slab; per class at most
 *   one empty slab beyond the blocks in use. Internal fragmentation: the
 *   policy's (tc: 23 % up to 16 KiB, 24.9 % above) plus the record and the
 *   unused tail of a slab (at most 1/8 of it).
 * Thread safety: all operations. Lock order: class lock (never held while
 *   calling below), then the layer below. fork_prepare takes the locks of
 *   the classes it can serve ([0, classes_used)) in index order;
 *   parent/child release/reset them after the layers below.
 * Fails: only when the layer below fails (ctx->err from it).
 * Check (the contract's check operation; NAME_invariants() for this layer
 *   alone): lists, counts, free lists, bump pointers and the page map agree;
 *   "NAME: what" names the first that does not.
 * Example:
 *   mmap_heap(faa_heap_growth=1, threadlocal_heap_size=2MB)
 *     :: buddy_glk(sync=spinlock, size_handle=[32768, SIZE_MAX])
 *     :: slab_lk(sync=spinlock, slab_size=64KB, sizeclass=tc, size_handle=[0, 32768])
 *     :: malloc_socket
 */
/* The layer's descriptor (core/describe.h): the data tools/describe_layers.py
 * reads and core/layer_end.h checks the slots against. */
#define MT_DESCRIPTOR_slab_lk(LAYER, SLOT)                                                         \
    LAYER(slab_lk, trunk, 0, (), ())                                                               \
    MT_OPS(SLOT, alloc, free, alloc_batch, free_batch, getmeta, resize, fork_prepare, fork_parent, \
           fork_child, purge)                                                                      \
    MT_SLOT_SIZE_HANDLE(SLOT, 0, 32768)                                                            \
    MT_SLOT_SIZECLASS(SLOT, tc)                                                                    \
    MT_SLOT_SYNC(SLOT, posix_spin)                                                                 \
    SLOT(slab_size, MT_SLAB_SIZE, BYTES, 64 << 10, (64 << 10, 256 << 20), ())                      \
    MT_SLOTS_LINK_CHECK(SLOT)
#ifndef MT_DESCRIBE /* describe mode reads the descriptor alone */
#include "../core/layer.h"
#include "../policy/sync/sync.h"
#include "../policy/sizeclass/sizeclass.h"

#ifdef MT_NAME /* another instance name: the names below become its own */
#include "../names/slab_lk.h"
#else
#define MT_NAME slab_lk
#endif
#ifndef MT_SIZE_HANDLE
#define MT_SIZE_HANDLE 0, 32768
#endif
#ifndef MT_SYNC
#if defined(MT_FREESTANDING) /* no C library: no POSIX spin lock */
#define MT_SYNC spinlock
#else
#define MT_SYNC posix_spin
#endif
#endif
#ifndef MT_SIZECLASS
#define MT_SIZECLASS tc
#endif
#ifndef MT_SLAB_SIZE
#define MT_SLAB_SIZE ((size_t)64 << 10)
#endif
#ifndef MT_SLAB_LK_CHECK
#define MT_SLAB_LK_CHECK 1
#endif

_Static_assert((MT_SLAB_SIZE) % MT_GRANULE == 0 && (MT_SLAB_SIZE) > 0,
               "slab_lk: slab_size must be a multiple of the 64 KiB granule");

enum { slab_lk_id = MT_NEW_LAYER_ID };
#define MT_SELF_ID MT_SELF(id)
MT_DECLARE_BELOW(free);  /* emptied slabs go back through the free chain */
MT_DECLARE_BELOW(alloc); /* a batch's new slab comes through the alloc chain */
#include "../written/slab_lk/policy_sizeclass_slot.inl"
#define MT_SEGFIT_CAP SIZE_MAX
#include "../written/slab_lk/segfit_classes.inl" /* class_for, class_meta, resize: as segfit_lk's classes */
#include "../written/slab_lk/safety_link_check.inl" /* link_check, err_handle */

#ifndef MORTISE_LAYERS_SLAB_LK_TYPES
#define MORTISE_LAYERS_SLAB_LK_TYPES
/* Where a slab is: on its class's partial or full list, the class's cached
 * empty slab, or out (being created or given back). */
enum { MT_SLAB_OUT, MT_SLAB_PARTIAL, MT_SLAB_FULL, MT_SLAB_EMPTY };
#endif

/* A slab's record, near the slab's end (slab_lk_reserve; blocks start at the
 * slab's first byte, so their alignment is the slab's): the geometry on its
 * first line, the lock-guarded state on its second (Structure above). */
typedef struct slab_lk_slab {
    char *base;           /* the span; blocks at base + i * csize */
    uint64_t inverse;     /* is_block: inverse of csize's odd part modulo 2^64 */
    uint64_t capacity;    /* blocks in the slab */
    uint32_t csize, used; /* block size; capacity * csize */
    uint32_t cls;
    uint8_t shift;        /* is_block: csize = odd part << shift */
    bool zeroed;          /* never-used blocks are zero-filled (fresh from below) */
    size_t len;           /* span length */
    uintptr_t prev_entry; /* page-map entry of the layer below, restored on release */
    /* The state, under the class lock. */
    _Alignas(MT_CACHELINE) uint32_t inuse;
    uint8_t where;             /* MT_SLAB_OUT, _PARTIAL, _FULL, _EMPTY */
    void *free;                /* LIFO of freed blocks, next pointer in the first word */
    char *bump;                /* the never-used blocks are [bump, base + used) */
    struct slab_lk_slab *next; /* partial or full list of its class */
    struct slab_lk_slab *prev;
} slab_lk_slab;
_Static_assert(sizeof(slab_lk_slab) == 2 * MT_CACHELINE, "slab_lk: the record is two lines");

typedef struct MT_CACHE_ALIGNED {
    MT_SYNC_T(MT_SYNC) lock; /* zero-filled = unlocked (sync.h) */
    slab_lk_slab *partial;   /* the head serves allocations */
    slab_lk_slab *full;
    slab_lk_slab *empty; /* at most one cached empty slab */
    size_t npartial, nfull;
} slab_lk_class;

static struct {
    slab_lk_class cls[MT_SZCLS_CLASSES(MT_SIZECLASS)];
} slab_lk_state;

enum { slab_lk_record = (sizeof(slab_lk_slab) + 63) & ~(size_t)63 };

/* Bytes at a slab's end that are not blocks: its record, placed one of
 * MT_SLAB_LK_COLORS cache lines further down by the slab's address. Slabs
 * come aligned to their length, so records at one fixed offset from the
 * end all map to one set of every cache indexed by address bits below
 * the slab size (L1, L2): a free to random slabs then misses on the record
 * once more slabs are live than the cache has ways. Colours spread the
 * records over MT_SLAB_LK_COLORS sets. */
#ifndef MT_SLAB_LK_COLORS
#define MT_SLAB_LK_COLORS 8
#endif
_Static_assert(((MT_SLAB_LK_COLORS) & ((MT_SLAB_LK_COLORS)-1)) == 0, "slab_lk: colours a power of two");
MT_INLINE size_t slab_lk_reserve(const char *base, size_t len)
{
    size_t color = ((uintptr_t)base / len) & ((MT_SLAB_LK_COLORS)-1);
    return slab_lk_record + color * MT_CACHELINE;
}

/* Is p the start of a block of slab s? (A pointer the page map routed to
 * us lies in one of the slab's granules.) One test for both "a multiple of
 * csize" and "below the last block" (the Granlund-Montgomery divisibility
 * test): with csize = odd << shift, off * inverse(odd) rotated right by
 * shift is off / csize when csize divides off, and above 2^64 / csize
 * (so above the capacity) when it does not — also for p below base, where
 * off wraps. It is on thread_cache's free hit (the owner's getmeta): a
 * multiply, a rotate and one compare instead of two compares and two
 * branches. */
MT_INLINE bool slab_lk_is_block(const slab_lk_slab *s, const void *p)
{
    uint64_t q = (uint64_t)((uintptr_t)p - (uintptr_t)s->base) * s->inverse;
    unsigned r = s->shift;
    return !MT_SLAB_LK_CHECK || ((q >> r) | (q << (-r & 63))) < s->capacity;
}

/* A slab's geometry: blocks of csize from base over the first len bytes
 * of the span but the record, and what is_block needs to recognise them. */
MT_INLINE void slab_lk_layout(slab_lk_slab *s, char *base, size_t csize, size_t len)
{
    uint64_t odd = csize, inverse;
    uint8_t shift = 0;
    while (!(odd & 1)) {
        odd >>= 1;
        shift++;
    }
    inverse = odd; /* right to 3 bits (odd * odd = 1 mod 8); each step doubles them */
    for (int i = 0; i < 5; i++)
        inverse *= 2 - odd * inverse;
    s->base = base;
    s->csize = (uint32_t)csize;
    s->capacity = (len - slab_lk_reserve(base, len)) / csize;
    s->used = (uint32_t)(s->capacity * csize);
    s->inverse = inverse;
    s->shift = shift;
    s->len = len;
}

/* ---- list moves, class lock held ---- */

MT_INLINE void slab_lk_push(slab_lk_slab **head, slab_lk_slab *s, uint8_t where)
{
    s->prev = NULL;
    s->next = *head;
    if (*head)
        (*head)->prev = s;
    *head = s;
    s->where = where;
}

MT_INLINE void slab_lk_unlink(slab_lk_slab **head, slab_lk_slab *s)
{
    if (s->prev)
        s->prev->next = s->next;
    else
        *head = s->next;
    if (s->next)
        s->next->prev = s->prev;
    s->next = s->prev = NULL;
    s->where = MT_SLAB_OUT;
}

MT_SLOW void slab_lk_to_full(slab_lk_class *c, slab_lk_slab *s)
{
    slab_lk_unlink(&c->partial, s);
    c->npartial--;
    slab_lk_push(&c->full, s, MT_SLAB_FULL);
    c->nfull++;
}

/* A slab whose last block came back: cache it if the class has no empty
 * slab, else hand it to the caller to give back below. Out of line but not
 * cold: GCC's static profile takes a loop that may call a cold function
 * (cs_free_batch's, through cs_free) as never run and compiles the whole
 * batch free for size, with its page-map lookups as calls. */
static __attribute__((noinline)) slab_lk_slab *slab_lk_emptied(slab_lk_class *c, slab_lk_slab *s)
{
    if (s->where == MT_SLAB_FULL) { /* capacity 1: full straight to empty */
        slab_lk_unlink(&c->full, s);
        c->nfull--;
    } else {
        slab_lk_unlink(&c->partial, s);
        c->npartial--;
    }
    if (c->empty)
        return s;
    c->empty = s;
    s->where = MT_SLAB_EMPTY;
    return NULL;
}

/* link_check: the link in free block p of slab s, checked before it is
 * followed: NULL or a block start among the blocks of s handed out before
 * (below bump). A bad one is reported and the free list ends at p (the
 * blocks after it leak: the slab counts them in use for good, so it never
 * hands out more than its never-used blocks after the cut: a slab that
 * still counted them free would carve past its end, into its record).
 * `pending`: blocks popped off the list and not yet counted, p among them. */
MT_SLOW void *slab_lk_link_cut(slab_lk_slab *s, void *p, size_t pending)
{
    *(void **)p = NULL;
    s->inuse = (uint32_t)(s->capacity - (size_t)(s->base + s->used - s->bump) / s->csize - pending);
    slab_lk_link_broken(p, "alloc");
    return NULL;
}

MT_INLINE void *slab_lk_next_of(slab_lk_slab *s, void *p, size_t pending)
{
    void *link = *(void **)p;
    if (MT_LINK_CHECK && link &&
        MT_UNLIKELY((uintptr_t)link - (uintptr_t)s->base >= (uintptr_t)(s->bump - s->base) ||
                    !slab_lk_is_block(s, link)))
        return slab_lk_link_cut(s, p, pending);
    return link;
}

/* ---- critical sections (run through MT_SYNC's exec) ---- */

MT_SLOW const char *slab_lk_check_slab(const slab_lk_slab *s, size_t i, uint8_t where);

/* A block from the head partial slab; NULL when the class has none. */
MT_INLINE void *slab_lk_cs_alloc(void *arg)
{
    slab_lk_class *c = arg;
    slab_lk_slab *s = c->partial;
    if (MT_UNLIKELY(!s))
        return NULL;
    MT_ASSERT(s->where == MT_SLAB_PARTIAL && s->inuse < s->capacity);
    void *p = s->free;
    if (MT_LIKELY(p)) {
        MT_ASSERT(slab_lk_is_block(s, p) && (char *)p < s->bump); /* a free-list link inside its slab */
        s->free = slab_lk_next_of(s, p, 1);
    } else {
        MT_ASSERT(s->bump + s->csize <= s->base + s->used);
        p = s->bump;
        s->bump += s->csize;
    }
    if (MT_UNLIKELY(++s->inuse == s->capacity))
        slab_lk_to_full(c, s);
    return p;
}

typedef struct {
    slab_lk_class *c;
    size_t want; /* extra blocks asked for */
    void *chain; /* in: the list to push onto; out: its new head */
    size_t got;  /* extra blocks pushed */
} slab_lk_batch_args;

/* Up to want - got blocks from the class's partial slabs onto a->chain, in
 * the order cs_alloc hands them out (the first at the head: a cache popping
 * the list goes up through fresh slab memory, as a prefetcher expects).
 * Per slab at once: the blocks it can give (capacity - inuse, which its free
 * list and its never-used blocks hold between them), its free list first,
 * then a run carved from the bump pointer in one loop (a store per block),
 * the count and the list move once; a program allocating a large
 * population of one size refills through this loop. */
MT_INLINE void slab_lk_cs_take(slab_lk_batch_args *a)
{
    void *head = NULL, **link = &head;
    size_t got = a->got;
    slab_lk_slab *s;
    while (got < a->want && (s = a->c->partial) != NULL) {
        MT_ASSERT(s->where == MT_SLAB_PARTIAL && s->inuse < s->capacity);
        size_t n = a->want - got, left = s->capacity - s->inuse, k = 0;
        if (n > left)
            n = left;
        for (void *p; k < n && (p = s->free) != NULL; k++) {
            MT_ASSERT(slab_lk_is_block(s, p) && (char *)p < s->bump); /* a free-list link inside its slab */
            s->free = slab_lk_next_of(s, p, k + 1);
            *link = p;
            link = (void **)p;
        }
        if (MT_LINK_CHECK) { /* a cut list: only the never-used blocks are left */
            size_t fresh = (size_t)(s->base + s->used - s->bump) / s->csize;
            n = n - k > fresh ? k + fresh : n;
        }
        if (k < n) { /* the rest are never-used blocks: the free list is empty */
            size_t csize = s->csize;
            char *first = s->bump, *end = first + (n - k) * csize;
            MT_ASSERT(end <= s->base + s->used);
            /* each block links to the next one up: a store per block */
            for (char *q = first + csize; q < end; q += csize)
                *(void **)(q - csize) = q;
            *link = first;
            link = (void **)(end - csize);
            s->bump = end;
        }
        s->inuse += (uint32_t)n;
        got += n;
        if (s->inuse == s->capacity)
            slab_lk_to_full(a->c, s);
    }
    *link = a->chain;
    a->chain = head;
    a->got = got;
}

/* One block and the batch after it, under one lock acquisition. */
MT_NOINLINE_HOT void *slab_lk_cs_alloc_batch(void *arg)
{
    slab_lk_batch_args *a = arg;
    void *first = slab_lk_cs_alloc(a->c);
    if (first)
        slab_lk_cs_take(a);
    return first;
}

/* The batch alone (after a new slab served the first block). */
MT_NOINLINE_HOT void *slab_lk_cs_take_locked(void *arg)
{
    slab_lk_cs_take(arg);
    return NULL;
}

/* cs_alloc after putting the cached empty slab (if any) on the partial list. */
static void *slab_lk_cs_refill(void *arg)
{
    slab_lk_class *c = arg;
    if (!c->partial && c->empty) {
        slab_lk_push(&c->partial, c->empty, MT_SLAB_PARTIAL);
        c->npartial++;
        c->empty = NULL;
    }
    return slab_lk_cs_alloc(c);
}

typedef struct {
    slab_lk_class *c;
    slab_lk_slab *s;
    void *p;
} slab_lk_args;

/* A new slab becomes the head of the partial list and serves the request. */
static void *slab_lk_cs_install(void *arg)
{
    slab_lk_args *a = arg;
    slab_lk_push(&a->c->partial, a->s, MT_SLAB_PARTIAL);
    a->c->npartial++;
    void *p = slab_lk_cs_alloc(a->c);
    MT_ASSERT_HOLDS(slab_lk_check_slab(a->s, a->s->cls, a->s->where)); /* the new slab, as installed */
    return p;
}

/* Returns the slab to give back below, or NULL. */
MT_INLINE void *slab_lk_cs_free(void *arg)
{
    slab_lk_args *a = arg;
    slab_lk_slab *s = a->s;
    slab_lk_class *c = a->c;
    MT_ASSERT(s->inuse > 0 && s->where != MT_SLAB_EMPTY); /* a count that cannot go negative */
    *(void **)a->p = s->free;
    s->free = a->p;
    if (MT_UNLIKELY(s->inuse-- == s->capacity) && s->inuse) {
        slab_lk_unlink(&c->full, s);
        c->nfull--;
        slab_lk_push(&c->partial, s, MT_SLAB_PARTIAL);
        c->npartial++;
    }
    if (MT_UNLIKELY(!s->inuse))
        return slab_lk_emptied(c, s);
    return NULL;
}

typedef struct {
    slab_lk_class *c;
    slab_lk_slab *s;
    void *p;
    void *chain;        /* in: blocks to free after p; out: those not freed */
    size_t got;         /* out: blocks of chain freed */
    slab_lk_slab *gone; /* out: slabs to give back below, through ->next */
    size_t most;        /* in: the most blocks of chain to free */
} slab_lk_batch_free_args;

/* p and then up to `most` blocks of the chain, under one acquisition of
 * p's class lock, as long as they lie in this instance's slabs of that
 * class (the first that does not stops the batch: the caller frees it and
 * the rest the usual way). */
MT_INLINE void *slab_lk_cs_free_batch(void *arg)
{
    /* In locals for the loop: the stores of the free-list links (void *)
     * could alias the argument block's pointers, which the compiler would
     * then reload for every block. */
    slab_lk_batch_free_args *a = arg;
    slab_lk_slab *s = a->s, *gone_list = a->gone;
    void *p = a->p, *chain = a->chain;
    size_t got = a->got, most = a->most;
    const uint32_t cls = s->cls;
    for (;;) {
        slab_lk_args one = {a->c, s, p};
        slab_lk_slab *gone = slab_lk_cs_free(&one);
        if (gone) {
            gone->next = gone_list;
            gone_list = gone;
        }
        void *q = chain;
        if (!q || got == most)
            break;
        uintptr_t e = mt_pagemap_get(q);
        slab_lk_slab *qs = (slab_lk_slab *)mt_payload_ptr(mt_entry_payload(e));
        /* No block test for the chain: the caller passes block starts only
         * (core/ctx.h), and a cache's flush runs this once per block it
         * ever cached. A link rewritten in a cached block is the one way
         * to break that, which is link_check's to catch: with it, the
         * test stays. */
        if (mt_entry_owner(e) != (uintptr_t)MT_SELF_ID || qs->cls != cls ||
            (MT_LINK_CHECK && !slab_lk_is_block(qs, q)))
            break;
        chain = *(void **)q;
        got++;
        s = qs;
        p = q;
    }
    a->chain = chain;
    a->got = got;
    a->gone = gone_list;
    return NULL;
}

/* purge: take the cached empty slab. */
static void *slab_lk_cs_take_empty(void *arg)
{
    slab_lk_class *c = arg;
    slab_lk_slab *s = c->empty;
    c->empty = NULL;
    if (s)
        s->where = MT_SLAB_OUT;
    return s;
}

/* ---- slabs from and back to the layer below (no lock held) ---- */

/* Span length for a class: slab_size times the smallest power of two that
 * leaves at most 1/8 of the span to the record and the unused tail (powers
 * of two: a buddy_glk below would round any other length up). */
MT_INLINE size_t slab_lk_slab_len(size_t csize)
{
    size_t len = MT_SLAB_SIZE;
    const size_t most = slab_lk_record + ((MT_SLAB_LK_COLORS)-1) * MT_CACHELINE;
    while ((len - most) % csize + most > len / 8)
        len *= 2;
    return len;
}

MT_SLOW slab_lk_slab *slab_lk_new_slab(mt_ctx *ctx, size_t index, mt_lfunc *next)
{
    size_t csize = slab_lk_class_size(index), len = slab_lk_slab_len(csize);
    mt_ctx sub = mt_ctx_for_alloc(len, MT_GRANULE);
    char *base = next(&sub);
    if (!base) {
        ctx->err = sub.err ? sub.err : MT_ENOMEM;
        return NULL;
    }
    slab_lk_slab *s = (slab_lk_slab *)(base + len - slab_lk_reserve(base, len));
    slab_lk_layout(s, base, csize, len);
    s->cls = (uint32_t)index;
    s->inuse = 0;
    s->where = MT_SLAB_OUT;
    s->zeroed = sub.zeroed == base;
    s->free = NULL;
    s->bump = base;
    s->next = s->prev = NULL;
    s->prev_entry = mt_span_claim(base, len, MT_SELF_ID, mt_payload_of(s));
    return s;
}

MT_SLOW void slab_lk_release(slab_lk_slab *s)
{
    mt_span_release(s->base, s->len, s->prev_entry, MT_BELOW(free));
}

/* Alloc's slow path: the cached empty slab, else a new slab from below. */
MT_SLOW void *slab_lk_alloc_slow(mt_ctx *ctx, size_t index, mt_lfunc *next)
{
    slab_lk_class *c = &slab_lk_state.cls[index];
    void *p = MT_SYNC_FN(MT_SYNC, exec)(&c->lock, slab_lk_cs_refill, c);
    if (p)
        return p;
    slab_lk_args a = {c, slab_lk_new_slab(ctx, index, next), NULL};
    if (!a.s)
        return NULL;
    p = MT_SYNC_FN(MT_SYNC, exec)(&c->lock, slab_lk_cs_install, &a);
    if (a.s->zeroed)
        ctx->zeroed = p; /* the new slab's first block: never touched */
    return p;
}

#define MT_IMPLEMENTS_alloc
MT_INLINE void *slab_lk_alloc(mt_ctx *ctx, mt_lfunc *next)
{
    size_t index = slab_lk_class_for(ctx->size, ctx->align);
    if (index == SIZE_MAX)
        return next(ctx);
    slab_lk_class *c = &slab_lk_state.cls[index];
    void *p = MT_SYNC_FN(MT_SYNC, exec)(&c->lock, slab_lk_cs_alloc, c);
    if (MT_UNLIKELY(!p))
        return MT_COLD_CALL(ctx, copy, slab_lk_alloc_slow(&copy, index, next));
    return p;
}

#define MT_IMPLEMENTS_free
MT_INLINE void *slab_lk_free(mt_ctx *ctx, mt_lfunc *next)
{
    if (MT_NOT_MINE(ctx, MT_SELF_ID))
        return next(ctx);
    slab_lk_slab *s = (slab_lk_slab *)mt_payload_ptr(ctx->meta);
    if (MT_UNLIKELY(!slab_lk_is_block(s, ctx->ptr)))
        return NULL; /* inside a slab but not a block: ignored */
    slab_lk_args a = {&slab_lk_state.cls[s->cls], s, ctx->ptr};
    slab_lk_slab *gone = MT_SYNC_FN(MT_SYNC, exec)(&a.c->lock, slab_lk_cs_free, &a);
    if (MT_UNLIKELY(gone))
        slab_lk_release(gone);
    return NULL;
}

/* A cache's refill (core/ctx.h): one block and up to ctx->count more of
 * its class under one lock acquisition, from the partial slabs; a class
 * with none serves the block the usual way (the cached empty slab or a new
 * one) and the batch from that slab, under a second acquisition. */
#define MT_IMPLEMENTS_alloc_batch
MT_NOINLINE_HOT void *slab_lk_alloc_batch(mt_ctx *ctx, mt_lfunc *next)
{
    size_t index = slab_lk_class_for(ctx->size, ctx->align);
    if (index == SIZE_MAX)
        return next(ctx);
    slab_lk_batch_args a = {&slab_lk_state.cls[index], ctx->count, ctx->chain, 0};
    void *p = MT_SYNC_FN(MT_SYNC, exec)(&a.c->lock, slab_lk_cs_alloc_batch, &a);
    if (!p) {
        p = slab_lk_alloc_slow(ctx, index, MT_BELOW(alloc));
        if (p && a.want)
            MT_SYNC_FN(MT_SYNC, exec)(&a.c->lock, slab_lk_cs_take_locked, &a);
    }
    ctx->chain = a.chain;
    ctx->count = a.got;
    return p;
}

/* A cache's flush (core/ctx.h): ctx->ptr and the run of the chain that
 * follows it in the same class (at most ctx->count blocks of it), under
 * one lock acquisition; slabs that empty go back below after the lock is
 * dropped. */
#define MT_IMPLEMENTS_free_batch
MT_NOINLINE_HOT void *slab_lk_free_batch(mt_ctx *ctx, mt_lfunc *next)
{
    if (MT_NOT_MINE(ctx, MT_SELF_ID))
        return next(ctx);
    slab_lk_slab *s = (slab_lk_slab *)mt_payload_ptr(ctx->meta);
    size_t most = ctx->count;
    ctx->count = 0;
    if (MT_UNLIKELY(!slab_lk_is_block(s, ctx->ptr)))
        return NULL; /* inside a slab but not a block: ignored, as by free */
    slab_lk_batch_free_args a = {&slab_lk_state.cls[s->cls], s, ctx->ptr, ctx->chain, 0, NULL, most};
    MT_SYNC_FN(MT_SYNC, exec)(&a.c->lock, slab_lk_cs_free_batch, &a);
    ctx->chain = a.chain;
    ctx->count = a.got;
    while (a.gone) {
        slab_lk_slab *gone = a.gone;
        a.gone = gone->next;
        gone->next = NULL;
        slab_lk_release(gone);
    }
    return NULL;
}

#define MT_IMPLEMENTS_getmeta
MT_INLINE void *slab_lk_getmeta(mt_ctx *ctx, mt_lfunc *next)
{
    if (MT_NOT_MINE(ctx, MT_SELF_ID))
        return next(ctx);
    const slab_lk_slab *s = (const slab_lk_slab *)mt_payload_ptr(ctx->meta);
    if (MT_UNLIKELY(!slab_lk_is_block(s, ctx->ptr)))
        return NULL;
    return slab_lk_class_meta(ctx, s->cls);
}

/* malloc_trim: every class's cached empty slab goes back below. */
#define MT_IMPLEMENTS_purge
MT_INLINE void *slab_lk_purge(mt_ctx *ctx, mt_lfunc *next)
{
    bool any = false;
    for (size_t i = 0; i < slab_lk_classes_used(); i++) {
        slab_lk_slab *s = MT_SYNC_FN(MT_SYNC, exec)(&slab_lk_state.cls[i].lock, slab_lk_cs_take_empty,
                                                    &slab_lk_state.cls[i]);
        if (s) {
            slab_lk_release(s);
            any = true;
        }
    }
    return (next(ctx) || any) ? (void *)1 : NULL;
}

MT_SLOW const char *slab_lk_check_class_locked(size_t i);
#include "../written/slab_lk/segfit_class_locks.inl" /* lock_classes, unlock_classes, reset_classes, check_classes */

#define MT_IMPLEMENTS_fork_prepare
MT_INLINE void *slab_lk_fork_prepare(mt_ctx *ctx, mt_lfunc *next)
{
    slab_lk_lock_classes();
    return next(ctx);
}
#define MT_IMPLEMENTS_fork_parent
MT_INLINE void *slab_lk_fork_parent(mt_ctx *ctx, mt_lfunc *next)
{
    next(ctx);
    slab_lk_unlock_classes();
    return NULL;
}
#define MT_IMPLEMENTS_fork_child
MT_INLINE void *slab_lk_fork_child(mt_ctx *ctx, mt_lfunc *next)
{
    next(ctx);
    slab_lk_reset_classes();
    return NULL;
}

/* ---- invariant checker (the check operation) ---- */

#define MT__SLAB_REQUIRE(cond, what)          \
    do {                                      \
        if (!(cond))                          \
            return MT_STR(MT_NAME) ": " what; \
    } while (0)

/* The first broken invariant of one slab of class i found on a list marked
 * `where`, or NULL. Class lock held. */
MT_SLOW const char *slab_lk_check_slab(const slab_lk_slab *s, size_t i, uint8_t where)
{
    size_t freed = 0;
    char *end = s->base + s->used;
    MT__SLAB_REQUIRE(s->where == where && s->cls == i, "slab on the list of another state or class");
    MT__SLAB_REQUIRE((char *)s == s->base + s->len - slab_lk_reserve(s->base, s->len) &&
                         s->csize == slab_lk_class_size(i) &&
                         s->capacity == (s->len - slab_lk_reserve(s->base, s->len)) / s->csize &&
                         s->used == s->capacity * s->csize,
                     "slab geometry");
    MT__SLAB_REQUIRE(s->bump >= s->base && s->bump <= end && (size_t)(s->bump - s->base) % s->csize == 0,
                     "bump pointer outside its slab or off a block boundary");
    for (void *b = s->free; b; b = *(void **)b) {
        MT__SLAB_REQUIRE(++freed <= s->capacity, "free list longer than the slab (a cycle)");
        MT__SLAB_REQUIRE(slab_lk_is_block(s, b) && (char *)b < s->bump,
                         "free-list block outside its slab's carved blocks");
    }
    MT__SLAB_REQUIRE(freed + (size_t)(end - s->bump) / s->csize + s->inuse == s->capacity,
                     "free + uncarved + in-use blocks != capacity");
    for (size_t g = 0; g < s->len; g += MT_GRANULE)
        MT__SLAB_REQUIRE(mt_pagemap_get(s->base + g) == mt_entry(MT_SELF_ID, mt_payload_of(s)),
                         "page map does not name the slab");
    if (where == MT_SLAB_PARTIAL)
        MT__SLAB_REQUIRE(s->inuse != 0 && s->inuse < s->capacity, "partial slab empty or full");
    else if (where == MT_SLAB_FULL)
        MT__SLAB_REQUIRE(s->inuse == s->capacity && s->free == NULL, "full slab with free blocks");
    else
        MT__SLAB_REQUIRE(s->inuse == 0, "cached empty slab has blocks in use");
    return NULL;
}

/* One list of class i; *count gets its length. */
MT_SLOW const char *slab_lk_check_list(const slab_lk_slab *head, size_t i, uint8_t where, size_t *count)
{
    const char *broken = NULL;
    const slab_lk_slab *prev = NULL;
    size_t n = 0;
    for (const slab_lk_slab *s = head; s && !broken; prev = s, s = s->next, n++) {
        if (s->prev != prev || n > SIZE_MAX / MT_GRANULE /* more slabs than granules: a cycle */)
            broken = MT_STR(MT_NAME) ": slab list links";
        else
            broken = slab_lk_check_slab(s, i, where);
    }
    *count = n;
    return broken;
}

/* Class i's lists and counts, its lock held. */
MT_SLOW const char *slab_lk_check_class_locked(size_t i)
{
    /* (the callers stay below the class count; said here, gcc 12 stops
     * warning about an index it cannot bound through their loops) */
    if (i >= sizeof slab_lk_state.cls / sizeof slab_lk_state.cls[0])
        return "a class index past the table";
    slab_lk_class *c = &slab_lk_state.cls[i];
    const char *broken;
    size_t np, nf;
    if ((broken = slab_lk_check_list(c->partial, i, MT_SLAB_PARTIAL, &np)) ||
        (broken = slab_lk_check_list(c->full, i, MT_SLAB_FULL, &nf)))
        return broken;
    MT__SLAB_REQUIRE(np == c->npartial && nf == c->nfull, "list lengths != counts");
    if (c->empty) {
        MT__SLAB_REQUIRE(c->empty->next == NULL, "more than one cached empty slab");
        if ((broken = slab_lk_check_slab(c->empty, i, MT_SLAB_EMPTY)))
            return broken;
    }
    MT__SLAB_REQUIRE(i < slab_lk_classes_used() || (!np && !nf && !c->empty),
                     "slabs in a class the layer does not serve");
    return NULL;
}
#undef MT__SLAB_REQUIRE

/* slab_lk's invariants: per class, the partial and full lists are doubly
 * linked and counted, every slab on them (and the cached empty one) has
 * its state, geometry, a free list inside its carved blocks, free +
 * uncarved + in-use == capacity, and the page map names it. Takes each
 * class lock in turn. NULL if all hold, else "NAME: what". */
#define MT_HAS_INVARIANTS /* check: these, then the layers below (core/ops.h) */
MT_SLOW MT_UNUSED const char *slab_lk_invariants(void)
{
    return slab_lk_check_classes(MT_SZCLS_CLASSES(MT_SIZECLASS)); /* the unused ones too: empty */
}

#define MT_DESCRIPTOR MT_DESCRIPTOR_slab_lk
#include "../core/layer_end.h"
/* Forget this instance's slots: the next instance starts from the defaults. */
#undef MT_SIZE_HANDLE
#undef MT_SYNC
#undef MT_SIZECLASS
#undef MT_SIZECLASS_STEP
#undef MT_SLAB_SIZE
#undef MT_ERR_HANDLE
#undef MT_LINK_CHECK
#undef MT_LOCK_STAT
#undef MT_SLAB_LK_CHECK
#undef MT_SLAB_LK_COLORS
#ifdef MT_NAMES_slab_lk
#include "../names/slab_lk.h" /* forget them */
#endif
#endif /* MT_DESCRIBE */

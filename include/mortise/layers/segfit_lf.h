/* segfit_lf — lock-free segregated fit.
 *
 * Serves: sizes in size_handle up to max_block (larger requests go to the
 *   next layer), alignments up to 64 KiB (by picking a class whose size is a
 *   multiple of the alignment: blocks sit at multiples of their class size
 *   from a granule-aligned span). Everything else goes to the next layer.
 * Slots (model language → macro, default):
 *   size_handle=[lo, hi] → MT_SIZE_HANDLE (0, SIZE_MAX); wfslab uses
 *                          [65536, SIZE_MAX]
 *   sizeclass=POLICY     → MT_SIZECLASS (log2b; interval reads
 *                          MT_SIZECLASS_STEP, 16)
 *   max_block=BYTES      → MT_MAX_BLOCK (1 MiB): the largest class kept here
 *   link_check=0|1       → MT_LINK_CHECK (0): 1 checks every link a pop
 *                          or purge follows (a block this layer owns, or
 *                          NULL; safety/link_check.h): a write after free
 *                          into a free block never sends a pop outside the
 *                          layer's spans. A link that fails while the head is
 *                          still the same is reported (corrupted-metadata)
 *                          and the class's stack is dropped. Cost: a page-map
 *                          lookup per pop of a block whose link leaves its
 *                          granule (most, as blocks are 64 KiB and more).
 *   err_handle=POLICY    → MT_ERR_HANDLE (default): what a failed link check
 *                          does after its report (policy/err).
 * Needs from below: granule-aligned spans (any OS layer, or a trunk layer).
 * Structure: per class a Treiber stack of free blocks (the next pointer in
 *   the block's first word) whose head is a pointer and a 64-bit tag,
 *   swapped together by a double-width CAS (cmpxchg16b: x86-64 allocator
 *   code is compiled with -mcx16, cmake/Mortise.cmake); every push and pop
 *   adds one to the tag, so a pop that read head {P, t} and P's next pointer
 *   can only succeed if nothing was pushed or popped since: no ABA (the tag
 *   would have to come round, 2^64 operations on one class during one pop). A 64-bit packed
 *   pointer+tag was rejected: 16 spare bits wrap within 65536 operations,
 *   which a preempted thread can sleep through. Beside the stack, a bump
 *   pair {next block, end} per class carves the newest span, also by
 *   double-width CAS. Spans are 8 blocks and a header slot, rounded up to 64 KiB;
 *   the span header (the layer below's page-map entry, block count, purge
 *   scratch) sits in the span's first slot, and every granule of a span maps
 *   to {span base, class} in the page map, so free and getmeta read no block
 *   memory. A new span comes from the layer below outside any lock of ours;
 *   when two threads race to install one, the loser hands its span back.
 * Time: alloc and free lock-free: O(1) plus one retry per concurrent change
 *   of the same class head (a failed CAS means another thread succeeded). A
 *   new span costs one call to the next layer. purge: O(free blocks + threads
 *   registered) and waits for pops in flight (below).
 * Memory safety of pops: a pop reads the next pointer of a block it does not
 *   own yet, which another thread may just have taken, freed or — after a
 *   purge — given back below. Span memory is therefore given back only by
 *   purge, and only after every pop that could still hold one of its blocks
 *   has finished: each thread announces its pops in a private sequence word
 *   (odd while inside a pop: one seq_cst store and one release store per pop,
 *   on the thread's own cache line); purge (1) detaches each class's whole
 *   stack by CAS, so no new pop can reach those blocks, (2) keeps the blocks
 *   of spans that still have blocks out and pushes them back, (3) waits until
 *   every thread seen inside a pop has moved on, and only then (4) releases
 *   the spans whose blocks were all free (tests/layers/segfit_lf/segfit_lf_test
 *   parks a pop inside its window to show it). The seq_cst store before a pop's
 *   head load and purge's seq_cst detach before its scan order the two: a pop
 *   either is seen by the scan or loads the head after the detach. Threads
 *   beyond the 128 private words share one counter; if it does not drop to
 *   zero within a bounded wait, purge pushes the blocks back and releases
 *   nothing. Each class keeps the span it is carving.
 * Space: no per-block header; internal fragmentation of the size-class
 *   policy; per span one class-size slot (at least 64 bytes) for its header.
 * Thread safety: all operations; alloc and free take no lock. purge takes a
 *   purge-only spinlock (also held across fork); lock order: it, then the
 *   layer below's. fork_child forgets the other threads' pop announcements.
 * Fails: alloc returns NULL with the layer below's ctx->err (ENOMEM) iff the
 *   class is empty and the layer below has no span.
 * Check (the contract's check operation; NAME_walk(&stats) also counts),
 *   when no other thread uses the layer: every free block is ours, in its
 *   class, at a block position inside its span, on no list twice (cycle
 *   check); "NAME: what" names the first broken invariant.
 * Example: mmap_heap(faa_heap_growth=1, threadlocal_heap_size=256MB, huge_page=1)
 *            ::segfit_lf(sizeclass=log2b, size_handle=[65536, SIZE_MAX])
 *            ::slab_wf(sizeclass=prime, slab_size=64KB, size_handle=[0, 65536])
 *            ::malloc_socket                                        (wfslab)
 *          mmap_heap::segfit_lf(sizeclass=log2b)::malloc_socket     (instance segfit_lf)
 * Traits: MT_TRAIT_FRESH_HEADS (core/ctx.h): under tail_chksum's
 *   freed_mark it clears the second word of every block it carves anew.
 */
/* The layer's descriptor (core/describe.h): the data tools/describe_layers.py
 * reads and core/layer_end.h checks the slots against. */
#define MT_DESCRIPTOR_segfit_lf(LAYER, SLOT)                                                              \
    LAYER(segfit_lf, trunk, MT_TRAIT_FRESH_HEADS, (), ())                                                 \
    MT_OPS(SLOT, alloc, free, getmeta, resize, thread_exit, fork_prepare, fork_parent, fork_child, purge, \
           check)                                                                                         \
    MT_SLOT_SIZE_HANDLE(SLOT, 0, SIZE_MAX)                                                                \
    MT_SLOT_SIZECLASS(SLOT, log2b)                                                                        \
    SLOT(max_block, MT_MAX_BLOCK, BYTES, 1 << 20, (1, SIZE_MAX), ())                                      \
    MT_SLOTS_LINK_CHECK(SLOT)
#ifndef MT_DESCRIBE /* describe mode reads the descriptor alone */
#include "../core/layer.h"
#include "../policy/sync/sync.h"
#include "../policy/sizeclass/sizeclass.h"

#ifdef MT_NAME /* another instance name: the names below become its own */
#include "../names/segfit_lf.h"
#else
#define MT_NAME segfit_lf
#endif
#ifndef MT_SIZE_HANDLE
#define MT_SIZE_HANDLE 0, SIZE_MAX
#endif
#ifndef MT_MAX_BLOCK
#define MT_MAX_BLOCK ((size_t)1 << 20)
#endif

#ifndef MORTISE_LAYERS_SEGFIT_LF_TYPES /* once, for every instance */
#define MORTISE_LAYERS_SEGFIT_LF_TYPES

#if defined(__x86_64__) && !defined(__GCC_HAVE_SYNC_COMPARE_AND_SWAP_16)
#error "segfit_lf needs cmpxchg16b: compile with -mcx16 (cmake/Mortise.cmake adds it on x86-64)"
#endif

/* Tests only: what a pop does at stage 0, after loading the top, and at
 * stage 1, after reading its next pointer — the windows of the two races a
 * pop runs (a purge releasing the top's span; ABA), which tests widen — and
 * the tag increment (0 shows what the tag prevents). tests/layers/segfit_lf/. */
#ifndef MT_SEGFIT_LF_POP_HOOK
#define MT_SEGFIT_LF_POP_HOOK(stage) ((void)0)
#endif
#ifndef MT_SEGFIT_LF_TAG_STEP
#define MT_SEGFIT_LF_TAG_STEP 1
#endif

/* Threads with a private pop-announcement word; more share one counter. */
#define MT_LF_READERS 128
/* Yields purge waits for the shared counter before giving up. */
#define MT_LF_PURGE_PATIENCE 1000

/* The pointer-and-tag pair as one integer: 16 bytes on 64-bit targets
 * (cmpxchg16b, casp), 8 on 32-bit ones (cmpxchg8b, ldrexd/strexd), where
 * the page-map payload is 28 bits wide, so the class index gets 12 of them. */
#if UINTPTR_MAX > 0xffffffffu
__extension__ typedef unsigned __int128 mt_lf_u128;
#define MT_LF_CLASS_BITS 16
#else
typedef uint64_t mt_lf_u128;
#define MT_LF_CLASS_BITS 12
#endif
#define MT_LF_CLASS_MASK (((uintptr_t)1 << MT_LF_CLASS_BITS) - 1)
_Static_assert(sizeof(mt_lf_u128) == 2 * sizeof(void *), "segfit_lf: the CAS word is a pointer and a tag");

/* A pointer and a tag, compared and swapped as one double-width word. */
typedef union {
    mt_lf_u128 word;
    struct {
        void *ptr;
        uintptr_t tag;
    } s;
} __attribute__((aligned(2 * sizeof(void *)))) mt_lf_tagged;

/* The two halves, read one after the other (ptr with seq_cst: the pop's
 * announcement must precede it, see the contract). A torn pair never equals
 * the current word, so the CAS that follows fails and the caller retries.
 * The tag is read first and with acquire: a pop's later loads (the pointer,
 * then the top block's next pointer) cannot be satisfied before it, so a CAS
 * that finds the same tag proves the top did not change since that next
 * pointer was read. With a relaxed tag load a weakly ordered CPU (aarch64)
 * may read the tag after the next pointer: a stale next with a fresh tag,
 * ABA again. On x86-64 both are plain loads. */
MT_INLINE mt_lf_tagged mt_lf_load(mt_lf_tagged *p)
{
    mt_lf_tagged v;
    v.s.tag = __atomic_load_n(&p->s.tag, __ATOMIC_ACQUIRE);
    v.s.ptr = __atomic_load_n(&p->s.ptr, __ATOMIC_SEQ_CST);
    return v;
}

/* Double-width CAS (a full barrier); on failure *expected is the current word. */
MT_INLINE bool mt_lf_cas(mt_lf_tagged *p, mt_lf_tagged *expected, void *ptr, uintptr_t tag)
{
    mt_lf_tagged want;
    want.s.ptr = ptr;
    want.s.tag = tag;
    mt_lf_u128 seen = __sync_val_compare_and_swap(&p->word, expected->word, want.word);
    if (seen == expected->word)
        return true;
    expected->word = seen;
    return false;
}

/* The next pointer in a free block's first word; a pop may read it while
 * another thread writes the block it has just taken (the CAS then fails). */
MT_INLINE void *mt_lf_next(void *block) { return __atomic_load_n((void **)block, __ATOMIC_RELAXED); }
MT_INLINE void mt_lf_set_next(void *block, void *next)
{
    __atomic_store_n((void **)block, next, __ATOMIC_RELAXED);
}

/* The span header, in the span's first block slot(s). */
typedef struct mt_lf_span {
    uintptr_t prev_entry;       /* page-map entry of the layer below, restored on release */
    size_t len;                 /* bytes */
    size_t first;               /* offset of block 0 */
    size_t blocks;              /* blocks the span holds */
    size_t free_count;          /* purge and checker scratch */
    struct mt_lf_span *release; /* purge: spans to hand back */
    bool zeroed;                /* came zero-filled from below */
} mt_lf_span;
#define MT_LF_SPAN_HDR ((size_t)64)

typedef struct MT_CACHE_ALIGNED mt_lf_reader {
    _Atomic(uint64_t) seq; /* private: odd while inside a pop; shared: pops inside */
    _Atomic(int) taken;
} mt_lf_reader;

/* What the checker counts. */
typedef struct mt_lf_stats {
    size_t free_blocks, free_bytes, spans_with_free;
} mt_lf_stats;

/* Page-map payload of a span granule: the span's base granule and the class. */
MT_INLINE uintptr_t mt_lf_payload(const void *base, size_t cls)
{
    return ((uintptr_t)base >> MT_GRANULE_SHIFT) << MT_LF_CLASS_BITS | cls;
}
MT_INLINE mt_lf_span *mt_lf_span_of(uintptr_t payload)
{
    return (mt_lf_span *)((payload >> MT_LF_CLASS_BITS) << MT_GRANULE_SHIFT);
}
#endif /* MORTISE_LAYERS_SEGFIT_LF_TYPES */

enum { segfit_lf_id = MT_NEW_LAYER_ID };
MT_DECLARE_BELOW(free); /* spans go back through the free chain */
#define MT_SELF_ID MT_SELF(id)
#include "../written/segfit_lf/policy_sizeclass_slot.inl" /* defaults, getmeta's class hint key */
#define MT_SEGFIT_CAP MT_MAX_BLOCK
#include "../written/segfit_lf/segfit_classes.inl"    /* class_for, class_meta, resize, ... */
#include "../written/segfit_lf/safety_link_check.inl" /* link_check, err_handle */

_Static_assert(MT_SZCLS_CLASSES(MT_SIZECLASS) <= MT_LF_CLASS_MASK + 1,
               "segfit_lf: more classes than the page-map payload holds (65536; 4096 on 32-bit targets)");

typedef struct MT_CACHE_ALIGNED {
    mt_lf_tagged free; /* Treiber stack: top block, tag */
    mt_lf_tagged bump; /* the newest span: next block to carve, end of its blocks */
} segfit_lf_class;

static struct {
    segfit_lf_class cls[MT_SZCLS_CLASSES(MT_SIZECLASS)];
    mt_lf_reader readers[MT_LF_READERS];
    mt_lf_reader shared; /* threads without a private word: pops inside */
    mt_sync_spinlock purge_lock;
} segfit_lf_state;

static MT_TLS mt_lf_reader *segfit_lf_me;

/* ---- pop announcements ---- */

/* First pop of a thread: a private announcement word, or the shared one. */
MT_SLOW mt_lf_reader *segfit_lf_join(void)
{
    mt_lf_reader *r = &segfit_lf_state.shared;
    for (size_t i = 0; i < MT_LF_READERS; i++) {
        int free_word = 0;
        if (!mt_load_relaxed(&segfit_lf_state.readers[i].taken) &&
            mt_cas(&segfit_lf_state.readers[i].taken, &free_word, 1)) {
            r = &segfit_lf_state.readers[i];
            break;
        }
    }
    segfit_lf_me = r;
    if (r != &segfit_lf_state.shared)
        mt_thread_attach(); /* so that thread_exit gives the word back */
    return r;
}

MT_INLINE uint64_t segfit_lf_enter(mt_lf_reader *r)
{
    if (MT_UNLIKELY(r == &segfit_lf_state.shared))
        return atomic_fetch_add_explicit(&r->seq, 1, memory_order_seq_cst);
    uint64_t s = mt_load_relaxed(&r->seq);
    atomic_store_explicit(&r->seq, s + 1, memory_order_seq_cst);
    return s;
}
MT_INLINE void segfit_lf_leave(mt_lf_reader *r, uint64_t s)
{
    if (MT_UNLIKELY(r == &segfit_lf_state.shared))
        atomic_fetch_sub_explicit(&r->seq, 1, memory_order_release);
    else
        mt_store_release(&r->seq, s + 2);
}

/* ---- the stacks ---- */

/* link_check: the head's link failed its check. If the head is still the
 * same (tag and all), the link is what the program wrote, not a race with
 * another pop: the stack is dropped (its blocks leak) and reported; true.
 * Otherwise *top is the new head to try. */
MT_SLOW bool segfit_lf_link_cut(segfit_lf_class *c, mt_lf_tagged *top)
{
    void *bad = top->s.ptr;
    if (!mt_lf_cas(&c->free, top, NULL, top->s.tag + MT_SEGFIT_LF_TAG_STEP))
        return false;
    segfit_lf_link_broken(bad, "alloc");
    return true;
}

MT_INLINE void *segfit_lf_pop(segfit_lf_class *c)
{
    mt_lf_reader *r = segfit_lf_me;
    if (MT_UNLIKELY(!r))
        r = segfit_lf_join();
    uint64_t s = segfit_lf_enter(r);
    mt_lf_tagged top = mt_lf_load(&c->free);
    while (top.s.ptr) {
        MT_SEGFIT_LF_POP_HOOK(0);
        void *next = mt_lf_next(top.s.ptr);
        MT_SEGFIT_LF_POP_HOOK(1);
        if (MT_LINK_CHECK && MT_UNLIKELY(!mt_link_ok(top.s.ptr, next, MT_SELF_ID))) {
            if (segfit_lf_link_cut(c, &top))
                top.s.ptr = NULL;
            continue;
        }
        if (mt_lf_cas(&c->free, &top, next, top.s.tag + MT_SEGFIT_LF_TAG_STEP))
            break;
    }
    segfit_lf_leave(r, s);
    return top.s.ptr;
}

/* Push the chain first .. last (linked through their first words). */
MT_INLINE void segfit_lf_push_chain(segfit_lf_class *c, void *first, void *last)
{
    mt_lf_tagged top = mt_lf_load(&c->free);
    do
        mt_lf_set_next(last, top.s.ptr);
    while (!mt_lf_cas(&c->free, &top, first, top.s.tag + MT_SEGFIT_LF_TAG_STEP));
}

/* ---- spans ---- */

MT_INLINE mt_lf_span *segfit_lf_span_of(const void *block)
{
    return mt_lf_span_of(mt_entry_payload(mt_pagemap_get(block)));
}

/* Carve the next block of the class's newest span; NULL when it is used up. */
MT_INLINE void *segfit_lf_carve(segfit_lf_class *c, size_t csize)
{
    mt_lf_tagged b = mt_lf_load(&c->bump);
    while (b.s.ptr && (uintptr_t)b.s.ptr + csize <= b.s.tag)
        if (mt_lf_cas(&c->bump, &b, (char *)b.s.ptr + csize, b.s.tag))
            return b.s.ptr;
    return NULL;
}

/* The class is empty: carve, or take a new span from below and install it
 * as the class's newest (a thread that loses that race gives its span back
 * and carves from the winner's). */
MT_SLOW void *segfit_lf_refill(mt_ctx *ctx, size_t index, mt_lfunc *next)
{
    segfit_lf_class *c = &segfit_lf_state.cls[index];
    size_t csize = segfit_lf_class_size(index);
    for (;;) {
        void *p = segfit_lf_carve(c, csize);
        if (p) {
            mt_fresh_head(p);
            if (segfit_lf_span_of(p)->zeroed)
                ctx->zeroed = p;
            return p;
        }
        size_t first = csize * ((MT_LF_SPAN_HDR + csize - 1) / csize); /* header slots */
        size_t len = mt_align_up(first + 8 * csize, MT_GRANULE);
        mt_ctx sub = mt_ctx_for_alloc(len, MT_GRANULE);
        char *base = next(&sub);
        if (!base) {
            ctx->err = sub.err ? sub.err : MT_ENOMEM;
            return NULL;
        }
        mt_lf_span *s = (mt_lf_span *)base;
        s->len = len;
        s->first = first;
        s->blocks = (len - first) / csize;
        s->free_count = 0;
        s->release = NULL;
        s->zeroed = sub.zeroed == base;
        s->prev_entry = mt_span_claim(base, len, MT_SELF_ID, mt_lf_payload(base, index));
        mt_lf_tagged b = mt_lf_load(&c->bump);
        while (!b.s.ptr || (uintptr_t)b.s.ptr + csize > b.s.tag) { /* still used up */
            if (mt_lf_cas(&c->bump, &b, base + first + csize, (uintptr_t)base + first + s->blocks * csize)) {
                mt_fresh_head(base + first);
                if (s->zeroed)
                    ctx->zeroed = base + first;
                return base + first;
            }
        }
        mt_span_release(base, len, s->prev_entry, MT_BELOW(free)); /* never seen by anyone */
    }
}

/* ---- the layer operations ---- */

#define MT_IMPLEMENTS_alloc
MT_INLINE void *segfit_lf_alloc(mt_ctx *ctx, mt_lfunc *next)
{
    size_t index = segfit_lf_class_for(ctx->size, ctx->align);
    if (index == SIZE_MAX)
        return next(ctx);
    void *p = segfit_lf_pop(&segfit_lf_state.cls[index]);
    if (MT_UNLIKELY(!p))
        return MT_COLD_CALL(ctx, copy, segfit_lf_refill(&copy, index, next));
    /* a popped link names a block of ours, of this class */
    MT_ASSERT(mt_entry_owner(mt_pagemap_get(p)) == MT_SELF_ID &&
              (mt_entry_payload(mt_pagemap_get(p)) & MT_LF_CLASS_MASK) == index);
    return p;
}

/* A free of a layer that serves granule-sized blocks and up only (wfslab's
 * segfit_lf under slab_wf): out of line. Its 16-byte CAS needs %rbx, and
 * inlined into the socket's free it would make every free save and restore
 * it, small blocks of the layers above included; against a block of 64 KiB
 * and more the call costs nothing (docs/zero_overhead.md). */
MT_SLOW MT_UNUSED void segfit_lf_free_large(uintptr_t meta, void *p)
{
    segfit_lf_push_chain(&segfit_lf_state.cls[meta & MT_LF_CLASS_MASK], p, p);
}

#define MT_IMPLEMENTS_free
MT_INLINE void *segfit_lf_free(mt_ctx *ctx, mt_lfunc *next)
{
    if (MT_NOT_MINE(ctx, MT_SELF_ID))
        return next(ctx);
    if (MT_SIZE_HANDLE_LO(MT_SIZE_HANDLE) >= MT_GRANULE)
        segfit_lf_free_large(ctx->meta, ctx->ptr);
    else
        segfit_lf_push_chain(&segfit_lf_state.cls[ctx->meta & MT_LF_CLASS_MASK], ctx->ptr, ctx->ptr);
    return NULL;
}

#define MT_IMPLEMENTS_getmeta
MT_INLINE void *segfit_lf_getmeta(mt_ctx *ctx, mt_lfunc *next)
{
    if (MT_NOT_MINE(ctx, MT_SELF_ID))
        return next(ctx);
    return segfit_lf_class_meta(ctx, ctx->meta & MT_LF_CLASS_MASK);
}

#define MT_IMPLEMENTS_thread_exit
MT_INLINE void *segfit_lf_thread_exit(mt_ctx *ctx, mt_lfunc *next)
{
    mt_lf_reader *r = segfit_lf_me;
    segfit_lf_me = NULL;
    if (r && r != &segfit_lf_state.shared)
        mt_store_release(&r->taken, 0);
    return next(ctx);
}

/* ---- purge ---- */

/* Purge lock held. Take the class's whole stack; keep (push back) the blocks
 * of spans with blocks still out, and put the spans whose blocks are all
 * free on *release. */
MT_SLOW void segfit_lf_purge_class(segfit_lf_class *c, mt_lf_span **release)
{
    mt_lf_tagged top = mt_lf_load(&c->free);
    while (top.s.ptr && !mt_lf_cas(&c->free, &top, NULL, top.s.tag + 1))
        ;
    void *list = top.s.ptr, *keep = NULL, *keep_last = NULL;
    for (void *b = list; b; b = mt_lf_next(b)) {
        segfit_lf_span_of(b)->free_count++;
        if (MT_LINK_CHECK && MT_UNLIKELY(!mt_link_ok(b, mt_lf_next(b), MT_SELF_ID))) {
            segfit_lf_link_broken(b, "purge");
            mt_lf_set_next(b, NULL);
        }
    }
    for (void *b = list, *after; b; b = after) {
        after = mt_lf_next(b);
        mt_lf_span *s = segfit_lf_span_of(b);
        if (s->free_count == s->blocks) { /* every block free: carved to the end */
            s->free_count = SIZE_MAX;
            s->release = *release;
            *release = s;
        } else if (s->free_count != SIZE_MAX) {
            s->free_count = 0;
            mt_lf_set_next(b, keep);
            keep = b;
            keep_last = keep_last ? keep_last : b;
        }
    }
    if (keep)
        segfit_lf_push_chain(c, keep, keep_last);
}

/* Wait until no pop that started before now is still inside. False if the
 * threads sharing the common counter never all left within the patience. */
MT_SLOW bool segfit_lf_quiesce(void)
{
    for (size_t i = 0; i < MT_LF_READERS; i++) {
        mt_lf_reader *r = &segfit_lf_state.readers[i];
        uint64_t s = atomic_load_explicit(&r->seq, memory_order_seq_cst);
        while ((s & 1) && mt_load_acquire(&r->seq) == s)
            mt_yield();
    }
    for (int tries = 0; atomic_load_explicit(&segfit_lf_state.shared.seq, memory_order_seq_cst); tries++) {
        if (tries == MT_LF_PURGE_PATIENCE)
            return false;
        mt_yield();
    }
    return true;
}

/* Give up a release: every block of span s goes back on its class's stack. */
MT_SLOW void segfit_lf_restore_span(mt_lf_span *s, size_t cls)
{
    size_t csize = segfit_lf_class_size(cls);
    char *first = (char *)s + s->first, *last = first + (s->blocks - 1) * csize;
    for (char *b = first; b < last; b += csize)
        mt_lf_set_next(b, b + csize);
    s->free_count = 0;
    segfit_lf_push_chain(&segfit_lf_state.cls[cls], first, last);
}

#define MT_IMPLEMENTS_purge
MT_INLINE void *segfit_lf_purge(mt_ctx *ctx, mt_lfunc *next)
{
    mt_lf_span *release = NULL;
    mt_sync_spinlock_lock(&segfit_lf_state.purge_lock);
    for (size_t i = 0; i < segfit_lf_classes_used(); i++)
        segfit_lf_purge_class(&segfit_lf_state.cls[i], &release);
    bool any = release != NULL;
    if (any && !segfit_lf_quiesce()) {
        for (mt_lf_span *s = release; s; s = s->release)
            segfit_lf_restore_span(s, mt_entry_payload(mt_pagemap_get(s)) & MT_LF_CLASS_MASK);
        release = NULL;
        any = false;
    }
    while (release) {
        mt_lf_span *s = release;
        release = s->release;
        mt_span_release(s, s->len, s->prev_entry, MT_BELOW(free));
    }
    mt_sync_spinlock_unlock(&segfit_lf_state.purge_lock);
    return (next(ctx) || any) ? (void *)1 : NULL;
}

/* ---- fork: alloc and free hold no lock; only purge's is taken ---- */

#define MT_IMPLEMENTS_fork_prepare
MT_INLINE void *segfit_lf_fork_prepare(mt_ctx *ctx, mt_lfunc *next)
{
    mt_sync_spinlock_lock(&segfit_lf_state.purge_lock);
    return next(ctx);
}
#define MT_IMPLEMENTS_fork_parent
MT_INLINE void *segfit_lf_fork_parent(mt_ctx *ctx, mt_lfunc *next)
{
    next(ctx);
    mt_sync_spinlock_unlock(&segfit_lf_state.purge_lock);
    return NULL;
}
/* Only the forking thread survives, and it is not inside a pop: the other
 * threads' announcement words are free again. */
#define MT_IMPLEMENTS_fork_child
MT_INLINE void *segfit_lf_fork_child(mt_ctx *ctx, mt_lfunc *next)
{
    next(ctx);
    for (size_t i = 0; i < MT_LF_READERS; i++) {
        mt_lf_reader *r = &segfit_lf_state.readers[i];
        if (r != segfit_lf_me) {
            mt_store_relaxed(&r->seq, 0);
            mt_store_relaxed(&r->taken, 0);
        }
    }
    mt_store_relaxed(&segfit_lf_state.shared.seq, 0);
    mt_sync_spinlock_init(&segfit_lf_state.purge_lock);
    return NULL;
}

/* ---- the invariant checker (the check operation) ---- */

/* Call it when no other thread uses the layer: every free block is ours,
 * of its class, at a block position of its span, and on its list once (a
 * block listed twice makes a cycle, which overflows its span's count); the
 * class's carving pair lies inside a span of the class. NULL if all hold,
 * else "NAME: the first broken one". Fills *stats if not NULL (tests). */
MT_SLOW MT_UNUSED const char *segfit_lf_walk(mt_lf_stats *stats)
{
    mt_lf_stats st = {0, 0, 0};
    const char *broken = NULL;
    mt_sync_spinlock_lock(&segfit_lf_state.purge_lock);
    for (size_t i = 0; i < segfit_lf_classes_used() && !broken; i++) {
        segfit_lf_class *c = &segfit_lf_state.cls[i];
        size_t csize = segfit_lf_class_size(i), walked = 0;
        for (void *b = c->free.s.ptr; b && !broken; b = mt_lf_next(b)) {
            uintptr_t e = mt_pagemap_get(b);
            mt_lf_span *s = mt_lf_span_of(mt_entry_payload(e));
            size_t off = (size_t)((char *)b - (char *)s);
            if (mt_entry_owner(e) != MT_SELF_ID || (mt_entry_payload(e) & MT_LF_CLASS_MASK) != i) {
                broken = MT_STR(MT_NAME) ": "
                                         "free block not ours or in another class's list";
                break;
            }
            walked++;
            if (off < s->first || (off - s->first) % csize || (off - s->first) / csize >= s->blocks)
                broken = MT_STR(MT_NAME) ": "
                                         "free block not at a block position of its span";
            else if (++s->free_count > s->blocks)
                broken =
                    MT_STR(MT_NAME) ": "
                                    "a block listed twice (a cycle) or more free blocks than the span holds";
            st.spans_with_free += s->free_count == 1;
            st.free_blocks++;
            st.free_bytes += csize;
        }
        void *b = c->free.s.ptr; /* reset the scratch of exactly the blocks counted */
        for (size_t k = 0; k < walked; k++, b = mt_lf_next(b))
            segfit_lf_span_of(b)->free_count = 0;
        char *cur = c->bump.s.ptr; /* a used-up span may be gone: look only at one in use */
        if (!broken && cur && (uintptr_t)cur + csize <= c->bump.s.tag) {
            uintptr_t e = mt_pagemap_get(cur - csize);
            mt_lf_span *s = mt_lf_span_of(mt_entry_payload(e));
            /* the last carved block names its span unless a layer above
             * claimed it (slab_wf's slabs are segfit_lf blocks): then the
             * page map cannot tell which span it is */
            if (mt_entry_owner(e) == MT_SELF_ID &&
                ((mt_entry_payload(e) & MT_LF_CLASS_MASK) != i ||
                 c->bump.s.tag != (uintptr_t)s + s->first + s->blocks * csize ||
                 (uintptr_t)cur > c->bump.s.tag))
                broken = MT_STR(MT_NAME) ": "
                                         "carving pair outside its span";
        }
    }
    mt_sync_spinlock_unlock(&segfit_lf_state.purge_lock);
    if (stats)
        *stats = st;
    return broken;
}

#define MT_IMPLEMENTS_check
MT_INLINE void *segfit_lf_check(mt_ctx *ctx, mt_lfunc *next)
{
    return mt_check_then(segfit_lf_walk(NULL), ctx, next);
}

/* Its traits (descriptor, core/ctx.h): mt_fresh_head on every block carved anew. */
#define MT_DESCRIPTOR MT_DESCRIPTOR_segfit_lf
#include "../core/layer_end.h"
/* Forget this instance's slots: the next instance starts from the defaults. */
#undef MT_SIZE_HANDLE
#undef MT_SIZECLASS
#undef MT_SIZECLASS_STEP
#undef MT_ERR_HANDLE
#undef MT_LINK_CHECK
#undef MT_MAX_BLOCK
#ifdef MT_NAMES_segfit_lf
#include "../names/segfit_lf.h" /* forget them */
#endif
#endif /* MT_DESCRIBE */

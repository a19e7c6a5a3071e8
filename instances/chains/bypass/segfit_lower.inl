/* instances/chains/bypass/segfit_lower.inl — layers/segfit_lk.h and the fragments it shares with
 * other layers, written out for bypass.c's instance segfit_lower by tools/layer_names.py;
 * do not edit: edit layers/segfit_lk.h (or its fragments), then run --write. */
/* segfit_lk — segregated fit with a lock per size class.
 *
 * Serves: sizes in size_handle up to MT_SEGFIT_MAX_BLOCK (1 MiB), alignments
 *   up to 64 KiB (by picking a class whose size is a multiple of the alignment;
 *   blocks sit at multiples of their class size from a granule-aligned span
 *   start). Everything else goes to the next layer.
 * Slots (model language → macro, default):
 *   size_handle=[lo, hi] → MT_SIZE_HANDLE (0, 262144)
 *   sync=POLICY          → MT_SYNC (posix_mutex): one lock per size class
 *   sizeclass=POLICY     → MT_SIZECLASS (log2b); interval also reads
 *                          MT_SIZECLASS_STEP (16)
 *   link_check=0|1       → MT_LINK_CHECK (0): 1 checks every free-list link
 *                          before a pop or purge follows it (NULL, in the
 *                          block's granule, or in a granule of this layer;
 *                          safety/link_check.h): an overflow into a free
 *                          block or a write after free is reported
 *                          (corrupted-metadata) and the class's list ends
 *                          there. Cost: an xor, a shift and a branch per pop
 *                          (a page-map lookup when the link leaves the
 *                          granule).
 *   err_handle=POLICY    → MT_ERR_HANDLE (default): what a failed link check
 *                          does after its report (policy/err).
 * Needs from below: granule-aligned spans (any OS layer, or a trunk layer).
 * Structure: per class a LIFO free list threaded through the free blocks and a
 *   bump region in the newest span; spans are max(64 KiB, 8 blocks) long and
 *   described by out-of-line records that the page map points to, so blocks
 *   carry no header and free() finds the class in O(1).
 * Time: alloc/free O(1): one lock, a pop or push. A new span costs one call
 *   to the next layer. purge: O(free blocks): spans whose blocks are all free
 *   are handed back to the layer below (which returns the pages to the OS).
 * Space: no per-block header; internal fragmentation of the size-class
 *   policy; a span record (48 bytes) per span.
 * Thread safety: all operations; lock order: class lock, then the layer below;
 *   purge and fork take every class lock in index order.
 * Fails: only when the layer below fails (ctx->err from it).
 * Example: mmap_heap::segfit_lk(sync=spinlock, size_handle=[0, 65536])::malloc_socket
 * Traits: MT_TRAIT_FRESH_HEADS (core/ctx.h): under tail_chksum's
 *   freed_mark it clears the second word of every block it carves anew.
 */
/* The layer's descriptor (core/describe.h): the data tools/describe_layers.py
 * reads and core/layer_end.h checks the slots against. */
#define MT_DESCRIPTOR_segfit_lk(LAYER, SLOT)                                                 \
    LAYER(segfit_lk, trunk, MT_TRAIT_FRESH_HEADS, (), ())                                    \
    MT_OPS(SLOT, alloc, free, getmeta, resize, fork_prepare, fork_parent, fork_child, purge) \
    MT_SLOT_SIZE_HANDLE(SLOT, 0, 262144)                                                     \
    MT_SLOT_SYNC(SLOT, posix_mutex)                                                          \
    MT_SLOT_SIZECLASS(SLOT, log2b)                                                           \
    MT_SLOTS_LINK_CHECK(SLOT)
#ifndef MT_DESCRIBE /* describe mode reads the descriptor alone */
#include <mortise/core/layer.h>
#include <mortise/policy/sync/sync.h>
#include <mortise/policy/sizeclass/sizeclass.h>

#ifdef MT_NAME /* another instance name: the names below become its own */
#include <mortise/names/segfit_lk.h>
#else
#define MT_NAME segfit_lk
#endif
#ifndef MT_SIZE_HANDLE
#define MT_SIZE_HANDLE 0, 262144
#endif
#ifndef MT_SYNC
#define MT_SYNC posix_mutex
#endif
#ifndef MT_SEGFIT_MAX_BLOCK
#define MT_SEGFIT_MAX_BLOCK ((size_t)1 << 20)
#endif

enum { segfit_lower_id = MT_NEW_LAYER_ID };
MT_DECLARE_BELOW(free); /* purge hands spans back through the free chain */
#define MT_SELF_ID MT_SELF(id)
/* mortise/written/segfit_lk/policy_sizeclass_slot.inl — policy/sizeclass/slot.h written out for segfit_lk by
 * tools/layer_names.py; do not edit: edit policy/sizeclass/slot.h, then run --write. */
/* mortise/policy/sizeclass/slot.h — the sizeclass slot of the layer instance
 * being defined. No include guard: a layer header with a sizeclass slot
 * includes it once per instance, after MT_NAME is set:
 *   - the slot's defaults: sizeclass=log2b, interval's step 16;
 *   - segfit_lower_szcls_key, the policy's key for getmeta's class hint
 *     (core/ctx.h), 0 when the policy defines none. */
#ifndef MT_SIZECLASS
#define MT_SIZECLASS log2b
#endif
#ifndef MT_SIZECLASS_STEP
#define MT_SIZECLASS_STEP 16
#endif
#if MT_SZCLS_KEY(MT_SIZECLASS)
enum { segfit_lower_szcls_key = MT_SZCLS_KEY(MT_SIZECLASS) };
#else
enum { segfit_lower_szcls_key = 0 };
#endif /* defaults, getmeta's class hint key */
#define MT_SEGFIT_CAP MT_SEGFIT_MAX_BLOCK
/* mortise/written/segfit_lk/segfit_classes.inl — layers/segfit/classes.h written out for segfit_lk by
 * tools/layer_names.py; do not edit: edit layers/segfit/classes.h, then run --write. */
/* mortise/layers/segfit/classes.h — the size classes a segregated-fit trunk
 * layer serves (segfit_lk, segfit_lf; slab_lk, whose slabs place blocks
 * the same way).
 *
 * Both keep one free list per class of their sizeclass policy and place
 * blocks at multiples of the class size from a granule-aligned span, so an
 * aligned request is served by the first class whose size is a multiple of
 * the alignment. This template part, included once per instance after
 * policy/sizeclass/slot.h (no include guard), gives both the same answers.
 *
 * Needs: MT_NAME, MT_SELF_ID, MT_SIZE_HANDLE, MT_SIZECLASS (and
 *   segfit_lower_szcls_key from slot.h), and MT_SEGFIT_CAP, the largest block
 *   the layer keeps (forgotten at the end).
 * Defines (constant-folded where their arguments are constants):
 *   segfit_lower_class_size(c), segfit_lower_class_index(size)   the policy
 *   segfit_lower_max_block()       the largest request served: the least of
 *                              size_handle's bound, the cap, the largest class
 *   segfit_lower_classes_used()    classes that can hold blocks: [0, classes_used)
 *   segfit_lower_class_for(size, align)   the class serving a request, or
 *                              SIZE_MAX: not this layer's (size outside
 *                              size_handle or above max_block, alignment above
 *                              a granule or no class fits it)
 *   segfit_lower_class_meta(ctx, c)   getmeta's answer for an owned block of
 *                              class c: its usable size and the class hint
 *   segfit_lower_resize            the layer operation: blocks keep their class,
 *                              so an owned block is never resized here (the
 *                              socket moves it); others' go on down
 */
MT_INLINE size_t segfit_lower_class_size(size_t index) { return MT_SZCLS_FN(MT_SIZECLASS, size)(index); }
MT_INLINE size_t segfit_lower_class_index(size_t size) { return MT_SZCLS_FN(MT_SIZECLASS, index)(size); }

MT_INLINE size_t segfit_lower_max_block(void)
{
    size_t hi = MT_SIZE_HANDLE_HI(MT_SIZE_HANDLE);
    size_t cap = segfit_lower_class_size(MT_SZCLS_CLASSES(MT_SIZECLASS) - 1);
    cap = cap < (size_t)(MT_SEGFIT_CAP) ? cap : (size_t)(MT_SEGFIT_CAP);
    return hi - 1 < cap ? hi - 1 : cap;
}

MT_INLINE size_t segfit_lower_classes_used(void) { return segfit_lower_class_index(segfit_lower_max_block()) + 1; }

MT_INLINE size_t segfit_lower_class_for(size_t size, size_t align)
{
    if (!mt_size_in(size, MT_SIZE_HANDLE_LO(MT_SIZE_HANDLE), MT_SIZE_HANDLE_HI(MT_SIZE_HANDLE)) ||
        size > segfit_lower_max_block())
        return SIZE_MAX;
    size_t index = segfit_lower_class_index(size);
    if (MT_UNLIKELY(align > MT_MIN_ALIGN)) {
        if (align > MT_GRANULE)
            return SIZE_MAX;
        /* bounded by the policy's table: table policies (prime, tc, ...)
         * may have no class that is a multiple of a large alignment */
        while (index < MT_SZCLS_CLASSES(MT_SIZECLASS) && (segfit_lower_class_size(index) & (align - 1)))
            index++;
        if (index >= MT_SZCLS_CLASSES(MT_SIZECLASS) || segfit_lower_class_size(index) > segfit_lower_max_block())
            return SIZE_MAX;
    }
    return index;
}

MT_INLINE void *segfit_lower_class_meta(mt_ctx *ctx, size_t cls)
{
    ctx->usable = segfit_lower_class_size(cls);
    ctx->szcls = cls;
    ctx->szcls_key = segfit_lower_szcls_key;
    return ctx->ptr;
}

#define MT_IMPLEMENTS_resize
MT_INLINE void *segfit_lower_resize(mt_ctx *ctx, mt_lfunc *next)
{
    return MT_NOT_MINE(ctx, MT_SELF_ID) ? next(ctx) : NULL;
}

#undef MT_SEGFIT_CAP /* class_for, class_meta, resize (blocks keep their class), ... */
/* mortise/written/segfit_lk/safety_link_check.inl — layers/safety/link_check.h written out for segfit_lk by
 * tools/layer_names.py; do not edit: edit layers/safety/link_check.h, then run --write. */
/* mortise/layers/safety/link_check.h — the link_check slot of the layers
 * that keep free-list links inside free blocks (slab_wf, segfit_lf,
 * slab_lk, thread_cache, tlsf_glk, segfit_lk, buddy_glk).
 *
 * A free block's first words are the program's memory as much as the
 * layer's: an overflow from the block before it or a write through a
 * dangling pointer replaces them, and a layer that follows such a link
 * reads (and later writes) wherever the program's bytes point. With
 * link_check=1 a layer checks every link before it follows it: the link is
 * NULL, or it lies in the same 64 KiB granule as the block that held it,
 * or the page map names an owner for its granule (the layer's own id, or
 * any owner for a cache whose blocks belong to the layer below) — memory
 * the allocator mapped. A layer may check more (slab_wf: the link is a
 * block of the same slab). A link that fails is reported as
 * corrupted-metadata at the block that held it (the address the layer
 * knows: a layer above that adds a header hands out a later one), under the instance's
 * err_handle policy, and the rest of the list is dropped (leaked: nothing
 * in it can be trusted), so nothing is ever read through it.
 *
 * A template fragment, included by a layer header after MT_NAME is set.
 * Slots it reads: MT_LINK_CHECK (0: the fragment adds nothing, the layer's
 * code is that of no slot), MT_ERR_HANDLE (default).
 */
#ifndef MORTISE_LAYERS_SAFETY_LINK_CHECK_ONCE
#define MORTISE_LAYERS_SAFETY_LINK_CHECK_ONCE
#include <mortise/core/pagemap.h>
#include <mortise/policy/err/err.h>

/* The link leaves the granule of the block that held it: NULL, or a
 * word-aligned address in a granule owned by `owner` (0: by anyone). Inline:
 * a page-map lookup, no call (a call on a fast path costs its callers a
 * stack frame). */
MT_INLINE MT_UNUSED bool mt_link_far_ok(const void *link, uintptr_t owner)
{
    if (!link)
        return true;
    if ((uintptr_t)link & (sizeof(void *) - 1))
        return false;
    uintptr_t o = mt_entry_owner(mt_pagemap_get(link));
    return o && (!owner || o == owner);
}

/* May `link`, read from the free block `block`, be followed? The common
 * case, a link into the same granule, is an xor and a shift. */
MT_INLINE MT_UNUSED bool mt_link_ok(const void *block, const void *link, uintptr_t owner)
{
    if (MT_LIKELY(!(((uintptr_t)block ^ (uintptr_t)link) >> MT_GRANULE_SHIFT)))
        return true;
    return mt_link_far_ok(link, owner);
}

#endif /* MORTISE_LAYERS_SAFETY_LINK_CHECK_ONCE */

/* ---- per instance ---- */
#ifndef MT_LINK_CHECK
#define MT_LINK_CHECK 0
#endif
#ifndef MT_ERR_HANDLE
#define MT_ERR_HANDLE default
#endif

/* The free block `block` held a link that failed its check in operation
 * `op`. The size is reported as 0: a trunk or cache does not know what the
 * program asked for. */
MT_SLOW MT_UNUSED void segfit_lower_link_broken(void *block, const char *op)
{
    mortise_error e = {MORTISE_BUG_CORRUPTED_METADATA, block, 0, MT_STR(MT_NAME), op};
    MT_ERR_FN(MT_ERR_HANDLE, raise)(&e);
} /* link_check, err_handle */

typedef struct segfit_lower_span {
    struct segfit_lower_span *link; /* record free list, or purge's release list */
    char *base;
    size_t len;
    uintptr_t prev_entry; /* page-map entry of the layer below, restored on release */
    uint32_t cls;
    uint32_t carved;     /* blocks handed out of the bump region so far */
    uint32_t free_count; /* scratch for purge */
    bool zeroed;         /* came zero-filled: bump blocks need no memset */
} segfit_lower_span;

typedef struct MT_CACHE_ALIGNED {
    MT_SYNC_T(MT_SYNC) lock;
    void *free; /* LIFO of free blocks, next pointer in the first word */
    char *bump, *bump_end;
    segfit_lower_span *bump_span;
} segfit_lower_class;

static struct {
    segfit_lower_class cls[MT_SZCLS_CLASSES(MT_SIZECLASS)];
    mt_sync_spinlock records_lock;
    segfit_lower_span *records_free;
    char *records_cur, *records_end;
} segfit_lower_state;

MT_SLOW segfit_lower_span *segfit_lower_new_record(mt_lfunc *next)
{
    segfit_lower_span *s;
    mt_sync_spinlock_lock(&segfit_lower_state.records_lock);
    if ((s = segfit_lower_state.records_free)) {
        segfit_lower_state.records_free = s->link;
    } else {
        /* no arithmetic on the NULL of a fresh state: that is undefined */
        if (!segfit_lower_state.records_cur ||
            (size_t)(segfit_lower_state.records_end - segfit_lower_state.records_cur) < sizeof *s) {
            mt_ctx sub = mt_ctx_for_alloc(MT_GRANULE, MT_GRANULE);
            char *chunk = next(&sub);
            if (!chunk) {
                mt_sync_spinlock_unlock(&segfit_lower_state.records_lock);
                return NULL;
            }
            segfit_lower_state.records_cur = chunk;
            segfit_lower_state.records_end = chunk + MT_GRANULE;
        }
        s = (segfit_lower_span *)segfit_lower_state.records_cur;
        segfit_lower_state.records_cur += sizeof *s;
    }
    mt_sync_spinlock_unlock(&segfit_lower_state.records_lock);
    return s;
}

MT_SLOW void segfit_lower_drop_record(segfit_lower_span *s)
{
    mt_sync_spinlock_lock(&segfit_lower_state.records_lock);
    s->link = segfit_lower_state.records_free;
    segfit_lower_state.records_free = s;
    mt_sync_spinlock_unlock(&segfit_lower_state.records_lock);
}

MT_SLOW const char *segfit_lower_check_class_locked(size_t i);

/* Class lock held. Take a block from the bump region, refilling it with a new
 * span from the next layer when it is used up. */
MT_SLOW void *segfit_lower_bump(mt_ctx *ctx, size_t index, mt_lfunc *next)
{
    segfit_lower_class *c = &segfit_lower_state.cls[index];
    size_t csize = segfit_lower_class_size(index);
    if (!c->bump || (size_t)(c->bump_end - c->bump) < csize) {
        size_t len = mt_align_up(csize * 8 > MT_GRANULE ? csize * 8 : MT_GRANULE, MT_GRANULE);
        segfit_lower_span *s = segfit_lower_new_record(next);
        mt_ctx sub = mt_ctx_for_alloc(len, MT_GRANULE);
        char *base = s ? next(&sub) : NULL;
        if (!base) {
            if (s)
                segfit_lower_drop_record(s);
            ctx->err = sub.err ? sub.err : 12 /* ENOMEM */;
            return NULL;
        }
        s->base = base;
        s->len = len;
        s->cls = (uint32_t)index;
        s->carved = 0;
        s->free_count = 0;
        s->zeroed = sub.zeroed == base;
        s->prev_entry = mt_span_claim(base, len, MT_SELF_ID, mt_payload_of(s));
        c->bump = base;
        c->bump_end = base + (len / csize) * csize;
        c->bump_span = s;
    }
    void *p = c->bump;
    c->bump += csize;
    c->bump_span->carved++;
    mt_fresh_head(p);
    if (c->bump_span->zeroed)
        ctx->zeroed = p;
    MT_ASSERT_HOLDS(segfit_lower_check_class_locked(index)); /* its free list is empty: cheap */
    return p;
}

/* link_check: the link in free block p, checked before it is followed:
 * NULL, in p's granule, or in a granule of this layer. A bad one is
 * reported and the class's list ends at p (the rest leaks). */
MT_SLOW void *segfit_lower_link_cut(void *p, const char *op)
{
    *(void **)p = NULL;
    segfit_lower_link_broken(p, op);
    return NULL;
}

MT_INLINE void *segfit_lower_next_of(void *p, const char *op)
{
    void *link = *(void **)p;
    if (MT_LINK_CHECK && MT_UNLIKELY(!mt_link_ok(p, link, MT_SELF_ID)))
        return segfit_lower_link_cut(p, op);
    return link;
}

#define MT_IMPLEMENTS_alloc
MT_INLINE void *segfit_lower_alloc(mt_ctx *ctx, mt_lfunc *next)
{
    size_t index = segfit_lower_class_for(ctx->size, ctx->align);
    if (index == SIZE_MAX)
        return next(ctx);
    segfit_lower_class *c = &segfit_lower_state.cls[index];
    MT_SYNC_FN(MT_SYNC, lock)(&c->lock);
    void *p = c->free;
    if (MT_LIKELY(p)) {
        MT_ASSERT(mt_entry_owner(mt_pagemap_get(p)) == MT_SELF_ID); /* a free-list link into our span */
        c->free = segfit_lower_next_of(p, "alloc");
    } else
        p = MT_COLD_CALL(ctx, c2, segfit_lower_bump(&c2, index, next));
    MT_SYNC_FN(MT_SYNC, unlock)(&c->lock);
    return p;
}

#define MT_IMPLEMENTS_free
MT_INLINE void *segfit_lower_free(mt_ctx *ctx, mt_lfunc *next)
{
    if (MT_NOT_MINE(ctx, MT_SELF_ID))
        return next(ctx);
    segfit_lower_span *s = (segfit_lower_span *)mt_payload_ptr(ctx->meta);
    MT_ASSERT(s->cls < segfit_lower_classes_used()); /* class index in range */
    segfit_lower_class *c = &segfit_lower_state.cls[s->cls];
    MT_SYNC_FN(MT_SYNC, lock)(&c->lock);
    *(void **)ctx->ptr = c->free;
    c->free = ctx->ptr;
    MT_SYNC_FN(MT_SYNC, unlock)(&c->lock);
    return NULL;
}

#define MT_IMPLEMENTS_getmeta
MT_INLINE void *segfit_lower_getmeta(mt_ctx *ctx, mt_lfunc *next)
{
    if (MT_NOT_MINE(ctx, MT_SELF_ID))
        return next(ctx);
    return segfit_lower_class_meta(ctx, ((segfit_lower_span *)mt_payload_ptr(ctx->meta))->cls);
}

MT_INLINE segfit_lower_span *segfit_lower_span_of(void *block)
{
    return (segfit_lower_span *)mt_payload_ptr(mt_entry_payload(mt_pagemap_get(block)));
}

/* Class lock held. Hand back every span of this class whose blocks are all
 * free: count free blocks per span, unlink the blocks of fully free spans,
 * release those spans to the layer below (`free_below` is its free chain). */
MT_SLOW bool segfit_lower_purge_class(segfit_lower_class *c, mt_lfunc *free_below)
{
    const uint32_t releasing = UINT32_MAX;
    segfit_lower_span *release = NULL;
    for (void *b = c->free; b; b = segfit_lower_next_of(b, "purge"))
        segfit_lower_span_of(b)->free_count++;
    void **link = &c->free;
    for (void *b = c->free; b; b = *link) {
        segfit_lower_span *s = segfit_lower_span_of(b);
        if (s->free_count == releasing || s->free_count == s->carved) {
            if (s->free_count != releasing) {
                s->free_count = releasing;
                s->link = release;
                release = s;
            }
            *link = *(void **)b;
        } else {
            s->free_count = 0;
            link = (void **)b;
        }
    }
    if (c->bump_span && c->bump_span->carved == 0) { /* an untouched bump span */
        c->bump_span->link = release;
        release = c->bump_span;
    }
    bool any = release != NULL;
    while (release) {
        segfit_lower_span *s = release;
        release = s->link;
        if (s == c->bump_span)
            c->bump = c->bump_end = NULL, c->bump_span = NULL;
        mt_span_release(s->base, s->len, s->prev_entry, free_below);
        segfit_lower_drop_record(s);
    }
    return any;
}

#define MT_IMPLEMENTS_purge
MT_INLINE void *segfit_lower_purge(mt_ctx *ctx, mt_lfunc *next)
{
    bool any = false;
    for (size_t i = 0; i < segfit_lower_classes_used(); i++) {
        segfit_lower_class *c = &segfit_lower_state.cls[i];
        MT_SYNC_FN(MT_SYNC, lock)(&c->lock);
        any |= segfit_lower_purge_class(c, MT_BELOW(free)); /* not `next`: that is purge */
        MT_SYNC_FN(MT_SYNC, unlock)(&c->lock);
    }
    return (next(ctx) || any) ? (void *)1 : NULL;
}
/* mortise/written/segfit_lk/segfit_class_locks.inl — layers/segfit/class_locks.h written out for segfit_lk by
 * tools/layer_names.py; do not edit: edit layers/segfit/class_locks.h, then run --write. */
/* mortise/layers/segfit/class_locks.h — one lock per size class: taking
 * them all for fork and walking the classes under them for check
 * (segfit_lk, slab_lk).
 *
 * Template part (no include guard), included once per instance after the
 * instance's state is declared.
 * Needs: segfit_lower_state.cls[i].lock of sync policy MT_SYNC for every class
 *   i < MT_SZCLS_CLASSES(MT_SIZECLASS), segfit_lower_classes_used()
 *   (segfit/classes.h), and segfit_lower_check_class_locked(i) declared.
 * Defines:
 *   segfit_lower_lock_classes(), segfit_lower_unlock_classes(), segfit_lower_reset_classes()
 *       every used class's lock taken in index order (fork_prepare: the
 *       order every path that holds two class locks would take), released,
 *       or re-initialised in a forked child;
 *   segfit_lower_check_classes(n)   check_class_locked(i) for i < n, each under
 *       its class lock in turn: the first broken invariant, or NULL.
 */
MT_INLINE void segfit_lower_lock_classes(void)
{
    for (size_t i = 0; i < segfit_lower_classes_used(); i++)
        MT_SYNC_FN(MT_SYNC, lock)(&segfit_lower_state.cls[i].lock);
}

MT_INLINE void segfit_lower_unlock_classes(void)
{
    for (size_t i = 0; i < segfit_lower_classes_used(); i++)
        MT_SYNC_FN(MT_SYNC, unlock)(&segfit_lower_state.cls[i].lock);
}

MT_INLINE void segfit_lower_reset_classes(void)
{
    for (size_t i = 0; i < segfit_lower_classes_used(); i++)
        MT_SYNC_FN(MT_SYNC, init)(&segfit_lower_state.cls[i].lock);
}

MT_SLOW MT_UNUSED const char *segfit_lower_check_classes(size_t n)
{
    const char *broken = NULL;
    for (size_t i = 0; i < n && !broken; i++) {
        MT_SYNC_FN(MT_SYNC, lock)(&segfit_lower_state.cls[i].lock);
        broken = segfit_lower_check_class_locked(i);
        MT_SYNC_FN(MT_SYNC, unlock)(&segfit_lower_state.cls[i].lock);
    }
    return broken;
} /* lock_classes, unlock_classes, reset_classes, check_classes */

#define MT_IMPLEMENTS_fork_prepare
MT_INLINE void *segfit_lower_fork_prepare(mt_ctx *ctx, mt_lfunc *next)
{
    segfit_lower_lock_classes();
    mt_sync_spinlock_lock(&segfit_lower_state.records_lock);
    return next(ctx);
}
#define MT_IMPLEMENTS_fork_parent
MT_INLINE void *segfit_lower_fork_parent(mt_ctx *ctx, mt_lfunc *next)
{
    next(ctx);
    mt_sync_spinlock_unlock(&segfit_lower_state.records_lock);
    segfit_lower_unlock_classes();
    return NULL;
}
#define MT_IMPLEMENTS_fork_child
MT_INLINE void *segfit_lower_fork_child(mt_ctx *ctx, mt_lfunc *next)
{
    next(ctx);
    mt_sync_spinlock_init(&segfit_lower_state.records_lock);
    segfit_lower_reset_classes();
    return NULL;
}

/* Class i, its lock held: every free block is ours, of this class, at a
 * block position its span has carved, and listed once (a block listed
 * twice makes a cycle, which overflows its span's carved count); the bump
 * region lies in its span and agrees with the span's carved count. */
MT_SLOW const char *segfit_lower_check_class_locked(size_t i)
{
    segfit_lower_class *c = &segfit_lower_state.cls[i];
    size_t csize = segfit_lower_class_size(i), walked = 0;
    const char *broken = NULL;
    for (void *b = c->free; b && !broken; b = *(void **)b) {
        uintptr_t e = mt_pagemap_get(b);
        segfit_lower_span *s = (segfit_lower_span *)mt_payload_ptr(mt_entry_payload(e));
        if (mt_entry_owner(e) != MT_SELF_ID || s->cls != i) {
            broken = MT_STR(MT_NAME) ": free block not ours or in another class's list";
            break;
        }
        walked++;
        size_t off = (size_t)((char *)b - s->base);
        if (off % csize || off / csize >= s->carved)
            broken = MT_STR(MT_NAME) ": free block not at a carved block position of its span";
        else if (++s->free_count > s->carved)
            broken = MT_STR(MT_NAME) ": a block listed twice (a cycle)";
    }
    void *b = c->free; /* reset the scratch of exactly the blocks counted */
    for (size_t k = 0; k < walked; k++, b = *(void **)b)
        segfit_lower_span_of(b)->free_count = 0;
    segfit_lower_span *s = c->bump_span;
    if (!broken && s &&
        (s->cls != i || c->bump < s->base || c->bump > c->bump_end || c->bump_end > s->base + s->len ||
         (size_t)(c->bump - s->base) != (size_t)s->carved * csize))
        broken = MT_STR(MT_NAME) ": bump region outside its span or off its carved count";
    return broken;
}

/* segfit_lk's invariants, each class under its lock: NULL if they hold,
 * else "NAME: what". */
#define MT_HAS_INVARIANTS /* check: these, then the layers below (core/ops.h) */
MT_SLOW MT_UNUSED const char *segfit_lower_invariants(void)
{
    return segfit_lower_check_classes(segfit_lower_classes_used());
}

/* Its traits (descriptor, core/ctx.h): mt_fresh_head on every block carved anew. */
#define MT_DESCRIPTOR MT_DESCRIPTOR_segfit_lk
#include <mortise/core/layer_end.h>
/* Forget this instance's slots: the next instance starts from the defaults. */
#undef MT_SIZE_HANDLE
#undef MT_SYNC
#undef MT_SIZECLASS
#undef MT_SIZECLASS_STEP
#undef MT_ERR_HANDLE
#undef MT_LINK_CHECK
#undef MT_LOCK_STAT
#undef MT_SEGFIT_MAX_BLOCK
#ifdef MT_NAMES_segfit_lk
#include <mortise/names/segfit_lk.h> /* forget them */
#endif
#endif /* MT_DESCRIBE */

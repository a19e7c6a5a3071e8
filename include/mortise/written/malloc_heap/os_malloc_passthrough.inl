/* mortise/written/malloc_heap/os_malloc_passthrough.inl — os/malloc_passthrough.h written out for malloc_heap by
 * tools/layer_names.py; do not edit: edit os/malloc_passthrough.h, then run --write. */
/* mortise/os/malloc_passthrough.h — malloc_heap(passthrough=1): every
 * request goes to the next allocator as it is, block by block.
 *
 * A fragment of os/malloc_heap.h (included by it when MT_PASSTHROUGH is 1;
 * its contract describes the slot). It exists to measure another allocator
 * (instances/wcet_stat_malloc.c, paper section 4.3): the add-ons above it see
 * every malloc and free of the program and the allocator loaded after this
 * one serves them, so what they measure is that allocator.
 *
 * The next allocator: malloc, free, posix_memalign, realloc,
 * malloc_usable_size and malloc_trim found by dlsym(RTLD_NEXT) — from a
 * program linked with this library, the next object is an LD_PRELOADed
 * allocator or the C library; from this library LD_PRELOADed first, the
 * library after it. Look-ups are made by a constructor; requests before it,
 * or made by dlsym itself, get blocks from a static bootstrap buffer
 * (MT_PASSTHROUGH_BOOTSTRAP bytes), never passed to the next free.
 *
 * Page map: every non-NULL pointer is this layer's (the socket forwards every
 * free, query and resize here, and the next allocator judges the pointer, as
 * it would without us). Nothing is ever claimed: a layer above that would
 * own blocks (a trunk layer) does not compile over it.
 * realloc: the socket keeps a block whose usable size still fits (at most
 * twice the request); otherwise resize is the next allocator's realloc.
 */
#include <string.h>

#ifndef MT_PASSTHROUGH_BOOTSTRAP
#define MT_PASSTHROUGH_BOOTSTRAP ((size_t)1 << 18)
#endif

enum { malloc_heap_id = MT_NEW_LAYER_ID };
#define MT_SELF_ID MT_SELF(id)

/* ---- the page map: everything is ours ---- */

static inline uintptr_t mt_pagemap_get(const void *p) { return p ? mt_entry(MT_SELF_ID, 0) : 0; }

__attribute__((error("malloc_heap(passthrough=1) owns every pointer: no layer above it may "
                     "own blocks (compose only add-ons such as wcet_stat over it)"))) void
mt_passthrough_owns_everything(void);

static inline void mt_pagemap_set(const void *p, size_t len, uintptr_t entry)
{
    (void)p;
    (void)len;
    (void)entry;
    mt_passthrough_owns_everything();
}

/* The next allocator keeps its own accounts. */
static inline void mt_os_stats_read(mt_os_stats *out)
{
    out->mapped = out->handed_out = out->large = out->returned = 0;
}

/* ---- the next allocator ---- */

/* The look-up's phase is an mt_once (platform.h): 0 unresolved, then under
 * way, then ready or unavailable; a fork child that inherited a look-up
 * under way (its thread is not in the child) looks up again. */
enum { malloc_heap_unresolved = 0, malloc_heap_ready = MT_ONCE_DONE, malloc_heap_unavailable = MT_ONCE_FAILED };

static struct {
    mt_once phase;
    void *(*malloc)(size_t size);
    void (*free)(void *p);
    int (*memalign)(void **out, size_t align, size_t size);
    void *(*realloc)(void *p, size_t size);
    size_t (*usable)(void *p);
    int (*trim)(size_t pad);
    _Atomic(size_t) bootstrap_used;
} malloc_heap_next;

static MT_TLS bool malloc_heap_resolving_here;
static _Alignas(64) char malloc_heap_bootstrap[MT_PASSTHROUGH_BOOTSTRAP];

#define MT__PT_HEADER ((size_t)64) /* the block's size, keeps any alignment to 64 */

MT_INLINE bool malloc_heap_from_bootstrap(const void *p)
{
    return (uintptr_t)p - (uintptr_t)malloc_heap_bootstrap < MT_PASSTHROUGH_BOOTSTRAP;
}

/* A bootstrap block: a bump of the buffer; NULL when used up or the
 * alignment is above what the header keeps. */
static void *malloc_heap_bootstrap_take(size_t size)
{
    size_t len = mt_align_up(size, MT__PT_HEADER) + MT__PT_HEADER;
    if (size > MT_PASSTHROUGH_BOOTSTRAP)
        return NULL;
    size_t at = atomic_fetch_add(&malloc_heap_next.bootstrap_used, len);
    if (at + len > MT_PASSTHROUGH_BOOTSTRAP)
        return NULL;
    char *block = malloc_heap_bootstrap + at;
    *(size_t *)block = size;
    return block + MT__PT_HEADER;
}

/* ISO C has no function/object pointer casts; POSIX guarantees dlsym's do. */
static bool malloc_heap_find(void *fn_pointer, const char *name)
{
    void *f = mt_pal_next_symbol(name);
    memcpy(fn_pointer, &f, sizeof f);
    return f != NULL;
}
#define MT__PT_FIND(field, name) MT_SELF(find)(&MT_SELF(next).field, name)

MT_SLOW bool malloc_heap_resolve(void)
{
    uintptr_t phase = mt_load_acquire(&malloc_heap_next.phase);
    if (!mt_once_final(phase) && (phase = mt_once_enter(&malloc_heap_next.phase)) == 0) {
        malloc_heap_resolving_here = true;
        bool found = MT__PT_FIND(malloc, "malloc") && MT__PT_FIND(free, "free") &&
                     MT__PT_FIND(memalign, "posix_memalign") && MT__PT_FIND(realloc, "realloc");
        MT__PT_FIND(usable, "malloc_usable_size");
        MT__PT_FIND(trim, "malloc_trim");
        malloc_heap_resolving_here = false;
        phase = found ? malloc_heap_ready : malloc_heap_unavailable;
        mt_once_leave(&malloc_heap_next.phase, phase);
    }
    return phase == malloc_heap_ready;
}

__attribute__((constructor)) static void malloc_heap_resolve_at_start(void) { malloc_heap_resolve(); }

MT_INLINE void *malloc_heap_alloc_next(mt_ctx *ctx)
{
    void *p;
    if (ctx->align <= MT_MIN_ALIGN)
        p = malloc_heap_next.malloc(ctx->size);
    else if (malloc_heap_next.memalign(&p, ctx->align, ctx->size) != 0)
        p = NULL;
    if (MT_UNLIKELY(!p))
        ctx->err = MT_ENOMEM;
    return p;
}

/* Before the look-up: make it, or (inside it, or without a next allocator)
 * take a block from the bootstrap buffer. */
MT_SLOW void *malloc_heap_alloc_early(mt_ctx *ctx)
{
    /* clang-format off */
    if (!malloc_heap_resolving_here && malloc_heap_resolve())
        return malloc_heap_alloc_next(ctx);
    /* clang-format on */
    void *p = ctx->align <= MT__PT_HEADER ? malloc_heap_bootstrap_take(ctx->size) : NULL;
    if (!p)
        ctx->err = MT_ENOMEM;
    else
        ctx->zeroed = p; /* BSS, never reused */
    return p;
}

#define MT_IMPLEMENTS_alloc
MT_INLINE void *malloc_heap_alloc(mt_ctx *ctx, mt_lfunc *next)
{
    (void)next;
    if (MT_UNLIKELY(mt_load_acquire(&malloc_heap_next.phase) != malloc_heap_ready))
        return MT_COLD_CALL(ctx, copy, malloc_heap_alloc_early(&copy));
    return malloc_heap_alloc_next(ctx);
}

#define MT_IMPLEMENTS_free
MT_INLINE void *malloc_heap_free(mt_ctx *ctx, mt_lfunc *next)
{
    (void)next;
    if (MT_UNLIKELY(malloc_heap_from_bootstrap(ctx->ptr)) ||
        MT_UNLIKELY(mt_load_acquire(&malloc_heap_next.phase) != malloc_heap_ready))
        return NULL; /* kept: the next allocator never saw it */
    int saved = mt_pal_errno();
    malloc_heap_next.free(ctx->ptr);
    mt_pal_set_errno(saved);
    return NULL;
}

#define MT_IMPLEMENTS_getmeta
MT_INLINE void *malloc_heap_getmeta(mt_ctx *ctx, mt_lfunc *next)
{
    (void)next;
    /* clang-format off */
    if (malloc_heap_from_bootstrap(ctx->ptr))
        ctx->usable = *(size_t *)((char *)ctx->ptr - MT__PT_HEADER);
    else if (mt_load_acquire(&malloc_heap_next.phase) == malloc_heap_ready && malloc_heap_next.usable)
        ctx->usable = malloc_heap_next.usable(ctx->ptr);
    else
        ctx->usable = 0;
    /* clang-format on */
    ctx->szcls_key = 0;
    return ctx->ptr;
}

/* The next allocator's realloc (it may move the block); a bootstrap block
 * is moved by the socket. */
#define MT_IMPLEMENTS_resize
MT_INLINE void *malloc_heap_resize(mt_ctx *ctx, mt_lfunc *next)
{
    (void)next;
    if (malloc_heap_from_bootstrap(ctx->ptr) || mt_load_acquire(&malloc_heap_next.phase) != malloc_heap_ready)
        return NULL;
    return malloc_heap_next.realloc(ctx->ptr, ctx->size);
}

#define MT_IMPLEMENTS_purge
MT_INLINE void *malloc_heap_purge(mt_ctx *ctx, mt_lfunc *next)
{
    (void)ctx;
    (void)next;
    if (mt_load_acquire(&malloc_heap_next.phase) != malloc_heap_ready || !malloc_heap_next.trim)
        return NULL;
    return malloc_heap_next.trim(0) ? (void *)1 : NULL;
}

#undef MT__PT_FIND
#undef MT__PT_HEADER

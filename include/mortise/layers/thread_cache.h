/* thread_cache — per-thread LIFO free lists per size class.   [model: thread_cache]
 *
 * Serves: alloc requests in size_handle with alignment <= 16 from the calling
 *   thread's LIFO list of the request's size class; frees of blocks whose
 *   class it covers go onto the freeing thread's list. Cached blocks stay
 *   owned by the layer below (the page map still names it: the cache holds
 *   blocks the layer below counts as allocated), so the cache needs no lock,
 *   no page-map entry and no metadata of its own. Everything else — aligned
 *   requests, sizes outside size_handle, blocks of other classes, getmeta,
 *   resize — goes to the next layer.
 * Slots (model language → macro, default):
 *   size_handle=[lo, hi] → MT_SIZE_HANDLE (0, 32768): hi must be finite.
 *   sizeclass=POLICY     → MT_SIZECLASS (log2b); interval also reads
 *                          MT_SIZECLASS_STEP (16). Best the same policy as the
 *                          layer below, so blocks come back in whole classes.
 *   cache_size=BYTES     → MT_CACHE_SIZE (2 MiB): each thread's budget, split
 *                          evenly between the classes of size_handle: class c
 *                          keeps at most max(1, cache_size / classes / size(c))
 *                          blocks. With the defaults: 40 classes of 52 KiB,
 *                          3276 blocks of 16 bytes ... one block of 32 KiB; a
 *                          thread never holds more than cache_size bytes plus
 *                          one block per class.
 *   coreaware_cachesize  → reserved for a later change (scaling the budget by
 *                          threads per core); the bound is already a per-thread
 *                          run-time value (bin.room), set in start().
 *   Tuning (not model slots): MT_THREAD_CACHE_BATCH (32), the most blocks one
 *   miss takes from the layer below (at most half the class bound);
 *   MT_THREAD_CACHE_BINS (the policy's class count, at most 256), the size of
 *   the per-thread table; classes above it are not cached.
 * Needs from below: getmeta answering the usable size of every block it owns
 *   (MT_BELOW(getmeta); every trunk layer has it) and class-sized allocs.
 *   A freed block is filed under the largest class not above its usable size,
 *   so blocks of any layer below are safe to reuse whatever its classes; an
 *   owner with the same size-class policy reports the class itself (getmeta's
 *   class hint, core/ctx.h) and the cache takes it as is.
 * Time: hit: alloc = class index + pop (no atomic, no lock); free = the
 *   owner's getmeta (one compare and one load for segfit_lk, which reports
 *   the class) + push. Miss: up to MT_THREAD_CACHE_BATCH allocs below; full list on free:
 *   half the list is freed below. thread_exit and purge: O(cached blocks).
 * Space: MT_THREAD_CACHE_BINS × 16 bytes of TLS per thread plus the cached
 *   blocks (bounded as above).
 * Thread safety: all state is per thread (initial-exec TLS); no locks, so
 *   nothing to take at fork: the child keeps the forking thread's cache and,
 *   like every allocator, loses the blocks cached by the other threads.
 *   A thread's first miss or free runs mt_thread_attach(); at its exit
 *   (thread_exit) every cached block is freed below and the thread caches
 *   nothing any more (frees during later TLS destructors go straight below).
 * Fails: only when the layer below fails (ctx->err from it).
 * Example:
 *   mmap_heap
 *     :: segfit_lk(sizeclass=log2b, size_handle=[0, 262144])
 *     :: thread_cache(sizeclass=log2b, size_handle=[0, 32768], cache_size=2MB)
 *     :: malloc_socket
 */
#include "../core/layer.h"
#include "../policy/sizeclass/sizeclass.h"

#ifndef MT_NAME
#define MT_NAME thread_cache
#endif
#ifndef MT_SIZE_HANDLE
#define MT_SIZE_HANDLE 0, 32768
#endif
#ifndef MT_CACHE_SIZE
#define MT_CACHE_SIZE ((size_t)2 << 20)
#endif
#if defined(MT_COREAWARE_CACHESIZE) && MT_COREAWARE_CACHESIZE
#error "thread_cache: coreaware_cachesize is not implemented yet"
#endif
#ifndef MT_THREAD_CACHE_BATCH
#define MT_THREAD_CACHE_BATCH 32
#endif
#ifndef MT_THREAD_CACHE_BINS
#define MT_THREAD_CACHE_BINS                                                       \
    (MT_SZCLS_CLASSES(MT_SIZECLASS) < 256 ? MT_SZCLS_CLASSES(MT_SIZECLASS) : 256)
#endif

_Static_assert(MT_SIZE_HANDLE_HI(MT_SIZE_HANDLE) != SIZE_MAX,
               "thread_cache: size_handle needs a finite upper bound");
_Static_assert(MT_SIZE_HANDLE_LO(MT_SIZE_HANDLE) < MT_SIZE_HANDLE_HI(MT_SIZE_HANDLE),
               "thread_cache: size_handle is empty");

MT_DECLARE_BELOW(getmeta)
MT_DECLARE_BELOW(free)

#include "../policy/sizeclass/slot.h"
enum { MT_SELF(bins) = MT_THREAD_CACHE_BINS };

typedef struct {
    void *head;  /* LIFO of cached blocks, next pointer in the first word */
    size_t room; /* blocks the list may still take; 0 until the thread starts */
} MT_SELF(bin);

enum { MT_SELF(new), MT_SELF(caching), MT_SELF(exited) };

static MT_TLS struct {
    MT_SELF(bin) bin[MT_SELF(bins)];
    int state;
} MT_SELF(tl);

MT_INLINE size_t MT_SELF(class_size)(size_t index) { return MT_SZCLS_FN(MT_SIZECLASS, size)(index); }
MT_INLINE size_t MT_SELF(class_index)(size_t size) { return MT_SZCLS_FN(MT_SIZECLASS, index)(size); }

/* Requests below top() are cached: size_handle's bound, or less if the
 * table has too few bins for it. Constant-folded. */
MT_INLINE size_t MT_SELF(top)(void)
{
    size_t hi = MT_SIZE_HANDLE_HI(MT_SIZE_HANDLE);
    size_t table = MT_SELF(class_size)(MT_SELF(bins) - 1) + 1;
    return hi < table ? hi : table;
}
/* Cached classes: [first, end). */
MT_INLINE size_t MT_SELF(first)(void) { return MT_SELF(class_index)(MT_SIZE_HANDLE_LO(MT_SIZE_HANDLE)); }
MT_INLINE size_t MT_SELF(end)(void) { return MT_SELF(class_index)(MT_SELF(top)() - 1) + 1; }

/* The class a block answered by getmeta belongs in (SIZE_MAX if none): the
 * owner's class hint when its policy is ours, else the largest class whose
 * size is at most the usable size (the policy's index gives the smallest
 * class holding a size). With the hint the usable size is never computed. */
MT_INLINE size_t MT_SELF(class_of)(const mt_ctx *ctx)
{
    if (MT_SELF(szcls_key) && ctx->szcls_key == (uintptr_t)MT_SELF(szcls_key))
        return ctx->szcls;
    return MT_SELF(class_index)(ctx->usable + 1) - 1;
}

MT_INLINE size_t MT_SELF(capacity)(size_t index)
{
    size_t share = MT_CACHE_SIZE / (MT_SELF(end)() - MT_SELF(first)());
    size_t blocks = share / MT_SELF(class_size)(index);
    return blocks ? blocks : 1;
}

/* The thread's first use: every class may take its capacity. */
MT_SLOW void MT_SELF(start)(void)
{
    for (size_t c = MT_SELF(first)(); c < MT_SELF(end)(); c++)
        MT_SELF(tl).bin[c].room = MT_SELF(capacity)(c);
    MT_SELF(tl).state = MT_SELF(caching);
}

/* Returns true when the thread caches (attaching it on its first call). */
MT_SLOW bool MT_SELF(ready)(void)
{
    if (MT_SELF(tl).state == MT_SELF(new)) {
        mt_thread_attach(); /* runs create, which starts the cache */
        if (MT_SELF(tl).state == MT_SELF(new))
            MT_SELF(start)(); /* a socket without threads attaches nobody */
    }
    return MT_SELF(tl).state == MT_SELF(caching);
}

/* Free `n` blocks of class c to the layer below; `free_below` is the free
 * chain below this layer. Returns the number freed. */
static size_t MT_SELF(flush)(size_t c, size_t n, mt_lfunc *free_below)
{
    MT_SELF(bin) *b = &MT_SELF(tl).bin[c];
    size_t done = 0;
    while (done < n && b->head) {
        void *p = b->head;
        b->head = *(void **)p;
        mt_ctx sub = mt_ctx_for_alloc(0, 1);
        mt_ctx_route(&sub, p);
        free_below(&sub);
        done++;
    }
    b->room += done;
    return done;
}

/* Alloc's slow path, one block for everything the hit does not serve (so the
 * hit needs no stack frame: the compiler places the prologue here): requests
 * the cache does not take go below; a miss serves the request from below and
 * takes up to a batch more blocks of the class for the next ones. */
MT_SLOW void *MT_SELF(alloc_slow)(mt_ctx *ctx, mt_lfunc *next)
{
    size_t size = ctx->size;
    if (!mt_size_in(size, MT_SIZE_HANDLE_LO(MT_SIZE_HANDLE), MT_SELF(top)()) ||
        ctx->align > MT_MIN_ALIGN || !MT_SELF(ready)())
        return next(ctx);
    size_t c = MT_SELF(class_index)(size);
    MT_SELF(bin) *b = &MT_SELF(tl).bin[c];
    size_t csize = MT_SELF(class_size)(c);
    size_t half = MT_SELF(capacity)(c) / 2;
    size_t want = half < MT_THREAD_CACHE_BATCH ? half : MT_THREAD_CACHE_BATCH;
    ctx->size = csize; /* a whole class, so the block serves any size of it */
    void *first = next(ctx);
    for (size_t i = 1; first && i < want && b->room; i++) {
        mt_ctx sub = mt_ctx_for_alloc(csize, 1);
        void *p = next(&sub);
        if (!p)
            break;
        *(void **)p = b->head;
        b->head = p;
        b->room--;
    }
    return first;
}

/* Free's slow path: a block of a class the cache does not keep, a full list
 * (half of it goes below first), or a thread that does not cache (any more). */
MT_SLOW void MT_SELF(free_slow)(void *p, size_t c, mt_lfunc *next)
{
    if (c - MT_SELF(first)() < MT_SELF(end)() - MT_SELF(first)() && MT_SELF(ready)()) {
        MT_SELF(bin) *b = &MT_SELF(tl).bin[c];
        if (!b->room)
            MT_SELF(flush)(c, (MT_SELF(capacity)(c) + 1) / 2, next);
        *(void **)p = b->head;
        b->head = p;
        b->room--;
        return;
    }
    mt_ctx sub = mt_ctx_for_alloc(0, 1);
    mt_ctx_route(&sub, p);
    next(&sub);
}

/* Hit: a compare for the range, the class index, a pop. */
MT_INLINE void *MT_SELF(alloc)(mt_ctx *ctx, mt_lfunc *next)
{
    size_t size = ctx->size;
    void *p = NULL;
    MT_SELF(bin) *b = NULL;
    if (mt_size_in(size, MT_SIZE_HANDLE_LO(MT_SIZE_HANDLE), MT_SELF(top)()) &&
        MT_LIKELY(ctx->align <= MT_MIN_ALIGN)) {
        b = &MT_SELF(tl).bin[MT_SELF(class_index)(size)];
        p = b->head;
    }
    if (MT_UNLIKELY(!p))
        return MT_COLD_CALL(ctx, copy, MT_SELF(alloc_slow)(&copy, next));
    b->head = *(void **)p;
    b->room++;
    return p;
}

/* Hit: the owner's getmeta, the class index, a push. */
MT_INLINE void *MT_SELF(free)(mt_ctx *ctx, mt_lfunc *next)
{
    size_t c = MT_BELOW(getmeta)(ctx) ? MT_SELF(class_of)(ctx) : SIZE_MAX;
    MT_SELF(bin) *b = &MT_SELF(tl).bin[c];
    if (MT_UNLIKELY(c - MT_SELF(first)() >= MT_SELF(end)() - MT_SELF(first)() || !b->room)) {
        MT_SELF(free_slow)(ctx->ptr, c, next);
        return NULL;
    }
    *(void **)ctx->ptr = b->head;
    b->head = ctx->ptr;
    b->room--;
    return NULL;
}

MT_INLINE void *MT_SELF(create)(mt_ctx *ctx, mt_lfunc *next)
{
    if (MT_SELF(tl).state == MT_SELF(new))
        MT_SELF(start)();
    return next(ctx);
}

/* Give every cached block back below. True if there was any. */
MT_SLOW bool MT_SELF(flush_all)(void)
{
    size_t any = 0;
    for (size_t c = MT_SELF(first)(); c < MT_SELF(end)(); c++)
        any += MT_SELF(flush)(c, SIZE_MAX, MT_BELOW(free));
    return any != 0;
}

MT_INLINE void *MT_SELF(thread_exit)(mt_ctx *ctx, mt_lfunc *next)
{
    MT_SELF(flush_all)();
    MT_SELF(tl).state = MT_SELF(exited);
    for (size_t c = MT_SELF(first)(); c < MT_SELF(end)(); c++)
        MT_SELF(tl).bin[c].room = 0;
    return next(ctx);
}

/* malloc_trim: the calling thread's cache goes back first (other threads'
 * caches are theirs), then the layers below release what is free. */
MT_INLINE void *MT_SELF(purge)(mt_ctx *ctx, mt_lfunc *next)
{
    bool any = MT_SELF(flush_all)();
    return (next(ctx) || any) ? (void *)1 : NULL;
}

MT_FORWARD_OP(MT_NAME, getmeta)
MT_FORWARD_OP(MT_NAME, resize)
MT_FORWARD_OP(MT_NAME, fork_prepare)
MT_FORWARD_OP(MT_NAME, fork_parent)
MT_FORWARD_OP(MT_NAME, fork_child)

#include "../core/layer_end.h"
#undef MT_THREAD_CACHE_BATCH
#undef MT_THREAD_CACHE_BINS

/* batched_free — frees collected per thread, handed below in batches.
 *
 * Serves: frees of blocks whose usable size is in size_handle: the block is
 *   put in the calling thread's batch (an array of MT_BATCH_SIZE pointers in
 *   TLS) and nothing else happens; when the batch is full, all of it is
 *   freed to the layer below, oldest first, back to back. In front of a
 *   locked layer this turns a free-heavy phase into runs of frees whose
 *   lock, free-list heads and page-map lines stay hot in this core's cache,
 *   and takes the layer below off the program's free path for N - 1 of
 *   every N frees. Everything else — allocations, frees of larger blocks,
 *   getmeta, resize — goes to the next layer.
 * Pending blocks: a block in a batch has been freed by the program, so it is
 *   not live: only a (wrong) second free, a use after free, or getmeta /
 *   realloc / malloc_usable_size on a freed pointer could reach it, and those
 *   are undefined for the program with or without this layer. To the layer
 *   below a pending block is still allocated: it stays in its usage counts
 *   (mallinfo) until its batch goes down, and the owner cannot give its span
 *   back meanwhile. A batch goes down when it is full, when its thread ends
 *   (thread_exit) and when that thread calls malloc_trim (purge); frees after
 *   a thread's exit go straight below.
 * Slots (model language → macro, default):
 *   batch_size=N         → MT_BATCH_SIZE (32): blocks per batch, >= 1.
 *   size_handle=[lo, hi] → MT_SIZE_HANDLE (0, 65536): blocks whose usable
 *                          size is in it are batched; larger ones go below at
 *                          once, so a batch holds back at most
 *                          N × hi bytes (2 MiB with the defaults).
 * Needs from below: getmeta answering the usable size of its blocks.
 * Time: free: the owner's getmeta + three stores (the block and its
 *   page-map routing; no lock, no atomic); every N-th free of a thread: N
 *   frees below, without reading the page map again. thread_exit and purge:
 *   O(N).
 * Space: 24 × N + 12 bytes of TLS per thread.
 * Thread safety: per-thread state (initial-exec TLS), no locks, nothing to
 *   take at fork (the child keeps the forking thread's batch and frees it
 *   like any). A batch only holds blocks its own thread freed; another
 *   thread's batch is never touched, so a thread that sleeps keeps up to N
 *   blocks pending until it frees more, exits or trims.
 * Fails: never (free has no failure).
 * Example:
 *   mmap_heap
 *     :: segfit_lk(sync=posix_mutex)
 *     :: batched_free(batch_size=32, size_handle=[0, 65536])
 *     :: malloc_socket
 */
/* The layer's descriptor (core/describe.h): the data tools/describe_layers.py
 * reads and core/layer_end.h checks the slots against. */
#define MT_DESCRIPTOR_batched_free(LAYER, SLOT)            \
    LAYER(batched_free, addon, 0, (), ())                  \
    MT_OPS(SLOT, create, free, thread_exit, purge)         \
    SLOT(batch_size, MT_BATCH_SIZE, N, 32, (1, 65536), ()) \
    MT_SLOT_SIZE_HANDLE(SLOT, 0, 65536)
#ifndef MT_DESCRIBE /* describe mode reads the descriptor alone */
#include "../core/layer.h"
#include "cache/magazine.h" /* mt_cache_free_block */

#ifdef MT_NAME /* another instance name: the names below become its own */
#include "../names/batched_free.h"
#else
#define MT_NAME batched_free
#endif
#ifndef MT_BATCH_SIZE
#define MT_BATCH_SIZE 32
#endif
#ifndef MT_SIZE_HANDLE
#define MT_SIZE_HANDLE 0, 65536
#endif
MT_DECLARE_BELOW(getmeta);
MT_DECLARE_BELOW(free);

/* A pending free: the block and its routing, as the socket found it in the
 * page map (it cannot change while the block is allocated below), so the
 * flush need not read the page map again. */
typedef struct {
    void *ptr;
    uintptr_t owner, meta;
} batched_free_pending;

static MT_TLS struct {
    uint32_t n, cap; /* pending frees; cap = N while the thread batches, else 0 */
    int state;       /* cache/thread_state.h */
    batched_free_pending pending[MT_BATCH_SIZE];
} batched_free_tl;

#include "../written/batched_free/cache_thread_state.inl"

MT_SLOW void batched_free_start(void)
{
    batched_free_tl.cap = MT_BATCH_SIZE;
    batched_free_tl.state = mt_cache_on;
}

/* The batch goes below, oldest first, back to back (the layer below is
 * inlined into this loop). True if it held anything. */
MT_SLOW bool batched_free_flush_all(void)
{
    uint32_t n = batched_free_tl.n;
    for (uint32_t i = 0; i < n; i++) {
        mt_ctx sub = mt_ctx_for_alloc(0, 1);
        sub.ptr = batched_free_tl.pending[i].ptr;
        sub.owner = batched_free_tl.pending[i].owner;
        sub.meta = batched_free_tl.pending[i].meta;
        MT_BELOW(free)(&sub);
    }
    batched_free_tl.n = 0;
    return n != 0;
}

/* Full batch (it goes below, then this free starts the next), a thread not
 * set up yet, or one that has exited (the block goes below). */
MT_SLOW void batched_free_free_slow(void *p, uintptr_t owner, uintptr_t meta, mt_lfunc *next)
{
    if (batched_free_ready()) {
        if (batched_free_tl.n >= batched_free_tl.cap)
            batched_free_flush_all();
        batched_free_tl.pending[batched_free_tl.n++] = (batched_free_pending){p, owner, meta};
        return;
    }
    mt_cache_free_block(p, next);
}

/* Hit: the owner's getmeta, a compare, three stores. */
#define MT_IMPLEMENTS_free
MT_INLINE void *batched_free_free(mt_ctx *ctx, mt_lfunc *next)
{
    if (!MT_BELOW(getmeta)(ctx) ||
        !mt_size_in(ctx->usable, MT_SIZE_HANDLE_LO(MT_SIZE_HANDLE), MT_SIZE_HANDLE_HI(MT_SIZE_HANDLE)))
        return next(ctx);
    uint32_t n = batched_free_tl.n;
    if (MT_UNLIKELY(n >= batched_free_tl.cap)) {
        batched_free_free_slow(ctx->ptr, ctx->owner, ctx->meta, next);
        return NULL;
    }
    batched_free_tl.pending[n] = (batched_free_pending){ctx->ptr, ctx->owner, ctx->meta};
    batched_free_tl.n = n + 1;
    return NULL;
}

/* The thread ends: its batch goes below, later frees go straight below. */
MT_SLOW void batched_free_stop(void)
{
    batched_free_flush_all();
    batched_free_tl.cap = 0;
    batched_free_tl.state = mt_cache_off;
}

/* The calling thread's batch: within its bound, each pending block still
 * routed to the owner the page map named when it was freed, the owner
 * still answering for it (not freed below early), and listed once. */
#define MT_HAS_INVARIANTS /* check: these, then the layers below (core/ops.h) */
MT_SLOW MT_UNUSED const char *batched_free_invariants(void)
{
    uint32_t n = batched_free_tl.n;
    if (n > batched_free_tl.cap || batched_free_tl.cap > MT_BATCH_SIZE)
        return MT_STR(MT_NAME) ": batch holds more than its bound";
    for (uint32_t i = 0; i < n; i++) {
        const batched_free_pending *f = &batched_free_tl.pending[i];
        mt_ctx q = mt_ctx_for_alloc(0, 1);
        mt_ctx_route(&q, f->ptr);
        if (q.owner != f->owner || q.meta != f->meta || !MT_BELOW(getmeta)(&q))
            return MT_STR(MT_NAME) ": pending block no longer routed to its owner";
        for (uint32_t j = 0; j < i; j++)
            if (batched_free_tl.pending[j].ptr == f->ptr)
                return MT_STR(MT_NAME) ": a block pending twice (double free)";
    }
    return NULL;
}

#define MT_DESCRIPTOR MT_DESCRIPTOR_batched_free
#include "../core/layer_end.h"
/* Forget this instance's slots: the next instance starts from the defaults. */
#undef MT_SIZE_HANDLE
#undef MT_BATCH_SIZE
#ifdef MT_NAMES_batched_free
#include "../names/batched_free.h" /* forget them */
#endif
#endif /* MT_DESCRIBE */

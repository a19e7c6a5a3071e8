/* batched_free — frees collected per thread, handed below in batches.
 *                                                        [model: batched_free]
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
 * Time: free: the owner's getmeta + a store (no lock, no atomic); every N-th
 *   free of a thread: N frees below. thread_exit and purge: O(N).
 * Space: 8 × N + 8 bytes of TLS per thread.
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
#include "../core/layer.h"
#include "cache/magazine.h"

#ifndef MT_NAME
#define MT_NAME batched_free
#endif
#ifndef MT_BATCH_SIZE
#define MT_BATCH_SIZE 32
#endif
#ifndef MT_SIZE_HANDLE
#define MT_SIZE_HANDLE 0, 65536
#endif
_Static_assert(MT_BATCH_SIZE >= 1 && MT_BATCH_SIZE <= 65536, "batched_free: batch_size out of range");

MT_DECLARE_BELOW(getmeta)
MT_DECLARE_BELOW(free)

static MT_TLS struct {
    mt_magazine batch; /* slot = pending, n pending, cap = N while on, else 0 */
    int state;         /* cache/thread_state.h */
    void *pending[MT_BATCH_SIZE];
} MT_SELF(tl);

#include "cache/thread_state.h"

MT_SLOW void MT_SELF(start)(void)
{
    MT_SELF(tl).batch = (mt_magazine){MT_SELF(tl).pending, 0, MT_BATCH_SIZE};
    MT_SELF(tl).state = mt_cache_on;
}

/* The batch goes below, oldest first. True if it held anything. */
MT_SLOW bool MT_SELF(flush)(mt_lfunc *free_below)
{
    return mt_magazine_drain(&MT_SELF(tl).batch, SIZE_MAX, free_below) != 0;
}

/* Full batch (it goes below, then p starts the next), a thread not set up
 * yet, or one that has exited (p goes below). */
MT_SLOW void MT_SELF(free_slow)(void *p, mt_lfunc *next)
{
    if (MT_SELF(ready)()) {
        mt_magazine *b = &MT_SELF(tl).batch;
        if (b->n >= b->cap)
            MT_SELF(flush)(next);
        b->slot[b->n++] = p;
        return;
    }
    mt_cache_free_block(p, next);
}

/* Hit: the owner's getmeta, a compare, a store. */
MT_INLINE void *MT_SELF(free)(mt_ctx *ctx, mt_lfunc *next)
{
    if (!MT_BELOW(getmeta)(ctx) || !mt_size_in(ctx->usable, MT_SIZE_HANDLE_LO(MT_SIZE_HANDLE),
                                               MT_SIZE_HANDLE_HI(MT_SIZE_HANDLE)))
        return next(ctx);
    mt_magazine *b = &MT_SELF(tl).batch;
    uint32_t n = b->n;
    if (MT_UNLIKELY(n >= b->cap)) {
        MT_SELF(free_slow)(ctx->ptr, next);
        return NULL;
    }
    MT_SELF(tl).pending[n] = ctx->ptr;
    b->n = n + 1;
    return NULL;
}

MT_INLINE void *MT_SELF(thread_exit)(mt_ctx *ctx, mt_lfunc *next)
{
    MT_SELF(flush)(MT_BELOW(free));
    MT_SELF(tl).batch.cap = 0;
    MT_SELF(tl).state = mt_cache_off;
    return next(ctx);
}

/* malloc_trim: the calling thread's batch goes below first, so the layers
 * below can release what it frees. */
MT_INLINE void *MT_SELF(purge)(mt_ctx *ctx, mt_lfunc *next)
{
    bool any = MT_SELF(flush)(MT_BELOW(free));
    return (next(ctx) || any) ? (void *)1 : NULL;
}

MT_FORWARD_OP(MT_NAME, alloc)
MT_FORWARD_OP(MT_NAME, getmeta)
MT_FORWARD_OP(MT_NAME, resize)
MT_FORWARD_OP(MT_NAME, fork_prepare)
MT_FORWARD_OP(MT_NAME, fork_parent)
MT_FORWARD_OP(MT_NAME, fork_child)

#include "../core/layer_end.h"
#undef MT_BATCH_SIZE

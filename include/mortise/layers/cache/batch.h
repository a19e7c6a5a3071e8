/* mortise/layers/cache/batch.h — many blocks in one request, both ways.
 *
 * A cache's miss would otherwise take its batch from the layer below one
 * alloc at a time, and a locked layer below pays one lock round trip per
 * block (hslab: slab_lk's class lock, 32 per miss). The layer contract has
 * one block per alloc, so the batch travels beside the request, in the
 * calling thread's mt_cache_batch:
 *   the cache (thread_cache) sets `via` to the chain below it (its `next`),
 *     `want` to the extra blocks it has room for, and calls next(ctx) with
 *     ctx->size a whole class;
 *   a layer that can serve many blocks at once (slab_lk) checks that `via`
 *     is its own link function — the cache sits directly above it, so no
 *     layer between them would miss the blocks (a statistics or safety
 *     layer counts and checks per alloc) — serves the request, and leaves
 *     up to `want` more blocks of the same size in `chain` (NULL-terminated
 *     through their first words, `tail` its last block, `got` its length),
 *     all under one lock acquisition, and clears `via`;
 *   the cache clears `via` after the call whatever happened and takes
 *     `chain`. A layer below that does not know the protocol ignores it:
 *     the cache gets `got` = 0 and takes the rest one alloc at a time.
 * Free the same way: the cache sets `via` to its free chain below and
 *   `chain` to the blocks after the one it frees; a layer that recognises
 *   its own link frees that block and a run of the chain under one lock,
 *   leaves the blocks it did not take in `chain` and their count taken in
 *   `got`, and clears `via`.
 * Everything is per thread, so no synchronisation; a request nested in
 * another layer's work never matches `via`.
 */
#ifndef MORTISE_LAYERS_CACHE_BATCH_H
#define MORTISE_LAYERS_CACHE_BATCH_H

#include "../../core/ctx.h"

typedef struct {
    mt_lfunc *via; /* the link function the batch is meant for; NULL: none asked */
    size_t want;   /* extra blocks the cache has room for */
    void *chain;   /* the extra blocks, newest first */
    void *tail;    /* chain's last block */
    size_t got;    /* chain's length */
} mt_cache_batch_req;

static MT_TLS mt_cache_batch_req mt_cache_batch;

#endif

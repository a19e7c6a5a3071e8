/* cond_bypass: a request the predicate accepts (odd sizes) is served by the
 * named lower layer — the page map names it as the block's owner — and one
 * it rejects by the next layer; frees, usable sizes and realloc of both kinds
 * reach their owners; the predicate sees the request (size, alignment) once
 * per allocation. cond_bypass_compile.c (built by CMake with WRONG_TARGET
 * defined) checks that a target above the layer does not compile.
 * model: mmap_heap::segfit_lk(size_handle=[0, 65536]) (lower)
 *          ::segfit_lk(sizeclass=interval, step 64) (upper)
 *          ::cond_bypass(pred=odd_size, target=lower)::custom_socket(prefix=y_) */
#include <mortise/mortise.h>
#include <mortise/os/mmap_heap.h>

#define MT_NAME lower
#define MT_SYNC spinlock
#define MT_SIZE_HANDLE 0, 65536
#include <mortise/layers/segfit_lk.h>

#define MT_NAME upper
#define MT_SYNC spinlock
#define MT_SIZECLASS interval
#define MT_SIZECLASS_STEP 64
#include <mortise/layers/segfit_lk.h>

static unsigned pred_calls;
static size_t pred_last_align;
static inline bool odd_size(const mt_ctx *ctx)
{
    pred_calls++;
    pred_last_align = ctx->align;
    return ctx->size & 1;
}

#define MT_PRED odd_size
#define MT_TARGET lower
#include <mortise/layers/cond_bypass.h>

#define MT_PREFIX y_
#include <mortise/sockets/custom_socket.h>

MT_COMPOSE(mmap_heap, lower, upper, cond_bypass, custom_socket)

#include "../../common/addons.h"

static uintptr_t owner(const void *p) { return mt_entry_owner(mt_pagemap_get(p)); }

int main(void)
{
    CHECK((uintptr_t)lower_id != (uintptr_t)upper_id);
    unsigned calls = pred_calls;

    /* predicate true: the lower layer serves it (log2b: 33 → 48) */
    void *odd = y_malloc(33);
    CHECK(odd && owner(odd) == (uintptr_t)lower_id);
    CHECK(y_malloc_usable_size(odd) == 48);
    /* predicate false: the next layer (interval 64: 32 → 64) */
    void *even = y_malloc(32);
    CHECK(even && owner(even) == (uintptr_t)upper_id);
    CHECK(y_malloc_usable_size(even) == 64);
    CHECK(pred_calls == calls + 2);

    /* the predicate sees the whole request: an aligned odd request */
    void *al = y_aligned_alloc(128, 301);
    CHECK(al && ((uintptr_t)al & 127) == 0 && owner(al) == (uintptr_t)lower_id);
    CHECK(pred_last_align == 128);

    /* sizes the lower layer does not take fall through to the OS layer below
     * it, never to the upper layer */
    void *huge = y_malloc(100001);
    CHECK(huge && owner(huge) != (uintptr_t)lower_id && owner(huge) != (uintptr_t)upper_id);

    /* frees reach the owners: the blocks come back from their free lists */
    size_t lc = lower_span_of(odd)->cls, uc = upper_span_of(even)->cls;
    y_free(odd);
    y_free(even);
    CHECK(lower_state.cls[lc].free == odd);
    CHECK(upper_state.cls[uc].free == even);
    CHECK(y_malloc(33) == odd && y_malloc(40) == even);

    /* realloc moves a block between owners as the new size decides */
    char *moved = y_realloc(even, 1001); /* odd and beyond its class: lower */
    CHECK(moved && owner(moved) == (uintptr_t)lower_id);
    moved = y_realloc(moved, 4000); /* even: upper */
    CHECK(moved && owner(moved) == (uintptr_t)upper_id);
    y_free(moved);
    y_free(odd);
    y_free(al);
    y_free(huge);
    return check_report("cond_bypass_test");
}

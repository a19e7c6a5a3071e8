/* aligned — round every request up to an alignment.
 *
 * Serves: nothing itself; rewrites alloc requests in size_handle so that the
 *   size is a multiple of `alignment` and the block is aligned to it, then
 *   forwards. Useful under layers or programs that want every block on a
 *   cache line (alignment=64) to avoid false sharing.
 * Slots: alignment=BYTES → MT_ALIGNMENT (64, a power of two);
 *        size_handle=[lo, hi] → MT_SIZE_HANDLE (0, SIZE_MAX).
 * Time: O(1): a range test, a round-up of the size and a raised alignment
 *   per alloc; every other operation forwarded.
 * Space: up to alignment-1 bytes per block.
 * Thread safety: stateless. Fails: never itself.
 * Example: mmap_heap::segfit_lk::aligned(alignment=64)::malloc_socket
 */
/* The layer's descriptor (core/describe.h): the data tools/describe_layers.py
 * reads and core/layer_end.h checks the slots against. */
#define MT_DESCRIPTOR_aligned(LAYER, SLOT)                      \
    LAYER(aligned, addon, 0, (), ())                            \
    MT_OPS(SLOT, alloc)                                         \
    SLOT(alignment, MT_ALIGNMENT, BYTES, 64, (1, SIZE_MAX), ()) \
    MT_SLOT_SIZE_HANDLE(SLOT, 0, SIZE_MAX)
#ifndef MT_DESCRIBE /* describe mode reads the descriptor alone */
#include "../core/layer.h"

#ifdef MT_NAME /* another instance name: the names below become its own */
#include "../names/aligned.h"
#else
#define MT_NAME aligned
#endif
#ifndef MT_ALIGNMENT
#define MT_ALIGNMENT 64
#endif
#ifndef MT_SIZE_HANDLE
#define MT_SIZE_HANDLE 0, SIZE_MAX
#endif
_Static_assert(mt_is_pow2_const(MT_ALIGNMENT), "aligned: alignment must be a power of two");

#define MT_IMPLEMENTS_alloc
MT_INLINE void *aligned_alloc(mt_ctx *ctx, mt_lfunc *next)
{
    if (mt_size_in(ctx->size, MT_SIZE_HANDLE_LO(MT_SIZE_HANDLE), MT_SIZE_HANDLE_HI(MT_SIZE_HANDLE))) {
        ctx->size = mt_align_up(ctx->size, MT_ALIGNMENT);
        if (ctx->align < MT_ALIGNMENT)
            ctx->align = MT_ALIGNMENT;
    }
    return next(ctx);
}

#define MT_DESCRIPTOR MT_DESCRIPTOR_aligned
#include "../core/layer_end.h"
/* Forget this instance's slots: the next instance starts from the defaults. */
#undef MT_SIZE_HANDLE
#undef MT_ALIGNMENT
#ifdef MT_NAMES_aligned
#include "../names/aligned.h" /* forget them */
#endif
#endif /* MT_DESCRIBE */

/* tail_chksum — a check word right after every block.       [model: tail_chksum]
 *
 * Serves: nothing itself; every allocation goes below 16 bytes larger and
 *   gets, byte-precisely after the *requested* size, an 8-byte check word
 *   (the chksum policy's word of the block's address and size), and in the
 *   last 8 bytes of the usable block the requested size, xor-encoded with
 *   the per-process key and the address. free, realloc (getmeta + resize)
 *   and malloc_usable_size (getmeta) verify both before anything else:
 *   a write of even one byte past the requested size changes the check
 *   word (heap-buffer-overflow), also after a shrinking realloc (resize
 *   moves the check word to the new size) and on aligned blocks (the block
 *   is the one below, aligned as asked). getmeta reports the requested size
 *   as usable (so malloc_usable_size is the requested size, and programs
 *   that fill their usable size stay inside it); it clears the class hint.
 *   A forged size word decodes to a size whose check word is elsewhere and
 *   wrong (the check word depends on the size), or out of range: reported.
 *   On free the check word is flipped to a "freed" value: a second free of
 *   the block before the layer below reuses or overwrites it is reported as
 *   double-free; once the layer below wrote over the size word (tlsf_glk's
 *   boundary tag) as heap-buffer-overflow of size 0, and the block is left
 *   alone (a block whose size word is destroyed is never freed below).
 * Invalid pointers: the socket's owner lookup decides pointers nobody owns
 *   (invalid-free, layer "pagemap"). For an owned pointer the layer reads
 *   only what cannot fault: nothing for a pointer not 16-aligned (not a
 *   block start: invalid-free); the size word only if it lies in the same
 *   (owned, so mapped) granule or in a page the page map or the kernel
 *   (mincore) says is mapped. A pointer inside a sealed block is found by
 *   looking back for the enclosing block (16-byte steps back to the
 *   granule's start, at most 256, then the starts of the 64 granules
 *   before): invalid-free. Not found, the size word was destroyed by an
 *   overflow: heap-buffer-overflow of size 0.
 * Reports (core/report.h), e.g.
 *   mortise: heap-buffer-overflow at 0x7f12a0 size 24 (tail_chksum, free)
 *   classes: heap-buffer-overflow (size 0 when the size word is destroyed
 *   too), double-free, invalid-free; operations free, getmeta, realloc.
 *   Each bug is reported once: after a report in getmeta the block is
 *   resealed (default, callback) or condemned (tolerate: its later free
 *   leaks it silently).
 * Slots (model language → macro, default):
 *   chksum=magic|xor|crc32 → MT_CHKSUM (xor): policy/chksum/.
 *   err_handle=default|fatal|tolerate|callback → MT_ERR_HANDLE (default):
 *     policy/err/; after an overflow default and callback free the block,
 *     tolerate leaks it, fatal aborts.
 * Needs from below: getmeta answering the usable size of every block it
 *   handed out (every layer does), resize optional.
 * Place it: directly under the socket, above any cache (thread_cache,
 *   tarrcache, ...): a cache above it would hand out blocks without a new
 *   check word. With delayed_free, above it: delayed_free's block (header
 *   and all) is then the block this layer seals, overflows are reported at
 *   the free itself with the program's address, and the quarantine keeps
 *   the checked block. A safety layer below reports the blocks its getmeta
 *   refuses (double, invalid frees), so this layer then stays silent about
 *   them and leaves them alone: each bug is reported once.
 * Does not detect: reads past the end; writes that skip the check word and
 *   the size word (non-linear); overflows into the slack past the size word
 *   that the lower layer gave as usable but the program never asked for are
 *   caught (the check word is right after the requested size), but a
 *   double free after the layer below reused the block is not.
 * Time: alloc = one getmeta below (a page-map lookup) + two stores; free
 *   and getmeta = one getmeta below, two loads, the policy's check and one
 *   store (a compare per granule edge); resize (realloc) the same, in place
 *   and inline while the usable size below holds the new size and both
 *   words, else out of line; the key is loaded once per operation; reports
 *   out of line. wfslabs' fast path: 148.5 instructions per malloc+free pair
 *   with slab_wf's link_check (142.5 without)
 *   against wfslab's 52 (docs/bench.md). Space: 16 bytes per block (check
 *   word and size word), plus the rounding of the layer below.
 * Thread safety: no state but the per-process key; all operations on any
 *   thread. No locks, nothing at fork. Check: forwarded — the layer keeps
 *   no record of its blocks to walk; each block's words are verified on
 *   its free, realloc and getmeta.
 * Fails: only when the layer below fails (ctx->err from it).
 * Example (wfslabs: wfslab + tail_chksum(chksum=xor, err_handle=default)):
 *     #include <mortise/layers/slab_wf.h>          // ... wfslab's layers
 *     #define MT_CHKSUM     xor
 *     #define MT_ERR_HANDLE default
 *     #include <mortise/layers/tail_chksum.h>
 *     #include <mortise/sockets/malloc_socket.h>
 *     MT_COMPOSE(mmap_heap, segfit_lf, slab_wf, tail_chksum, malloc_socket)
 *   With delayed_free too (tlsfccsd): tail_chksum above delayed_free, e.g.
 *     MT_COMPOSE(brk_heap, tlsf_glk, delayed_free, tail_chksum, malloc_socket)
 */
#include "../core/layer.h"

#ifndef MT_NAME
#define MT_NAME tail_chksum
#endif
#ifndef MT_CHKSUM
#define MT_CHKSUM xor
#endif
#ifndef MT_ERR_HANDLE
#define MT_ERR_HANDLE default
#endif

/* A safety layer below (included before this one) reports every block its
 * getmeta refuses; then a refusal needs no second report here. */
#if defined(MT_CHAIN_REPORTS_INVALID)
enum { MT_SELF(below_reports) = 1 };
#else
enum { MT_SELF(below_reports) = 0 };
#endif

#include "safety/common.h"

#ifndef MORTISE_LAYERS_TAIL_CHKSUM_ONCE
#define MORTISE_LAYERS_TAIL_CHKSUM_ONCE
#define MT_TAIL_WORD ((size_t)8)      /* the check word */
#define MT_TAIL_OVERHEAD ((size_t)16) /* check word + size word */
#if defined(MT_CHAIN_REPORTS_INVALID) /* above another safety layer: it reports our sizes less these */
MT_UNUSED static const size_t mt_safety_added_above = MT_TAIL_OVERHEAD;
#endif
#define MT_TAIL_FREED 0x46524545d00dfeedull
#define MT_TAIL_CONDEMNED 0x434f4e44454d4e21ull
#define MT_TAIL_LOOKBACK 256          /* steps of 16 bytes when looking for an enclosing block */
#define MT_TAIL_LOOKBACK_GRANULES 64  /* granule starts looked at after those (4 MiB) */
#define MT_TAIL_REFUSED (SIZE_MAX - 1) /* vouch(): the safety layer below refused the block */
/* What examine() finds: intact, not a block start, check word overwritten,
 * size word overwritten too (size unknown), freed, condemned. */
enum {
    MT_TAIL_OK, MT_TAIL_INVALID, MT_TAIL_OVERFLOW, MT_TAIL_WRECKED, MT_TAIL_FREED_BLOCK, MT_TAIL_CONDEMNED_BLOCK,
    MT_TAIL_REPORTED_BELOW /* the safety layer below refused (and reported) it */
};
#endif

MT_DECLARE_BELOW(getmeta)

/* The size word's mask: the key and the address, so a size copied from
 * another block or written without the key decodes to nonsense. Each
 * operation loads the key once and passes it on (see policy/chksum). */
MT_INLINE uint64_t MT_SELF(size_mask)(uint64_t key, const void *p)
{
    return key ^ ((uint64_t)(uintptr_t)p << 12);
}

MT_INLINE uint64_t MT_SELF(check_word)(uint64_t key, const void *p, size_t size)
{
    return MT_CHKSUM_FN(MT_CHKSUM, keyed)(key, (uintptr_t)p, size);
}

/* Write the check word after `size` bytes and the size word at the end. */
MT_INLINE void MT_SELF(seal)(uint64_t key, char *p, size_t size, size_t usable)
{
    mt_safety_store(p + size, MT_SELF(check_word)(key, p, size));
    mt_safety_store(p + usable - MT_TAIL_WORD, size ^ MT_SELF(size_mask)(key, p));
}

/* Usable size below of a block this layer does not yet know (0 if none). */
MT_INLINE size_t MT_SELF(usable_below)(void *p)
{
    mt_ctx q = mt_ctx_for_alloc(0, 1);
    mt_ctx_route(&q, p);
    return MT_BELOW(getmeta)(&q) ? q.usable : 0;
}

/* The sealed block's requested size, if p is a sealed block whose both
 * words are intact and lie in p's granule (the common case, inline);
 * SIZE_MAX sends the caller to its slow path. `usable` is from below, `key`
 * the fixed key (0, not yet fixed: slow path). */
MT_INLINE size_t MT_SELF(quick_size)(uint64_t key, const char *p, size_t usable)
{
    /* one compare for usable < 16 and usable > a granule (the owner's
     * answer for a pointer inside a block may be anything; a block in one
     * granule is no larger) */
    if (MT_UNLIKELY(usable - MT_TAIL_OVERHEAD > MT_GRANULE - MT_TAIL_OVERHEAD || !key ||
                    (((uintptr_t)p & (MT_MIN_ALIGN - 1)) != 0) ||
                    (((uintptr_t)p ^ ((uintptr_t)p + usable - 1)) >> MT_GRANULE_SHIFT) != 0))
        return SIZE_MAX;
    size_t size = mt_safety_load(p + usable - MT_TAIL_WORD) ^ MT_SELF(size_mask)(key, p);
    if (MT_UNLIKELY(size > usable - MT_TAIL_OVERHEAD))
        return SIZE_MAX;
    if (MT_UNLIKELY(mt_safety_load(p + size) != MT_SELF(check_word)(key, p, size)))
        return SIZE_MAX;
    return size;
}

/* Is p a sealed (or freed or condemned) block start of usable bytes? *size
 * gets its size; reads only what mt_safety_word_readable allows. */
MT_SLOW int MT_SELF(examine)(char *p, size_t usable, size_t *size)
{
    *size = 0;
    if (usable < MT_TAIL_OVERHEAD || usable > MT_MAX_REQUEST ||
        !mt_safety_word_readable(p, p + usable - MT_TAIL_WORD))
        return MT_TAIL_INVALID;
    uint64_t key = mt_chksum_key();
    size_t s = mt_safety_load(p + usable - MT_TAIL_WORD) ^ MT_SELF(size_mask)(key, p);
    if (s > usable - MT_TAIL_OVERHEAD || !mt_safety_word_readable(p, p + s))
        return MT_TAIL_WRECKED;
    *size = s;
    uint64_t want = MT_SELF(check_word)(key, p, s), got = mt_safety_load(p + s);
    if (got == want)
        return MT_TAIL_OK;
    if (got == (want ^ MT_TAIL_FREED))
        return MT_TAIL_FREED_BLOCK;
    if (got == (want ^ MT_TAIL_CONDEMNED))
        return MT_TAIL_CONDEMNED_BLOCK;
    return MT_TAIL_OVERFLOW;
}

/* Is b the start of a sealed (or freed or condemned) block reaching past p?
 * getmeta below may read in front of b (tlsf_glk's boundary tag): only
 * asked where that memory is mapped. */
MT_SLOW bool MT_SELF(sealed_over)(uintptr_t b, size_t usable, uintptr_t p)
{
    size_t size;
    if (usable > MT_MAX_REQUEST || b + usable <= p)
        return false;
    int state = MT_SELF(examine)((char *)b, usable, &size);
    return state != MT_TAIL_INVALID && state != MT_TAIL_WRECKED;
}

MT_SLOW bool MT_SELF(encloses)(uintptr_t b, uintptr_t p)
{
    mt_ctx q = mt_ctx_for_alloc(0, 1);
    mt_ctx_route(&q, (void *)b);
    if (!q.owner || ((b & (MT_GRANULE - 1)) < 64 && !mt_safety_page_mapped(b - 64)))
        return false;
    return MT_BELOW(getmeta)(&q) && MT_SELF(sealed_over)(b, q.usable, p);
}

/* Does a sealed block start before p and reach past it? Then p points
 * inside it. Looked for in 16-byte steps back to p's granule's start (at
 * most MT_TAIL_LOOKBACK), with the usable size the owner gave for p (a
 * slab's blocks all have it), that size plus the distance (an owner that
 * answers the room from p to the block's end), and the owner's answer for
 * the candidate,
 * then at the starts of the MT_TAIL_LOOKBACK_GRANULES granules before
 * (large blocks start on one). Only on the error path. */
MT_SLOW bool MT_SELF(inside_block)(char *p, size_t usable)
{
    uintptr_t at = (uintptr_t)p, base = mt_align_down_ptr(at, MT_GRANULE);
    for (size_t step = 1; step <= MT_TAIL_LOOKBACK && at - step * MT_MIN_ALIGN >= base; step++) {
        uintptr_t b = at - step * MT_MIN_ALIGN;
        if (MT_SELF(sealed_over)(b, usable, at) || MT_SELF(sealed_over)(b, usable + (at - b), at) ||
            MT_SELF(encloses)(b, at))
            return true;
    }
    for (size_t k = 0; k < MT_TAIL_LOOKBACK_GRANULES && base >= k * MT_GRANULE; k++) {
        uintptr_t b = base - k * MT_GRANULE;
        if (b != at && (k > 0 || at - base > MT_TAIL_LOOKBACK * MT_MIN_ALIGN) && MT_SELF(encloses)(b, at))
            return true;
    }
    return false;
}

/* Classify the block at ctx->ptr (routed): MT_TAIL_* and its size. */
MT_SLOW int MT_SELF(inspect)(const mt_ctx *ctx, size_t *size, size_t *usable)
{
    char *p = ctx->ptr;
    mt_ctx q = *ctx;
    *size = 0;
    *usable = 0;
    if (((uintptr_t)p & (MT_MIN_ALIGN - 1)) && !MT_SELF(below_reports))
        return MT_TAIL_INVALID;
    if (!MT_BELOW(getmeta)(&q))
        return MT_SELF(below_reports) ? MT_TAIL_REPORTED_BELOW : MT_TAIL_INVALID;
    *usable = q.usable;
    int state = MT_SELF(examine)(p, q.usable, size);
    /* (below a safety layer getmeta vouched for p: no pointer inside a block) */
    if (state == MT_TAIL_WRECKED && !MT_SELF(below_reports) && MT_SELF(inside_block)(p, q.usable))
        return MT_TAIL_INVALID;
    return state;
}

/* Ask `next` (alloc, or the owner's resize) for size bytes and both words,
 * and seal what it gives. The key is loaded after the layers below ran (the
 * caller fixed it): kept across them it would cost a saved register on
 * every call, their slow paths being calls. */
MT_INLINE void *MT_SELF(sealed_from)(mt_ctx *ctx, mt_lfunc *next, size_t size)
{
    ctx->size = size + MT_TAIL_OVERHEAD;
    char *p = next(ctx);
    ctx->size = size;
    if (MT_UNLIKELY(!p))
        return NULL;
    size_t usable = MT_SELF(usable_below)(p);
    if (MT_UNLIKELY(usable < size + MT_TAIL_OVERHEAD)) /* a layer below without getmeta */
        usable = size + MT_TAIL_OVERHEAD;
    MT_SELF(seal)(mt_chksum_key_if_set(), p, size, usable);
    return p;
}

#define MT_IMPLEMENTS_alloc
MT_INLINE void *MT_SELF(alloc)(mt_ctx *ctx, mt_lfunc *next)
{
    if (MT_UNLIKELY(!mt_chksum_key_if_set()))
        (void)mt_chksum_key_init();
    return MT_SELF(sealed_from)(ctx, next, ctx->size);
}

/* The inline check of free, getmeta and resize: the requested size of the
 * intact block at ctx->ptr (routed) and its usable size below; SIZE_MAX
 * for the slow path; MT_TAIL_REFUSED when the safety layer below refused
 * (and reported) it: asking again would report it twice. */
MT_INLINE size_t MT_SELF(vouch)(const mt_ctx *ctx, uint64_t key, size_t *usable)
{
    mt_ctx q = *ctx;
    /* not 16-aligned: no block start, and the owner's getmeta is not asked
     * (tlsf_glk's reads a boundary tag in front of the pointer) */
    bool aligned = ((uintptr_t)ctx->ptr & (MT_MIN_ALIGN - 1)) == 0;
    void *owned = aligned ? MT_BELOW(getmeta)(&q) : NULL;
    if (MT_SELF(below_reports) && MT_UNLIKELY(!owned) && aligned)
        return MT_TAIL_REFUSED;
    *usable = q.usable;
    return owned ? MT_SELF(quick_size)(key, ctx->ptr, q.usable) : SIZE_MAX;
}

/* Everything free's inline check does not vouch for. */
MT_SLOW void MT_SELF(free_slow)(mt_ctx *ctx, mt_lfunc *next)
{
    size_t size, usable;
    char *p = ctx->ptr;
    switch (MT_SELF(inspect)(ctx, &size, &usable)) {
    case MT_TAIL_OK:
        break;
    case MT_TAIL_INVALID:
        MT_SELF(raise)(MORTISE_BUG_INVALID_FREE, p, 0, "free");
        return;
    case MT_TAIL_FREED_BLOCK:
        MT_SELF(raise)(MORTISE_BUG_DOUBLE_FREE, p, size, "free");
        return;
    case MT_TAIL_CONDEMNED_BLOCK:
    case MT_TAIL_REPORTED_BELOW:
        return; /* reported before; left alone */
    case MT_TAIL_WRECKED:
        /* never freed below, whatever the policy: a destroyed size word is
         * also what a second free looks like once the layer below reused
         * the block's last word (tlsf_glk's boundary tag) */
        MT_SELF(raise)(MORTISE_BUG_HEAP_BUFFER_OVERFLOW, p, 0, "free");
        return;
    default:
        MT_SELF(raise)(MORTISE_BUG_HEAP_BUFFER_OVERFLOW, p, size, "free");
        if (MT_ERR_LEAKS(MT_ERR_HANDLE))
            return;
        break;
    }
    mt_safety_store(p + size, MT_SELF(check_word)(mt_chksum_key(), p, size) ^ MT_TAIL_FREED);
    next(ctx);
}

#define MT_IMPLEMENTS_free
MT_INLINE void *MT_SELF(free)(mt_ctx *ctx, mt_lfunc *next)
{
    char *p = ctx->ptr;
    uint64_t key = mt_chksum_key_if_set();
    size_t usable;
    if (MT_SELF(below_reports))
        mt_safety_op_above = "free";
    size_t size = MT_SELF(vouch)(ctx, key, &usable);
    if (MT_UNLIKELY(size >= MT_TAIL_REFUSED)) {
        if (size == SIZE_MAX)
            MT_COLD_CALL(ctx, copy, (MT_SELF(free_slow)(&copy, next), 0));
        return NULL;
    }
    mt_safety_store(p + size, MT_SELF(check_word)(key, p, size) ^ MT_TAIL_FREED);
    return next(ctx);
}

/* Everything getmeta's inline check does not vouch for. */
MT_SLOW void *MT_SELF(getmeta_slow)(mt_ctx *ctx)
{
    size_t size, usable;
    char *p = ctx->ptr;
    switch (MT_SELF(inspect)(ctx, &size, &usable)) {
    case MT_TAIL_OK:
    case MT_TAIL_CONDEMNED_BLOCK:
        break;
    case MT_TAIL_INVALID:
        MT_SELF(raise)(MORTISE_BUG_INVALID_FREE, p, 0, "getmeta");
        return NULL;
    case MT_TAIL_REPORTED_BELOW:
        return NULL;
    case MT_TAIL_FREED_BLOCK:
        MT_SELF(raise)(MORTISE_BUG_DOUBLE_FREE, p, size, "getmeta");
        return NULL;
    case MT_TAIL_WRECKED:
        MT_SELF(raise)(MORTISE_BUG_HEAP_BUFFER_OVERFLOW, p, 0, "getmeta");
        return NULL;
    default:
        MT_SELF(raise)(MORTISE_BUG_HEAP_BUFFER_OVERFLOW, p, size, "getmeta");
        /* reported once: reseal, or condemn so that free leaks it quietly */
        mt_safety_store(p + size, MT_SELF(check_word)(mt_chksum_key(), p, size) ^
                                      (MT_ERR_LEAKS(MT_ERR_HANDLE) ? MT_TAIL_CONDEMNED : 0));
        break;
    }
    ctx->usable = size;
    ctx->szcls_key = 0;
    return p;
}

#define MT_IMPLEMENTS_getmeta
MT_INLINE void *MT_SELF(getmeta)(mt_ctx *ctx, mt_lfunc *next)
{
    uint64_t key = mt_chksum_key_if_set();
    size_t usable;
    (void)next; /* the same chain as MT_BELOW(getmeta) */
    if (MT_SELF(below_reports))
        mt_safety_op_above = NULL;
    size_t size = MT_SELF(vouch)(ctx, key, &usable);
    if (MT_UNLIKELY(size >= MT_TAIL_REFUSED))
        return size == SIZE_MAX ? MT_COLD_GETMETA(ctx, copy, MT_SELF(getmeta_slow)(&copy)) : NULL;
    ctx->usable = size;
    ctx->szcls_key = 0;
    return ctx->ptr;
}

/* realloc: the socket asked getmeta first (which verified the block), so a
 * block that is not intact here is one getmeta reported: let the socket
 * move it (its free then leaks a condemned block). */
MT_SLOW void *MT_SELF(resize_slow)(mt_ctx *ctx, mt_lfunc *next)
{
    size_t size, usable, want = ctx->size;
    char *p = ctx->ptr;
    if (MT_SELF(below_reports))
        mt_safety_op_above = "realloc";
    if (MT_SELF(inspect)(ctx, &size, &usable) != MT_TAIL_OK)
        return NULL;
    if (want + MT_TAIL_OVERHEAD <= usable) { /* fits: the check word moves */
        MT_SELF(seal)(mt_chksum_key(), p, want, usable);
        return p;
    }
    return MT_SELF(sealed_from)(ctx, next, want);
}

/* Inline: an intact block whose usable size below still holds the new size
 * and both words is resealed in place, as many times as the program grows
 * or shrinks it within that size (a realloc-heavy program does little
 * else); an intact one too small goes to its owner's resize (moving is the
 * socket's); everything else the slow way. */
#define MT_IMPLEMENTS_resize
MT_INLINE void *MT_SELF(resize)(mt_ctx *ctx, mt_lfunc *next)
{
    char *p = ctx->ptr;
    size_t want = ctx->size, usable;
    uint64_t key = mt_chksum_key_if_set();
    if (MT_SELF(below_reports))
        mt_safety_op_above = "realloc";
    size_t size = MT_SELF(vouch)(ctx, key, &usable);
    if (MT_UNLIKELY(size >= MT_TAIL_REFUSED))
        return size == SIZE_MAX ? MT_COLD_CALL(ctx, copy, MT_SELF(resize_slow)(&copy, next)) : NULL;
    if (want > usable - MT_TAIL_OVERHEAD)
        return MT_SELF(sealed_from)(ctx, next, want);
    MT_SELF(seal)(key, p, want, usable);
    return p;
}

#include "../core/layer_end.h"

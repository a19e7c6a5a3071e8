/* delayed_free — a checked header and a per-thread quarantine.
 *
 * Serves: nothing itself; every allocation goes below with a 16-byte header
 *   in front of the block the program gets (p):
 *     p-16  size word: the requested size and log2 of the header offset,
 *           xor-masked with the per-process key and the header's address;
 *     p-8   state word: the chksum policy's word of the header's address,
 *           the size word and the block's state (live, quarantined, freed),
 *   so the state word vouches for the size word and says "quarantined" or
 *   "freed" for a block that was given back. Aligned requests get the
 *   block below aligned as asked and p at the first aligned address past
 *   the header. The block has at least 16 bytes (the pattern is written
 *   16 bytes at a time); the bytes past a smaller request hold a pattern
 *   checked on free.
 *   free checks the header and puts the block at the end of the calling
 *   thread's FIFO quarantine instead of freeing it: the state word becomes
 *   "quarantined", the block is filled with a pattern (0xdf) — all of it up
 *   to delayed_fill bytes, else its first delayed_fill - 64 bytes and its
 *   last 64 — and its pointer goes into the thread's ring (a block from the
 *   layer below, outside the quarantined blocks). Once the quarantine
 *   holds delayed_size bytes (header and block), the oldest blocks leave
 *   it in one batch, down to delayed_size - MT_DELAYED_BATCH bytes: for
 *   each, the ring slot and the header are checked, the pattern is
 *   verified, the state word becomes "freed" and the block is freed
 *   below. Blocks larger than delayed_size count 32 bytes against it and
 *   in full against MT_DELAYED_LARGE (below): while the large blocks held
 *   would exceed it the oldest blocks leave (one at a time); a block larger than
 *   MT_DELAYED_LARGE itself is not quarantined (checked, marked freed,
 *   freed).
 *   getmeta reports the requested size (from the header, without asking
 *   below) and clears the class hint; alloc hands that size back with the
 *   block (core/ctx.h's usable-size hint, for tail_chksum above); resize keeps the block when the
 *   block below holds the new size, else asks the layer below to resize
 *   it, and rewrites the header.
 * Detects (core/report.h; layer delayed_free):
 *   double-free          free (or realloc, malloc_usable_size: getmeta) of
 *                        a quarantined block, or of a freed one whose
 *                        header the layer below has not overwritten yet;
 *   write-after-free     the pattern of a block leaving the quarantine
 *                        (the bytes delayed_fill covers, the first 16
 *                        included) changed (operation evict; the block is
 *                        freed below unless err_handle leaks: tolerate,
 *                        fatal);
 *   corrupted-metadata   on eviction, a quarantined block's header no
 *                        longer says "quarantined" (a stray write into it),
 *                        or a ring slot names no owned, readable block (a
 *                        stray write into the ring): the rest of the
 *                        quarantine is dropped (leaked), never followed;
 *   heap-buffer-underflow the state word does not match but the size word
 *                        still fits the block below: a write in front of
 *                        the block (the block is left alone);
 *   heap-buffer-overflow a block of fewer than 16 bytes written past its
 *                        size (the pattern up to 16 bytes);
 *   invalid-free         a pointer that is not a live block start: not
 *                        16-aligned (nothing is read), a header that would
 *                        lie in memory the page map and the kernel say is
 *                        not mapped, or a header that is not ours (a
 *                        pointer inside a block). The socket's owner
 *                        lookup reports pointers nobody owns ("pagemap").
 * Aliases (the paper's §4.1 spellings; docs/mortise.md, "Aliases"):
 *   delayed for this layer, chk_sum for the slot chksum (its descriptor).
 * Slots (model language → macro, default):
 *   chksum=magic|xor|crc32 → MT_CHKSUM (magic): the state word's policy.
 *   err_handle=default|fatal|tolerate|callback → MT_ERR_HANDLE (default).
 *   delayed_size=BYTES → MT_DELAYED_SIZE (64KB): each thread's quarantine
 *     bound, in bytes of quarantined blocks with their headers.
 *   node_xor=0|1 → MT_NODE_XOR (1): the ring's slots are xor-encoded with
 *     the per-process key, so a stray write into the ring cannot name a
 *     block to free (with 0 they are plain pointers: a forged slot is
 *     caught only if it does not name a quarantined block). Every slot is
 *     checked against the page map and the block's header before the
 *     block is touched.
 *   delayed_fill=BYTES → MT_DELAYED_FILL_SIZE (192; at least 80): the bytes
 *     of a quarantined block that carry the pattern: all of a block up to
 *     that size; of a larger one the first BYTES - 64
 *     and the last 64, so a free costs the same for every size above it.
 *     SIZE_MAX: the whole block, every byte freed filled and verified.
 *   Tuning (not a model slot): MT_DELAYED_LARGE (8 × delayed_size: 512 KiB
 *     for 64 KiB), each thread's bound on the bytes of blocks larger than
 *     delayed_size held in quarantine (the whole blocks stay resident), so
 *     a write after free at the start or end of a large block — where a
 *     large-block trunk below keeps its free-list links — is found at
 *     eviction; 0 frees them at once. MT_DELAYED_BATCH (delayed_size /
 *     64): how far below delayed_size a full quarantine is emptied, so a
 *     block stays quarantined for at least delayed_size - MT_DELAYED_BATCH
 *     bytes of later frees (header and block).
 * Place it: above any cache; directly under the socket, or under
 *   tail_chksum when both are composed (tail_chksum then seals this layer's
 *   block and reports overflows at the free itself; this layer reports the
 *   double, invalid and underflowing frees that reach its getmeta).
 * Does not detect: reads after free; writes after free to a block that has
 *   left the quarantine (the layer below may reuse it); a double free after
 *   the layer below reused the block; writes past the end of a block of 16
 *   bytes or more (compose tail_chksum below for those); writes after free
 *   into the middle of a block larger than delayed_fill (from its byte
 *   delayed_fill - 64 to 64 bytes before its end), which the pattern does
 *   not cover.
 * Time: alloc = the layer below + two stores (the layer below asked quick,
 *   core/ctx.h's MT_ALLOC_QUICK: a miss and the process's first alloc are
 *   repeated out of line, so over a layer that answers quick, such as
 *   thread_cache, the inline alloc calls nothing; a quick request from
 *   above gets NULL for a miss); free = two loads and the
 *   policy's check, the fill (word stores, at most delayed_fill bytes) and
 *   the ring slot, inline with the key loaded once per free and no
 *   register saved; every MT_DELAYED_BATCH bytes of frees one call
 *   (evict_batch) evicts the oldest blocks in a loop: per block a page-map
 *   lookup and the header check, the pattern check (at most delayed_fill
 *   bytes) and a free below, and a prefetch of the next block's header
 *   (cold by then); nothing else touches a quarantined block. Out of line
 *   besides: a thread's first free, blocks under 16 bytes or over
 *   delayed_size (enqueue_large), the process's first header, and
 *   reports (free's inline test of a block with the plain 16-byte header
 *   is one compare of the size word; an aligned block's takes a second).
 *   getmeta asked by tail_chksum's inline check (MT_SAFETY_QUICK) answers
 *   only what its own inline check vouches for, NULL (no report) for the
 *   rest. Per freed block the fill writes delayed_fill bytes and the
 *   eviction reads the header and the pattern again, between delayed_size -
 *   MT_DELAYED_BATCH and delayed_size bytes of frees later, when they have
 *   usually left L1.
 * Space: 16 bytes per block (plus up to the alignment for aligned
 *   requests), a 16-byte minimum block; up to delayed_size bytes per
 *   thread held in quarantine plus MT_DELAYED_LARGE in large blocks, and its ring of delayed_size / 32 slots of
 *   8 bytes (16 KiB for 64 KiB; at most 65536 slots, the oldest blocks
 *   leave earlier when it is full) from the layer below; 40 bytes of TLS.
 * Thread safety: the quarantine is per thread (initial-exec TLS), no lock.
 *   A thread's first quarantined free takes the ring from below and runs
 *   mt_thread_attach(); at thread exit (thread_exit: the ring goes back
 *   below) and on purge (malloc_trim) the calling thread's quarantine is
 *   verified and drained. Fork: nothing to take; the child
 *   keeps the forking thread's quarantine.
 * Fails: only when the layer below fails (ctx->err from it); an alignment
 *   whose header offset would overflow the request is ENOMEM. A thread
 *   whose ring the layer below cannot give frees its blocks at once
 *   (checked and marked freed, not quarantined).
 * Example (hslabd: hslab + delayed_free(chksum=magic, node_xor=1,
 *          delayed_size=64KB, err_handle=fatal)):
 *     #include <mortise/layers/thread_cache.h>     // ... hslab's layers
 *     #define MT_CHKSUM       magic
 *     #define MT_NODE_XOR     1
 *     #define MT_DELAYED_SIZE ((size_t)64 << 10)
 *     #define MT_ERR_HANDLE   fatal
 *     #include <mortise/layers/delayed_free.h>
 *     #include <mortise/sockets/malloc_socket.h>
 *     MT_COMPOSE(mmap_heap, buddy_glk, slab_lk, thread_cache, delayed_free, malloc_socket)
 *   With tail_chksum (tlsfccsd): ... tlsf_glk, delayed_free, tail_chksum, malloc_socket
 */
/* The layer's descriptor (core/describe.h): the data tools/describe_layers.py
 * reads and core/layer_end.h checks the slots against. */
#define MT_DESCRIPTOR_delayed_free(LAYER, SLOT)                                                \
    LAYER(delayed_free, addon, MT_TRAIT_REPORTS_INVALID, (delayed), ())                        \
    MT_OPS(SLOT, alloc, free, getmeta, resize, thread_exit, purge)                             \
    SLOT(chksum, MT_CHKSUM, CHOICE, magic, (magic, xor, crc32), (chk_sum))                     \
    SLOT(err_handle, MT_ERR_HANDLE, CHOICE, default, (default, fatal, tolerate, callback), ()) \
    SLOT(delayed_size, MT_DELAYED_SIZE, BYTES, 64 << 10, (1, SIZE_MAX), ())                    \
    SLOT(node_xor, MT_NODE_XOR, BOOL, 1, (0, 1), ())                                           \
    SLOT(delayed_fill, MT_DELAYED_FILL_SIZE, BYTES, 192, (80, SIZE_MAX), ())
#ifndef MT_DESCRIBE /* describe mode reads the descriptor alone */
#include "../core/layer.h"

#ifdef MT_NAME /* another instance name: the names below become its own */
#include "../names/delayed_free.h"
#else
#define MT_NAME delayed_free
#endif
#ifndef MT_CHKSUM
#define MT_CHKSUM magic
#endif
#ifndef MT_ERR_HANDLE
#define MT_ERR_HANDLE default
#endif
#ifndef MT_DELAYED_SIZE
#define MT_DELAYED_SIZE ((size_t)64 << 10)
#endif
#ifndef MT_NODE_XOR
#define MT_NODE_XOR 1
#endif
#ifndef MT_DELAYED_FILL_SIZE
#define MT_DELAYED_FILL_SIZE ((size_t)192)
#endif
#ifndef MT_DELAYED_LARGE
#define MT_DELAYED_LARGE ((size_t)8 * (size_t)(MT_DELAYED_SIZE))
#endif
#ifndef MT_DELAYED_BATCH
#define MT_DELAYED_BATCH ((size_t)(MT_DELAYED_SIZE) / 64)
#endif
enum { delayed_free_id = MT_NEW_LAYER_ID }; /* names blocks of far alignments (claim_far) */
#define MT_SELF_ID MT_SELF(id)

#include "../written/delayed_free/safety_common.inl"

#ifndef MORTISE_LAYERS_DELAYED_FREE_ONCE
#define MORTISE_LAYERS_DELAYED_FREE_ONCE
#define MT_DELAYED_HDR ((size_t)16)
#define MT_DELAYED_MIN ((size_t)16) /* one vector store of the pattern */
#define MT_DELAYED_FILL 0xdfu
#define MT_DELAYED_FILL_WORD 0xdfdfdfdfdfdfdfdfull
#define MT_DELAYED_FILL_TAIL ((size_t)64) /* the pattern's tail part (delayed_fill) */
#define MT_DELAYED_SIZE_BITS 56
#define MT_DELAYED_SIZE_MASK (((uint64_t)1 << MT_DELAYED_SIZE_BITS) - 1)
/* States, mixed into the state word. */
#define MT_DELAYED_LIVE 0x6c697665ull
#define MT_DELAYED_QUAR 0x71756172ull
#define MT_DELAYED_FREED 0x66726565ull
/* What a header says: a state, or not a header we can vouch for. */
enum {
    MT_DELAYED_IS_LIVE,
    MT_DELAYED_IS_QUAR,
    MT_DELAYED_IS_FREED,
    MT_DELAYED_IS_DAMAGED,
    MT_DELAYED_IS_INVALID
};
enum { mt_delayed_new = 0, mt_delayed_on, mt_delayed_off };
#endif

_Static_assert((MT_DELAYED_FILL_SIZE) >= 80,
               "delayed_free: delayed_fill covers 16 bytes and 64 bytes of tail");

MT_DECLARE_BELOW(free);
MT_DECLARE_BELOW(getmeta);
MT_DECLARE_BELOW(resize);

static MT_TLS struct {
    uint64_t *ring;        /* MT_DELAYED_SLOTS slots (slot_code) */
    uint32_t first, count; /* the oldest block's slot, blocks held */
    size_t bytes;          /* held, headers included; a large block counts 32 */
    size_t large;          /* held in blocks larger than delayed_size */
    int state;             /* mt_delayed_new / on / off (no ring, or the thread has exited) */
} delayed_free_q;

/* Reports give the program's size: a safety layer above (tail_chksum,
 * MT_TRAIT_ADDS_TAIL) asked for mt_chain_tail_bytes more. */
MT_SLOW void delayed_free_report(int kind, void *p, size_t size, const char *op)
{
    size_t added = mt_chain_tail_bytes;
    delayed_free_raise(kind, p, size > added ? size - added : 0, op);
}

/* ---- the header ---- */

/* The fast paths load the key once per free (mt_chksum_key_if_set: a key
 * not yet fixed sends them to the slow path, so no set-up call sits in
 * them) and pass it on; a key held across the free below costs one saved
 * register, where a reload would cost a load and its "not yet" test again. */
MT_INLINE uint64_t delayed_free_size_mask_k(uint64_t key, const char *h)
{
    return key ^ ((uint64_t)(uintptr_t)h << 12);
}

MT_INLINE uint64_t delayed_free_size_mask(const char *h)
{
    return delayed_free_size_mask_k(mt_chksum_key(), h);
}

MT_INLINE uint64_t delayed_free_state_word(const char *h, uint64_t size_word, uint64_t state)
{
    return MT_CHKSUM_FN(MT_CHKSUM, calc)((uintptr_t)h, size_word ^ state);
}

MT_INLINE void delayed_free_set_state(char *p, uint64_t state)
{
    char *h = p - MT_DELAYED_HDR;
    mt_safety_store(h + 8, delayed_free_state_word(h, mt_safety_load(h), state));
}

MT_INLINE void delayed_free_write_header_k(uint64_t key, char *p, size_t size, unsigned log2_offset)
{
    char *h = p - MT_DELAYED_HDR;
    uint64_t sw =
        ((uint64_t)size | ((uint64_t)log2_offset << MT_DELAYED_SIZE_BITS)) ^ delayed_free_size_mask_k(key, h);
    mt_safety_store(h, sw);
    mt_safety_store(h + 8, delayed_free_state_word(h, sw, MT_DELAYED_LIVE));
}

MT_INLINE void delayed_free_write_header(char *p, size_t size, unsigned log2_offset)
{
    delayed_free_write_header_k(mt_chksum_key(), p, size, log2_offset);
}

/* The process's first header: the key is fixed here, out of alloc's line
 * (alloc loads it with mt_chksum_key_if_set, so no set-up call, and no
 * registers saved for one, sits in the inline alloc). */
MT_SLOW void delayed_free_write_first_header(char *p, size_t size, unsigned log2_offset)
{
    delayed_free_write_header(p, size, log2_offset);
}

MT_INLINE size_t delayed_free_header_size(const char *p)
{
    const char *h = p - MT_DELAYED_HDR;
    return (size_t)((mt_safety_load(h) ^ delayed_free_size_mask(h)) & MT_DELAYED_SIZE_MASK);
}

MT_INLINE size_t delayed_free_header_offset(const char *p)
{
    const char *h = p - MT_DELAYED_HDR;
    return (size_t)1 << ((mt_safety_load(h) ^ delayed_free_size_mask(h)) >> MT_DELAYED_SIZE_BITS);
}

/* Is p a live block whose header lies in p's granule (the inline case),
 * with the key fixed (key: mt_chksum_key_if_set)? Then *x is its decoded
 * size word (size, log2 of the header offset); false sends the caller to
 * its slow path. quick_word: the same as one word, UINT64_MAX for false. */
MT_INLINE bool delayed_free_quick_live(uint64_t key, const char *p, uint64_t *x)
{
    uintptr_t a = (uintptr_t)p;
    if (MT_UNLIKELY((a & (MT_MIN_ALIGN - 1)) != 0 || (a & (MT_GRANULE - 1)) < MT_DELAYED_HDR || !key))
        return false;
    const char *h = p - MT_DELAYED_HDR;
    uint64_t sw = mt_safety_load(h);
    if (MT_UNLIKELY(mt_safety_load(h + 8) != delayed_free_state_word(h, sw, MT_DELAYED_LIVE)))
        return false;
    *x = sw ^ delayed_free_size_mask_k(key, h);
    return true;
}

MT_INLINE uint64_t delayed_free_quick_word(uint64_t key, const char *p)
{
    uint64_t x;
    return delayed_free_quick_live(key, p, &x) ? x : UINT64_MAX;
}

/* The block's size if quick_word vouches for it, else SIZE_MAX. */
MT_INLINE size_t delayed_free_quick_size(const char *p)
{
    uint64_t x;
    return delayed_free_quick_live(mt_chksum_key_if_set(), p, &x) ? (size_t)(x & MT_DELAYED_SIZE_MASK)
                                                                  : SIZE_MAX;
}

/* Can p's header be read? p is 16-aligned and its granule is owned. */
MT_INLINE bool delayed_free_header_readable(const char *p)
{
    return ((uintptr_t)p & (MT_MIN_ALIGN - 1)) == 0 && mt_safety_word_readable(p, p - MT_DELAYED_HDR);
}

/* The raw block below, routed, for a block whose header was vouched for. */
MT_INLINE mt_ctx delayed_free_below_ctx(char *p)
{
    mt_ctx b = mt_ctx_for_alloc(0, 1);
    mt_ctx_route(&b, p - delayed_free_header_offset(p));
    return b;
}

/* What p's header says (reads nothing that could fault). *size gets the
 * size when the state word vouches for it, or when the size word alone
 * still fits the block below (damaged). */
MT_SLOW int delayed_free_classify(char *p, size_t *size)
{
    *size = 0;
    if (!delayed_free_header_readable(p))
        return MT_DELAYED_IS_INVALID;
    char *h = p - MT_DELAYED_HDR;
    uint64_t sw = mt_safety_load(h), tag = mt_safety_load(h + 8);
    uint64_t x = sw ^ delayed_free_size_mask(h);
    size_t s = (size_t)(x & MT_DELAYED_SIZE_MASK);
    unsigned lg = (unsigned)(x >> MT_DELAYED_SIZE_BITS);
    if (tag == delayed_free_state_word(h, sw, MT_DELAYED_LIVE)) {
        *size = s;
        return MT_DELAYED_IS_LIVE;
    }
    if (tag == delayed_free_state_word(h, sw, MT_DELAYED_QUAR)) {
        *size = s;
        return MT_DELAYED_IS_QUAR;
    }
    if (tag == delayed_free_state_word(h, sw, MT_DELAYED_FREED)) {
        *size = s;
        return MT_DELAYED_IS_FREED;
    }
    /* Not a state we wrote. A size word that still decodes to a block the
     * block below holds — at least the header and the size, at most twice
     * that and a granule (the rounding of any layer below) — means a block
     * start whose state word was overwritten; anything else decoded from
     * random bytes is a pointer that is not a block start. */
    if (lg < 4 || lg > 40 || s > ((size_t)1 << 47))
        return MT_DELAYED_IS_INVALID;
    size_t need = ((size_t)1 << lg) + (s > MT_DELAYED_MIN ? s : MT_DELAYED_MIN);
    char *raw = p - ((size_t)1 << lg);
    mt_ctx b = mt_ctx_for_alloc(0, 1);
    mt_ctx_route(&b, raw);
    if (!b.owner)
        return MT_DELAYED_IS_INVALID;
    if (((uintptr_t)p & (MT_GRANULE - 1)) == 0 &&
        mt_pagemap_get(p) == mt_entry(MT_SELF_ID, (uintptr_t)raw >> MT_GRANULE_SHIFT)) {
        /* claim_far named p's granule for exactly this raw block, and the
         * claim goes with the block: the offset is vouched for (an
         * underflow of a far-aligned block, whatever lies in front of raw) */
    } else if (((uintptr_t)raw & (MT_GRANULE - 1)) == 0 && !mt_safety_page_mapped((uintptr_t)raw - 16)) {
        /* A block below starting a granule after a hole: its owner's
         * getmeta may read a boundary tag in front of it (tlsf_glk) and is
         * not asked. The offset must then be exactly p's in its granule. */
        if ((uintptr_t)p - (uintptr_t)raw != ((uintptr_t)p & (MT_GRANULE - 1)))
            return MT_DELAYED_IS_INVALID;
    } else if (!MT_BELOW(getmeta)(&b) || b.usable < need || b.usable > 2 * need + MT_GRANULE) {
        return MT_DELAYED_IS_INVALID;
    }
    *size = s;
    return MT_DELAYED_IS_DAMAGED;
}

/* ---- alloc ---- */

/* The bytes between a small block's size and the 16 it has: the pattern,
 * checked on free (the only overflow check of delayed_free itself). Both
 * words at once, the program's bytes kept (calloc's zeroes). */
#ifndef MORTISE_LAYERS_DELAYED_FREE_SLACK_ONCE /* the same for every instance */
#define MORTISE_LAYERS_DELAYED_FREE_SLACK_ONCE
MT_INLINE uint64_t mt_delayed_slack_mask(size_t size, size_t word)
{
    return size <= word ? ~0ull : size >= word + 8 ? 0 : ~0ull << (8 * (size - word));
}
#endif

#define MT_DELAYED_LITTLE_ENDIAN (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__) /* the masks' byte order */

MT_INLINE void delayed_free_fill_slack(char *p, size_t size)
{
    if (!MT_DELAYED_LITTLE_ENDIAN) {
        for (size_t i = size; i < MT_DELAYED_MIN; i++)
            p[i] = (char)MT_DELAYED_FILL;
        return;
    }
    for (size_t w = 0; w < MT_DELAYED_MIN; w += 8) {
        uint64_t m = mt_delayed_slack_mask(size, w);
        mt_safety_store(p + w, (mt_safety_load(p + w) & ~m) | (MT_DELAYED_FILL_WORD & m));
    }
}

MT_INLINE bool delayed_free_slack_intact(const char *p, size_t size)
{
    if (!MT_DELAYED_LITTLE_ENDIAN) {
        bool intact = true;
        for (size_t i = size; i < MT_DELAYED_MIN; i++)
            intact &= (unsigned char)p[i] == MT_DELAYED_FILL;
        return intact;
    }
    uint64_t d = ((mt_safety_load(p) ^ MT_DELAYED_FILL_WORD) & mt_delayed_slack_mask(size, 0)) |
                 ((mt_safety_load(p + 8) ^ MT_DELAYED_FILL_WORD) & mt_delayed_slack_mask(size, 8));
    return d == 0;
}

/* A block whose header offset reaches another granule (alignments of a
 * granule and more): if nobody's entry names that granule (a large block of
 * the OS layer marks only its first), name ourselves there, with the raw
 * block's granule as payload, so the socket routes p to us. Returns p. */
MT_SLOW void *delayed_free_claim_far(char *p, char *raw)
{
    if (!mt_entry_owner(mt_pagemap_get(p)))
        mt_pagemap_set(p, MT_GRANULE, mt_entry(MT_SELF_ID, (uintptr_t)raw >> MT_GRANULE_SHIFT));
    return p;
}

MT_SLOW void *delayed_free_alloc_again(mt_ctx *ctx, mt_lfunc *next);

/* quick: ask below with MT_ALLOC_QUICK and repeat a miss out of line (one
 * call site, last), so the inline alloc keeps nothing across a call. A
 * request that came quick from above answers a miss with NULL at once. */
MT_INLINE void *delayed_free_alloc_from(mt_ctx *ctx, mt_lfunc *next, bool quick)
{
    size_t size = ctx->size, align = ctx->align;
    size_t offset = align > MT_DELAYED_HDR ? align : MT_DELAYED_HDR;
    size_t room = size > MT_DELAYED_MIN ? size : MT_DELAYED_MIN;
    if (MT_UNLIKELY(offset > MT_MAX_REQUEST - room)) {
        ctx->err = MT_ENOMEM;
        return NULL;
    }
    bool asked_quick = ctx->chain == MT_ALLOC_QUICK;
    uint64_t key = quick ? mt_chksum_key_if_set() : 0;
    char *raw = NULL;
    if (quick && MT_UNLIKELY(!key))
        goto miss; /* the key is fixed out of line */
    ctx->chain = quick ? MT_ALLOC_QUICK : ctx->chain;
    ctx->size = offset + room;
    raw = next(ctx);
    ctx->size = size;
    if (MT_UNLIKELY(!raw)) {
        if (quick)
            goto miss;
        return NULL;
    }
    char *p = raw + offset;
    if (!quick)
        key = mt_chksum_key_if_set();
    if (MT_LIKELY(key != 0))
        delayed_free_write_header_k(key, p, size, mt_log2_floor(offset));
    else
        delayed_free_write_first_header(p, size, mt_log2_floor(offset));
    if (size < MT_DELAYED_MIN) /* the slack of a small block holds the pattern */
        delayed_free_fill_slack(p, size);
    if (ctx->zeroed == raw)
        ctx->zeroed = p;         /* the program's bytes are still fresh zeroes */
    if (mt_chain_wants_usable) { /* the hint (core/ctx.h): what getmeta answers */
        ctx->ptr = p;
        ctx->usable = size;
    }
    if (MT_UNLIKELY(offset >= MT_GRANULE))
        return delayed_free_claim_far(p, raw);
    return p;
miss:
    if (asked_quick)
        return NULL; /* the layer above repeats it */
    ctx->chain = NULL;
    return MT_COLD_CALL(ctx, copy, delayed_free_alloc_again(&copy, next));
}

#define MT_IMPLEMENTS_alloc
MT_INLINE void *delayed_free_alloc(mt_ctx *ctx, mt_lfunc *next)
{
    return delayed_free_alloc_from(ctx, next, true);
}

/* A quick alloc that missed below, or the process's first: again, every
 * layer below on its ordinary path. */
MT_SLOW void *delayed_free_alloc_again(mt_ctx *ctx, mt_lfunc *next)
{
    return delayed_free_alloc_from(ctx, next, false);
}

/* ---- the quarantine ----
 * A ring of the quarantined blocks' pointers, oldest first, in one block
 * from the layer below (taken on the thread's first quarantined free):
 * nothing is written into a freed block but its state word and the
 * pattern, and eviction reads a block only to verify it. (A list linked
 * through the blocks cost two node writes per free, one of them into the
 * previous block, and a check and a page-map lookup per link followed.)
 * Every quarantined block holds at least MT_DELAYED_HDR + MT_DELAYED_MIN
 * bytes, so delayed_size / 32 slots always suffice. */

#define MT_DELAYED_SLOTS_WANTED ((MT_DELAYED_SIZE) / (MT_DELAYED_HDR + MT_DELAYED_MIN))
#define MT_DELAYED_SLOTS                                                          \
    ((uint32_t)(MT_DELAYED_SLOTS_WANTED < 2                   ? 2                 \
                : MT_DELAYED_SLOTS_WANTED > ((size_t)1 << 16) ? ((size_t)1 << 16) \
                                                              : MT_DELAYED_SLOTS_WANTED))

#define MT_DELAYED_BATCH_SLOTS (MT_DELAYED_SLOTS / 64)

/* Ring slot i (i < 2 * MT_DELAYED_SLOTS) wrapped: a mask when the slot
 * count is a power of two (delayed_size a power of two: no compare and no
 * branch), else one subtraction. */
MT_INLINE uint32_t delayed_free_wrap(uint32_t i)
{
    if ((MT_DELAYED_SLOTS & (MT_DELAYED_SLOTS - 1)) == 0)
        return i & (MT_DELAYED_SLOTS - 1);
    return i >= MT_DELAYED_SLOTS ? i - MT_DELAYED_SLOTS : i;
}

MT_DECLARE_BELOW(alloc); /* the ring */

/* A slot holds a pointer, xor-encoded with the key under node_xor=1, so a
 * stray write into the ring's block cannot name a block to free; decoded
 * slots are checked (page map, header) before anything is freed. */
MT_INLINE uint64_t delayed_free_slot_code_k(uint64_t key, uint64_t v)
{
    return MT_NODE_XOR ? v ^ mt_rotl64(key, 31) : v;
}

MT_INLINE uint64_t delayed_free_slot_code(uint64_t v) { return delayed_free_slot_code_k(mt_chksum_key(), v); }

/* The pattern covers all of a block of up to delayed_fill bytes; of a
 * larger one, its first delayed_fill - 64 bytes and its last 64: the bytes
 * a stale pointer most often writes through (leading fields, trailing
 * counters, the end of a buffer), at a cost per free that does not grow
 * with the block. A range of n >= 16 bytes is filled and checked 16 bytes
 * at a time, the last store or load overlapping the one before; the
 * differences are or-ed, so an intact range costs no branch per word. Up
 * to 192 bytes (the default delayed_fill) the stores and loads are
 * unrolled, entered by a jump on n (no loop counter per 16 bytes); longer
 * ranges (delayed_fill=SIZE_MAX) loop, and the empty asm keeps that loop a
 * loop (a store loop of unknown length becomes a string instruction, whose
 * start-up alone costs more than a few stores). */
#ifndef MORTISE_LAYERS_DELAYED_FREE_V16_ONCE /* the same for every instance */
#define MORTISE_LAYERS_DELAYED_FREE_V16_ONCE
typedef uint64_t mt_delayed_v16 __attribute__((vector_size(16)));
#define MT_DELAYED_UNROLLED ((size_t)192)

MT_INLINE mt_delayed_v16 mt_delayed_v16_fill(void)
{
    mt_delayed_v16 v = {MT_DELAYED_FILL_WORD, MT_DELAYED_FILL_WORD};
    return v;
}

MT_INLINE void mt_delayed_store16(char *at, mt_delayed_v16 v) { __builtin_memcpy(at, &v, 16); }

MT_INLINE mt_delayed_v16 mt_delayed_diff16(const char *at, mt_delayed_v16 v)
{
    mt_delayed_v16 w;
    __builtin_memcpy(&w, at, 16);
    return w ^ v;
}
#endif

MT_INLINE void delayed_free_fill_range(char *from, size_t n)
{
    mt_delayed_v16 v = mt_delayed_v16_fill();
    mt_delayed_store16(from + n - 16, v);
    if (MT_UNLIKELY(n > MT_DELAYED_UNROLLED)) {
        for (size_t i = 0; i + 16 < n; i += 16) {
            mt_delayed_store16(from + i, v);
            __asm__("" : "+r"(i));
        }
        return;
    }
    switch ((n - 1) / 16) {                     /* the 16-byte pieces before the last one */
    case 11: mt_delayed_store16(from + 160, v); /* fall through */
    case 10: mt_delayed_store16(from + 144, v); /* fall through */
    case 9: mt_delayed_store16(from + 128, v);  /* fall through */
    case 8: mt_delayed_store16(from + 112, v);  /* fall through */
    case 7: mt_delayed_store16(from + 96, v);   /* fall through */
    case 6: mt_delayed_store16(from + 80, v);   /* fall through */
    case 5: mt_delayed_store16(from + 64, v);   /* fall through */
    case 4: mt_delayed_store16(from + 48, v);   /* fall through */
    case 3: mt_delayed_store16(from + 32, v);   /* fall through */
    case 2: mt_delayed_store16(from + 16, v);   /* fall through */
    case 1: mt_delayed_store16(from, v);        /* fall through */
    default: break;
    }
}

MT_INLINE bool delayed_free_range_intact(const char *from, size_t n)
{
    mt_delayed_v16 v = mt_delayed_v16_fill(), d = mt_delayed_diff16(from + n - 16, v);
    if (MT_UNLIKELY(n > MT_DELAYED_UNROLLED)) {
        for (size_t i = 0; i + 16 < n; i += 16)
            d |= mt_delayed_diff16(from + i, v);
        return (d[0] | d[1]) == 0;
    }
    switch ((n - 1) / 16) {
    case 11: d |= mt_delayed_diff16(from + 160, v); /* fall through */
    case 10: d |= mt_delayed_diff16(from + 144, v); /* fall through */
    case 9: d |= mt_delayed_diff16(from + 128, v);  /* fall through */
    case 8: d |= mt_delayed_diff16(from + 112, v);  /* fall through */
    case 7: d |= mt_delayed_diff16(from + 96, v);   /* fall through */
    case 6: d |= mt_delayed_diff16(from + 80, v);   /* fall through */
    case 5: d |= mt_delayed_diff16(from + 64, v);   /* fall through */
    case 4: d |= mt_delayed_diff16(from + 48, v);   /* fall through */
    case 3: d |= mt_delayed_diff16(from + 32, v);   /* fall through */
    case 2: d |= mt_delayed_diff16(from + 16, v);   /* fall through */
    case 1: d |= mt_delayed_diff16(from, v);        /* fall through */
    default: break;
    }
    return (d[0] | d[1]) == 0;
}

/* Bytes before the pattern's tail part in a block of `room` bytes. */
MT_INLINE size_t delayed_free_fill_head(size_t room)
{
    return room <= (size_t)(MT_DELAYED_FILL_SIZE) ? room
                                                  : (size_t)(MT_DELAYED_FILL_SIZE)-MT_DELAYED_FILL_TAIL;
}

MT_INLINE void delayed_free_fill(char *p, size_t room)
{
    delayed_free_fill_range(p, delayed_free_fill_head(room));
    if (room > (size_t)(MT_DELAYED_FILL_SIZE))
        delayed_free_fill_range(p + room - MT_DELAYED_FILL_TAIL, MT_DELAYED_FILL_TAIL);
}

MT_INLINE bool delayed_free_fill_intact(const char *p, size_t room)
{
    bool ok = delayed_free_range_intact(p, delayed_free_fill_head(room));
    if (room > (size_t)(MT_DELAYED_FILL_SIZE))
        ok &= delayed_free_range_intact(p + room - MT_DELAYED_FILL_TAIL, MT_DELAYED_FILL_TAIL);
    return ok;
}

/* Free a checked block below (routed in b): mark it freed, give back a far
 * claim. */
MT_INLINE void delayed_free_release_routed(char *p, size_t offset, mt_ctx *b)
{
    delayed_free_set_state(p, MT_DELAYED_FREED);
    if (offset >= MT_GRANULE && mt_entry_owner(mt_pagemap_get(p)) == (uintptr_t)MT_SELF_ID)
        mt_pagemap_set(p, MT_GRANULE, 0);
    MT_BELOW(free)(b);
}

MT_SLOW void delayed_free_release(char *p)
{
    mt_ctx b = delayed_free_below_ctx(p);
    delayed_free_release_routed(p, delayed_free_header_offset(p), &b);
}

/* The ring cannot be trusted any further: forget the rest (leaked). */
MT_SLOW void delayed_free_drop_rest(void)
{
    delayed_free_q.first = delayed_free_q.count = 0;
    delayed_free_q.bytes = delayed_free_q.large = 0;
}

/* What a block of `held` bytes (header included) counts against
 * delayed_size: itself, or, larger than delayed_size, the smallest block's
 * 32 (it counts in full against MT_DELAYED_LARGE instead). So every block
 * counts at least 32 and the ring never fills first. */
MT_INLINE size_t delayed_free_charge(size_t held)
{
    return MT_UNLIKELY(held > (size_t)(MT_DELAYED_SIZE)) ? MT_DELAYED_HDR + MT_DELAYED_MIN : held;
}

/* The block in ring slot `at` leaves the quarantine at about the next
 * free; it was written 64 KiB of frees ago, so its header is out of L1.
 * Ask for the header's line now (it also holds the pattern's first bytes),
 * so that miss overlaps the program's work instead of stalling that free.
 * The slot is not trusted yet: a prefetch of whatever it decodes to cannot
 * fault, and a stale slot past the last block only wastes the hint. */
MT_INLINE void delayed_free_prefetch_slot(uint64_t key, uint32_t at)
{
    mt_prefetch((const char *)(uintptr_t)delayed_free_slot_code_k(key, delayed_free_q.ring[at]) -
                MT_DELAYED_HDR);
}

/* Take the oldest block out of the quarantine, verify it, free it below
 * (inline in the free that evicts: no call per block). */
MT_INLINE void delayed_free_evict_one(uint64_t key)
{
    uint32_t first = delayed_free_q.first;
    char *p = (char *)(uintptr_t)delayed_free_slot_code_k(key, delayed_free_q.ring[first]);
    /* A slot is trusted only as far as the page map and the header vouch
     * for it: owned, 16-aligned, header readable, state "quarantined". */
    mt_ctx b = mt_ctx_for_alloc(0, 1);
    mt_ctx_route(&b, p);
    /* (p 16-aligned at least 16 bytes into its owned granule: the header
     * is readable without a further look) */
    uintptr_t in = (uintptr_t)p & (MT_GRANULE - 1);
    if (MT_UNLIKELY(!b.owner || (in & (MT_MIN_ALIGN - 1)) != 0 ||
                    (in < MT_DELAYED_HDR && !delayed_free_header_readable(p)))) {
        delayed_free_report(MORTISE_BUG_CORRUPTED_METADATA, p, 0, "evict");
        delayed_free_drop_rest();
        return;
    }
    char *h = p - MT_DELAYED_HDR;
    uint64_t sw = mt_safety_load(h);
    if (MT_UNLIKELY(mt_safety_load(h + 8) != delayed_free_state_word(h, sw, MT_DELAYED_QUAR))) {
        delayed_free_report(MORTISE_BUG_CORRUPTED_METADATA, p, 0, "evict");
        delayed_free_drop_rest();
        return;
    }
    uint64_t x = sw ^ delayed_free_size_mask_k(key, h);
    size_t size = (size_t)(x & MT_DELAYED_SIZE_MASK), offset = (size_t)1 << (x >> MT_DELAYED_SIZE_BITS);
    size_t room = size > MT_DELAYED_MIN ? size : MT_DELAYED_MIN, held = offset + room;
    first = delayed_free_wrap(first + 1);
    delayed_free_q.first = first;
    delayed_free_q.count--;
    delayed_free_prefetch_slot(key, first); /* the next one out */
    if (MT_UNLIKELY(held > (size_t)(MT_DELAYED_SIZE))) {
        delayed_free_q.large = delayed_free_q.large > held ? delayed_free_q.large - held : 0;
        held = delayed_free_charge(held);
    }
    delayed_free_q.bytes -= held; /* (sum of the slots' charges: see evict_batch) */
    if (MT_UNLIKELY(!delayed_free_fill_intact(p, room))) {
        delayed_free_report(MORTISE_BUG_WRITE_AFTER_FREE, p, size, "evict");
        if (MT_ERR_LEAKS(MT_ERR_HANDLE))
            return;
    }
    if (in < offset) /* the raw block starts in another granule */
        mt_ctx_route(&b, p - offset);
    b.ptr = p - offset;
    delayed_free_release_routed(p, offset, &b);
}

#define MT_HAS_INVARIANTS /* check: these, then the layers below (core/ops.h) */
MT_SLOW MT_UNUSED const char *delayed_free_invariants(void);

/* Verify and free every block of the calling thread's quarantine. */
MT_SLOW bool delayed_free_drain(void)
{
    MT_ASSERT_HOLDS(delayed_free_invariants()); /* the whole ring, before it goes */
    bool any = delayed_free_q.count != 0;
    uint64_t key = mt_chksum_key(); /* (fixed: a block is quarantined) */
    while (delayed_free_q.count)
        delayed_free_evict_one(key);
    return any;
}

/* The thread's first quarantined free: the ring, and thread_exit's drain. */
MT_SLOW void delayed_free_start(void)
{
    delayed_free_q.state = mt_delayed_off;
    mt_ctx sub = mt_ctx_for_alloc((size_t)MT_DELAYED_SLOTS * sizeof(uint64_t), MT_CACHELINE);
    uint64_t *ring = MT_BELOW(alloc)(&sub);
    if (!ring)
        return; /* no quarantine on this thread: blocks are checked and freed at once */
    delayed_free_q.ring = ring;
    delayed_free_q.state = mt_delayed_on;
    mt_thread_attach(); /* so that thread_exit drains it */
}

/* The ring's next slot names p, which counts `charge` bytes. */
MT_INLINE void delayed_free_push(uint64_t key, char *p, size_t charge)
{
    MT_ASSERT(delayed_free_q.count < MT_DELAYED_SLOTS &&
              delayed_free_q.first < MT_DELAYED_SLOTS); /* a free slot */
    uint32_t last = delayed_free_wrap(delayed_free_q.first + delayed_free_q.count);
    delayed_free_q.ring[last] = delayed_free_slot_code_k(key, (uint64_t)(uintptr_t)p);
    delayed_free_q.count++;
    delayed_free_q.bytes += charge;
}

/* Is the quarantine full? Its bytes reached delayed_size, or (a ring
 * capped below delayed_size / 32 slots) its ring. Kept false after every
 * free, so the next push always finds a slot: fewer than delayed_size
 * bytes are fewer than delayed_size / 32 blocks. */
MT_INLINE bool delayed_free_full(void)
{
    return delayed_free_q.bytes >= (size_t)(MT_DELAYED_SIZE) ||
           (MT_DELAYED_SLOTS < MT_DELAYED_SLOTS_WANTED && delayed_free_q.count >= MT_DELAYED_SLOTS);
}

/* A full quarantine is emptied down to delayed_size - MT_DELAYED_BATCH
 * bytes (and as many slots) in one out-of-line call, not one block per
 * free: free stays a short leaf-like path (no registers saved for the
 * eviction and the free below inlined into it), and the loop here is
 * compiled once, tight, with the key in a register. Not cold: it runs
 * every few dozen frees. */
MT_NOINLINE_HOT void delayed_free_evict_batch(void)
{
    uint64_t key = mt_chksum_key_if_set(); /* (fixed: a block is quarantined) */
    size_t keep = (size_t)(MT_DELAYED_SIZE) - (size_t)(MT_DELAYED_BATCH);
    uint32_t keep_slots = MT_DELAYED_SLOTS - MT_DELAYED_BATCH_SLOTS;
    while (MT_LIKELY(delayed_free_q.count != 0 &&
                     (delayed_free_q.bytes > keep || delayed_free_q.count > keep_slots)))
        delayed_free_evict_one(key);
    /* bytes is the sum of the held blocks' charges, each subtracted as its
     * verified header says; an empty ring holds none, whatever a header
     * forged with the key made of the sum */
    if (delayed_free_q.count == 0)
        delayed_free_q.bytes = delayed_free_q.large = 0;
}

/* A checked live block of `room` bytes (`held` with its header) enters
 * the quarantine; a quarantine that is then full leaves most of a batch. */
MT_INLINE void delayed_free_enqueue(uint64_t key, char *p, size_t room, size_t held)
{
    delayed_free_set_state(p, MT_DELAYED_QUAR);
    delayed_free_fill(p, room);
    delayed_free_push(key, p, held);
    if (MT_UNLIKELY(delayed_free_full()))
        delayed_free_evict_batch();
}

/* A checked live block larger than delayed_size (at most MT_DELAYED_LARGE
 * with its header) enters the quarantine: its pattern covers its first
 * delayed_fill - 64 bytes and its last 64, where a trunk below keeps its
 * links and tags, so a write after free there is found at eviction. The
 * oldest blocks leave first while the large blocks held would exceed
 * MT_DELAYED_LARGE. */
MT_SLOW void delayed_free_enqueue_large(uint64_t key, char *p, size_t room, size_t held)
{
    delayed_free_set_state(p, MT_DELAYED_QUAR);
    delayed_free_fill(p, room);
    size_t charge = delayed_free_charge(held);
    while (delayed_free_q.count != 0 && (delayed_free_q.large + held > (size_t)(MT_DELAYED_LARGE) ||
                                         delayed_free_q.bytes + charge >= (size_t)(MT_DELAYED_SIZE) ||
                                         delayed_free_q.count + 1 >= MT_DELAYED_SLOTS))
        delayed_free_evict_one(key); /* (kept not full after the push: see full) */
    delayed_free_q.large += held;
    delayed_free_push(key, p, charge);
}

/* A checked live block (x: its decoded size word) that the inline free
 * does not enqueue: the thread's first free (no ring yet), a small block
 * (its slack is checked), a block too large for the quarantine or a
 * thread without one (freed at once). */
MT_SLOW void delayed_free_quarantine(char *p, uint64_t x)
{
    size_t size = (size_t)(x & MT_DELAYED_SIZE_MASK), offset = (size_t)1 << (x >> MT_DELAYED_SIZE_BITS);
    if (MT_UNLIKELY(delayed_free_q.state != mt_delayed_on) && delayed_free_q.state == mt_delayed_new)
        delayed_free_start();
    size_t room = size > MT_DELAYED_MIN ? size : MT_DELAYED_MIN, held = offset + room;
    if (MT_UNLIKELY(size < MT_DELAYED_MIN) && !delayed_free_slack_intact(p, size)) {
        delayed_free_report(MORTISE_BUG_HEAP_BUFFER_OVERFLOW, p, size, "free");
        if (MT_ERR_LEAKS(MT_ERR_HANDLE))
            return;
    }
    if (MT_UNLIKELY(held > (size_t)(MT_DELAYED_LARGE) || delayed_free_q.state != mt_delayed_on)) {
        delayed_free_release(p);
        return;
    }
    if (held > (size_t)(MT_DELAYED_SIZE))
        delayed_free_enqueue_large(mt_chksum_key(), p, room, held);
    else
        delayed_free_enqueue(mt_chksum_key(), p, room, held);
}

/* ---- free, getmeta, resize ---- */

/* A free whose header the inline check did not vouch for. */
MT_SLOW void delayed_free_free_slow(char *p)
{
    size_t size;
    switch (delayed_free_classify(p, &size)) {
    case MT_DELAYED_IS_LIVE:
        delayed_free_quarantine(p, mt_safety_load(p - MT_DELAYED_HDR) ^
                                       delayed_free_size_mask(p - MT_DELAYED_HDR));
        return;
    case MT_DELAYED_IS_QUAR:
    case MT_DELAYED_IS_FREED: delayed_free_report(MORTISE_BUG_DOUBLE_FREE, p, size, "free"); return;
    case MT_DELAYED_IS_DAMAGED: /* left alone: its size cannot be trusted */
        delayed_free_report(MORTISE_BUG_HEAP_BUFFER_UNDERFLOW, p, size, "free");
        return;
    default: delayed_free_report(MORTISE_BUG_INVALID_FREE, p, 0, "free"); return;
    }
}

/* A free the inline path does not enqueue (x: quick_word's answer). */
MT_SLOW void delayed_free_free_other(char *p, uint64_t x)
{
    if (x == UINT64_MAX)
        delayed_free_free_slow(p);
    else
        delayed_free_quarantine(p, x);
}

#define MT_IMPLEMENTS_free
MT_INLINE void *delayed_free_free(mt_ctx *ctx, mt_lfunc *next)
{
    (void)next;
    char *p = ctx->ptr;
    uint64_t key = mt_chksum_key_if_set();
    uint64_t x = delayed_free_quick_word(key, p);
    /* one compare for the common block: header offset 16 (the size word's
     * top byte 4) and 16 <= size <= delayed_size - 16; an aligned block
     * takes a second test; out of line: a header not vouched for (x all
     * ones), a small block, a block too large for the quarantine, no ring
     * yet (or none to be had) */
    const uint64_t plain = ((uint64_t)4 << MT_DELAYED_SIZE_BITS) | MT_DELAYED_MIN;
    size_t size, held;
    if (MT_LIKELY((size_t)(MT_DELAYED_SIZE) >= MT_DELAYED_HDR + MT_DELAYED_MIN &&
                  x - plain <= (uint64_t)(MT_DELAYED_SIZE)-MT_DELAYED_HDR - MT_DELAYED_MIN)) {
        size = (size_t)(x - ((uint64_t)4 << MT_DELAYED_SIZE_BITS));
        held = MT_DELAYED_HDR + size;
    } else {
        size = (size_t)(x & MT_DELAYED_SIZE_MASK);
        held = ((size_t)1 << ((x >> MT_DELAYED_SIZE_BITS) & 63)) + size; /* (no wrap: size < 2^56) */
        if (x == UINT64_MAX || size < MT_DELAYED_MIN || held > (size_t)(MT_DELAYED_SIZE)) {
            delayed_free_free_other(p, x);
            return NULL;
        }
    }
    if (MT_UNLIKELY(delayed_free_q.state != mt_delayed_on)) {
        delayed_free_free_other(p, x);
        return NULL;
    }
    delayed_free_enqueue(key, p, size, held);
    return NULL;
}

MT_SLOW void *delayed_free_getmeta_slow(mt_ctx *ctx)
{
    size_t size;
    char *p = ctx->ptr;
    const char *op = mt_safety_op_above ? mt_safety_op_above : "getmeta"; /* (safety/common.h) */
    switch (delayed_free_classify(p, &size)) {
    case MT_DELAYED_IS_LIVE:
        ctx->usable = size;
        ctx->szcls_key = 0;
        return p;
    case MT_DELAYED_IS_QUAR:
    case MT_DELAYED_IS_FREED: delayed_free_report(MORTISE_BUG_DOUBLE_FREE, p, size, op); return NULL;
    case MT_DELAYED_IS_DAMAGED:
        delayed_free_report(MORTISE_BUG_HEAP_BUFFER_UNDERFLOW, p, size, op);
        return NULL;
    default: delayed_free_report(MORTISE_BUG_INVALID_FREE, p, 0, op); return NULL;
    }
}

#define MT_IMPLEMENTS_getmeta
MT_INLINE void *delayed_free_getmeta(mt_ctx *ctx, mt_lfunc *next)
{
    (void)next;
    size_t size = delayed_free_quick_size(ctx->ptr);
    if (MT_UNLIKELY(size == SIZE_MAX))
        return ctx->chain == MT_SAFETY_QUICK ? NULL
                                             : MT_COLD_GETMETA(ctx, copy, delayed_free_getmeta_slow(&copy));
    ctx->usable = size;
    ctx->szcls_key = 0;
    return ctx->ptr;
}

/* realloc (getmeta vouched for the block just before): a size the block
 * below still holds only rewrites the header; else the layer below resizes
 * the raw block in place or moves it, and the header follows. */
MT_SLOW void *delayed_free_resize_slow(mt_ctx *ctx)
{
    char *p = ctx->ptr;
    size_t size = delayed_free_quick_size(p), want = ctx->size;
    if (size == SIZE_MAX && delayed_free_classify(p, &size) != MT_DELAYED_IS_LIVE)
        return NULL;
    size_t offset = delayed_free_header_offset(p);
    size_t room = want > MT_DELAYED_MIN ? want : MT_DELAYED_MIN;
    if (offset >= MT_GRANULE || offset > MT_MAX_REQUEST - room)
        return NULL; /* far-claimed blocks move through the socket */
    mt_ctx b = delayed_free_below_ctx(p);
    mt_ctx fits = b;
    char *raw;
    if (MT_BELOW(getmeta)(&fits) && fits.usable >= offset + room && fits.usable <= MT_MAX_REQUEST) {
        raw = p - offset; /* the block below has the room: only the header changes */
    } else {
        b.size = offset + room;
        raw = MT_BELOW(resize)(&b);
        if (!raw)
            return NULL;
    }
    char *q = raw + offset;
    delayed_free_write_header(q, want, mt_log2_floor(offset));
    if (want < MT_DELAYED_MIN)
        delayed_free_fill_slack(q, want);
    return q;
}

#define MT_IMPLEMENTS_resize
MT_INLINE void *delayed_free_resize(mt_ctx *ctx, mt_lfunc *next)
{
    (void)next;
    return MT_COLD_CALL(ctx, copy, delayed_free_resize_slow(&copy));
}

/* ---- thread life, purge, fork ---- */

#define MT_IMPLEMENTS_thread_exit
MT_INLINE void *delayed_free_thread_exit(mt_ctx *ctx, mt_lfunc *next)
{
    if (delayed_free_q.state == mt_delayed_on) {
        delayed_free_drain();
        mt_ctx b = mt_ctx_for_alloc(0, 1);
        mt_ctx_route(&b, delayed_free_q.ring);
        MT_BELOW(free)(&b);
        delayed_free_q.ring = NULL;
    }
    delayed_free_q.state = mt_delayed_off;
    return next(ctx);
}

#define MT_IMPLEMENTS_purge
MT_INLINE void *delayed_free_purge(mt_ctx *ctx, mt_lfunc *next)
{
    bool any = delayed_free_q.count ? delayed_free_drain() : false;
    return (next(ctx) || any) ? (void *)1 : NULL;
}

/* The calling thread's quarantine: the ring's bounds, and every block in
 * it owned below, its header intact and saying "quarantined", its fill
 * pattern intact (no write after free yet), its bytes adding up to the
 * ring's count. Reads the blocks; writes nothing. */
MT_SLOW MT_UNUSED const char *delayed_free_invariants(void)
{
    uint32_t first = delayed_free_q.first, count = delayed_free_q.count;
    if (first >= MT_DELAYED_SLOTS || count > MT_DELAYED_SLOTS || (count && !delayed_free_q.ring))
        return MT_STR(MT_NAME) ": quarantine ring bounds";
    size_t bytes = 0, large = 0;
    for (uint32_t k = 0, at = first; k < count; k++, at = delayed_free_wrap(at + 1)) {
        char *p = (char *)(uintptr_t)delayed_free_slot_code(delayed_free_q.ring[at]);
        if (!mt_entry_owner(mt_pagemap_get(p)) || !delayed_free_header_readable(p))
            return MT_STR(MT_NAME) ": quarantine slot names no block of ours";
        char *h = p - MT_DELAYED_HDR;
        uint64_t sw = mt_safety_load(h);
        if (mt_safety_load(h + 8) != delayed_free_state_word(h, sw, MT_DELAYED_QUAR))
            return MT_STR(MT_NAME) ": quarantined block's header is not \"quarantined\"";
        uint64_t x = sw ^ delayed_free_size_mask(h);
        size_t size = (size_t)(x & MT_DELAYED_SIZE_MASK), offset = (size_t)1 << (x >> MT_DELAYED_SIZE_BITS);
        size_t room = size > MT_DELAYED_MIN ? size : MT_DELAYED_MIN;
        if (!delayed_free_fill_intact(p, room))
            return MT_STR(MT_NAME) ": quarantined block's fill pattern changed (write after free)";
        bytes += delayed_free_charge(offset + room);
        large += offset + room > (size_t)(MT_DELAYED_SIZE) ? offset + room : 0;
    }
    if (bytes != delayed_free_q.bytes || large != delayed_free_q.large)
        return MT_STR(MT_NAME) ": quarantined bytes != the blocks' sizes";
    return NULL;
}

/* Bytes and blocks the calling thread holds in quarantine, and the ring
 * slot of its oldest block (for tests). */
MT_UNUSED static size_t delayed_free_quarantined_bytes(void) { return delayed_free_q.bytes; }
MT_UNUSED static size_t delayed_free_quarantined_blocks(void) { return delayed_free_q.count; }
MT_UNUSED static void *delayed_free_oldest_slot(void)
{
    return delayed_free_q.ring ? &delayed_free_q.ring[delayed_free_q.first] : NULL;
}

#define MT_DESCRIPTOR MT_DESCRIPTOR_delayed_free
#include "../core/layer_end.h"
/* Forget this instance's slots: the next instance starts from the defaults. */
#undef MT_CHKSUM
#undef MT_ERR_HANDLE
#undef MT_DELAYED_SIZE
#undef MT_DELAYED_LARGE
#undef MT_NODE_XOR
#undef MT_DELAYED_FILL_SIZE
#undef MT_DELAYED_BATCH
#ifdef MT_NAMES_delayed_free
#include "../names/delayed_free.h" /* forget them */
#endif
#endif /* MT_DESCRIBE */

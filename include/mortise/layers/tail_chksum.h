/* tail_chksum — a check word right after every block.
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
 *   too), heap-buffer-underflow (head_canary), double-free, invalid-free,
 *   write-after-free (freed_mark); operations free, getmeta, realloc, alloc.
 *   Each bug is reported once: after a report in getmeta the block is
 *   resealed (default, callback) or condemned (tolerate: its later free
 *   leaks it silently).
 * Aliases (the paper's §4.1 spelling; docs/mortise.md, "Aliases"):
 *   chk_sum for the slot chksum (its descriptor).
 * Slots (model language → macro, default):
 *   chksum=magic|xor|crc32 → MT_CHKSUM (xor): policy/chksum/.
 *   err_handle=default|fatal|tolerate|callback → MT_ERR_HANDLE (default):
 *     policy/err/; after an overflow default and callback free the block,
 *     tolerate leaks it, fatal aborts.
 *   head_canary=0|1 → MT_HEAD_CANARY (0): a 16-byte head in front of every
 *     block (an aligned request's head is its alignment) whose last word,
 *     right before the program's first byte, is a canary of the key and
 *     the block's address: a write of 1 to 16 bytes in front of the block
 *     is reported as heap-buffer-underflow (size, address) on its free,
 *     realloc or malloc_usable_size, found by the intact tail words; the
 *     block is then freed like an overflowed one. The size word keeps the
 *     head's length. Every block has a head: where the head would start
 *     the program's block in a granule the page map does not name (far
 *     alignments, 64 KiB and more, of large blocks from the OS layer,
 *     which names only a block's first granule) the layer names that
 *     granule for itself (claim_far; the entry that was there is kept in
 *     its payload and put back before the block goes below), so the
 *     socket routes the program's pointer here; such blocks always take
 *     the slow path (their pointer starts a granule), which adds the claim
 *     and its release (two page-map stores) to the pair. A granule start
 *     named for this layer whose block is found at no head lost its size
 *     word: heap-buffer-overflow of size 0. Only if the page map
 *     cannot take the entry (no leaf for it: out of memory) is the block
 *     headless, at the block below's start, without a canary. The head
 *     holds the layer below's free-list links once the block is free: a
 *     write after free into the program's first bytes no longer reaches
 *     them (the trunks' link_check then misses it; overflows into a free
 *     neighbour still reach them). Cost: one store at malloc, one load and
 *     compare in the inline check, 16 bytes per block
 *     (the alignment for aligned requests); an aligned block's free takes
 *     the slow path (the canary names its head's length, so it looks in
 *     one place; only an overwritten canary makes it try every head the
 *     pointer's alignment allows). Not with a safety layer below (a compile error:
 *     delayed_free's header already sits in front of the block and
 *     reports underflows); over tlsf_glk only with the risk that a wild
 *     free 16 bytes past a granule start makes tlsf_glk read the granule
 *     before (its boundary tag).
 *   freed_mark=0|1 → MT_FREED_MARK (0; needs head_canary=1): free writes a
 *     mark (the canary's word of the key and the address, inverted) into
 *     the freed block's canary and into the program's first 8 bytes; when
 *     the layer below hands the block out again, a canary that holds the
 *     mark over a first word that does not is reported as write-after-free
 *     (operation alloc, the block's former size) — the trunk's free-list
 *     link lies in the head, out of reach of such a write, so without the
 *     mark nothing would see it. The block is then handed out (default,
 *     callback) or leaked and another taken (tolerate). Blocks of under 8
 *     bytes (their check word covers the first word) and aligned blocks
 *     are not marked. Every layer below must clear the canary's word of a
 *     block it carves anew (MT_TRAIT_FRESH_HEADS, core/ctx.h: mmap_heap,
 *     segfit_lf, segfit_lk, slab_wf), so a mark left at some place by an
 *     earlier life of the memory is never taken for this block's;
 *     MT_COMPOSE rejects the chain otherwise. Cost: two stores at free,
 *     two loads and a compare at alloc.
 * Needs from below: getmeta answering the usable size of every block it
 *   handed out (every layer does), resize optional. An alloc below that
 *   hands back the usable size with the block (core/ctx.h's hint: slab_wf's
 *   fast path, delayed_free) spares malloc that getmeta; it must be what
 *   getmeta would answer, since free finds the size word by getmeta's.
 * Place it: directly under the socket, above any cache (thread_cache,
 *   tarrcache, ...): a cache above it would hand out blocks without a new
 *   check word. With delayed_free, above it: delayed_free's block (header
 *   and all) is then the block this layer seals, overflows are reported at
 *   the free itself with the program's address, and the quarantine keeps
 *   the checked block. A safety layer below reports the blocks its getmeta
 *   refuses (double, invalid frees), so this layer then stays silent about
 *   them and leaves them alone: each bug is reported once.
 * Does not detect: writes after free (without freed_mark; with it, those
 *   past the first 8 bytes, and any to a block not handed out again);
 *   writes in front of the block without head_canary (they
 *   land in the previous block's size word, found only when that block is
 *   freed); reads past the end; writes that skip the check word and
 *   the size word (non-linear); overflows into the slack past the size word
 *   that the lower layer gave as usable but the program never asked for are
 *   caught (the check word is right after the requested size), but a
 *   double free after the layer below reused the block is not.
 * Time: alloc = two stores, and one getmeta below (a page-map lookup)
 *   unless the alloc below handed back the usable size; the layers below
 *   are asked quick (core/ctx.h's MT_ALLOC_QUICK) and a miss, the
 *   process's first alloc and a broken freed mark go to one out-of-line
 *   call, so over a layer that answers quick (thread_cache; not slab_wf,
 *   which calls its slow path) the inline alloc calls nothing; free
 *   and getmeta = one getmeta below, two loads, the policy's check and one
 *   store (a compare per granule edge); resize (realloc) the same, in place
 *   and inline while the usable size below holds the new size and both
 *   words, else out of line; the key is loaded once per operation; reports
 *   out of line (tools/fastpath.sh counts the instructions of a composed
 *   pair). Space: 16 bytes per block (check
 *   word and size word; 32 with head_canary), plus the rounding of the
 *   layer below.
 * Thread safety: no state but the per-process key (and, with head_canary,
 *   the page-map entries of far-aligned blocks' granules: single words
 *   inside the block, which only the block's holder names); all
 *   operations on any thread. No locks, nothing at fork. Check: forwarded — the layer keeps
 *   no record of its blocks to walk; each block's words are verified on
 *   its free, realloc and getmeta.
 * Fails: only when the layer below fails (ctx->err from it).
 * Example (wfslabs: wfslab + tail_chksum(chksum=xor, err_handle=default,
 *   head_canary=1)):
 *     #include <mortise/layers/slab_wf.h>          // ... wfslab's layers
 *     #define MT_CHKSUM       xor
 *     #define MT_ERR_HANDLE   default
 *     #define MT_HEAD_CANARY  1
 *     #include <mortise/layers/tail_chksum.h>
 *     #include <mortise/sockets/malloc_socket.h>
 *     MT_COMPOSE(mmap_heap, segfit_lf, slab_wf, tail_chksum, malloc_socket)
 *   With delayed_free too (tlsfccsd): tail_chksum above delayed_free, e.g.
 *     MT_COMPOSE(brk_heap, tlsf_glk, delayed_free, tail_chksum, malloc_socket)
 */
/* The layer's descriptor (core/describe.h): the data tools/describe_layers.py
 * reads and core/layer_end.h checks the slots against. */
#define MT_DESCRIPTOR_tail_chksum(LAYER, SLOT)                                                 \
    LAYER(tail_chksum, addon,                                                                  \
          (MT_TRAIT_REPORTS_INVALID | MT_TRAIT_WANTS_USABLE | MT_TRAIT_ADDS_TAIL |             \
           (MT_FREED_MARK ? MT_TRAIT_NEEDS_FRESH_HEADS : 0) |                                  \
           (MT_HEAD_CANARY ? MT_TRAIT_NO_SAFETY_BELOW : 0)),                                   \
          (), ())                                                                              \
    MT_OPS(SLOT, alloc, free, getmeta, resize)                                                 \
    SLOT(chksum, MT_CHKSUM, CHOICE, xor, (magic, xor, crc32), (chk_sum))                       \
    SLOT(err_handle, MT_ERR_HANDLE, CHOICE, default, (default, fatal, tolerate, callback), ()) \
    SLOT(head_canary, MT_HEAD_CANARY, BOOL, 0, (0, 1), ())                                     \
    SLOT(freed_mark, MT_FREED_MARK, BOOL, 0, (0, 1), ())
#ifndef MT_DESCRIBE /* describe mode reads the descriptor alone */
#include "../core/layer.h"

#ifdef MT_NAME /* another instance name: the names below become its own */
#include "../names/tail_chksum.h"
#else
#define MT_NAME tail_chksum
#endif
#ifndef MT_CHKSUM
#define MT_CHKSUM xor
#endif
#ifndef MT_ERR_HANDLE
#define MT_ERR_HANDLE default
#endif
#ifndef MT_HEAD_CANARY
#define MT_HEAD_CANARY 0
#endif
#ifndef MT_FREED_MARK
#define MT_FREED_MARK 0
#endif
#if MT_FREED_MARK && !MT_HEAD_CANARY
#error "tail_chksum: freed_mark=1 needs head_canary=1 (the mark's state word is the head's canary)"
#endif

/* A safety layer below reports every block its getmeta refuses; then a
 * refusal needs no second report here. (head_canary=1 over one does not
 * compose: MT_TRAIT_NO_SAFETY_BELOW.) */
MT_DECLARE_BELOW_TRAITS;
#define MT_TAIL_BELOW_REPORTS ((MT_BELOW_TRAITS() & MT_TRAIT_REPORTS_INVALID) != 0)
/* Bytes in front of the program's block (the canary and a spare word, so
 * the block stays 16-aligned); an aligned request gets its alignment. */
enum { tail_chksum_head = MT_HEAD_CANARY ? 16 : 0 };
#if MT_HEAD_CANARY
/* names the granule a far-aligned block's program pointer starts (claim_far) */
enum { tail_chksum_id = MT_NEW_LAYER_ID };
#define MT_SELF_ID MT_SELF(id)
#endif

#include "../written/tail_chksum/safety_common.inl"

#ifndef MORTISE_LAYERS_TAIL_CHKSUM_ONCE
#define MORTISE_LAYERS_TAIL_CHKSUM_ONCE
#define MT_TAIL_WORD ((size_t)8)              /* the check word */
#define MT_TAIL_OVERHEAD MT_SAFETY_TAIL_BYTES /* check word + size word (MT_TRAIT_ADDS_TAIL) */
#define MT_TAIL_FREED 0x46524545d00dfeedull
#define MT_TAIL_CONDEMNED 0x434f4e44454d4e21ull
#define MT_TAIL_OFFSET_SHIFT 56 /* the size word's top byte: log2 of the head's length */
#define MT_TAIL_SIZE_BITS ((UINT64_C(1) << MT_TAIL_OFFSET_SHIFT) - 1)
#define MT_TAIL_MAX_OFFSET_LOG2 40   /* longest head: the largest alignment a block below can have */
#define MT_TAIL_LOOKBACK 256         /* steps of 16 bytes when looking for an enclosing block */
#define MT_TAIL_LOOKBACK_GRANULES 64 /* granule starts looked at after those (4 MiB) */
/* What examine() finds: intact, not a block start, check word overwritten,
 * size word overwritten too (size unknown), freed, condemned; and with a
 * head canary, an intact tail under an overwritten canary. */
enum {
    MT_TAIL_OK,
    MT_TAIL_INVALID,
    MT_TAIL_OVERFLOW,
    MT_TAIL_WRECKED,
    MT_TAIL_FREED_BLOCK,
    MT_TAIL_CONDEMNED_BLOCK,
    MT_TAIL_REPORTED_BELOW, /* the safety layer below refused (and reported) it */
    MT_TAIL_UNDERFLOW
};
#endif

MT_DECLARE_BELOW(getmeta);

/* The size word's mask: the key and the address, so a size copied from
 * another block or written without the key decodes to nonsense. Each
 * operation loads the key once and passes it on (see policy/chksum). */
MT_INLINE uint64_t tail_chksum_size_mask(uint64_t key, const void *p)
{
    return key ^ ((uint64_t)(uintptr_t)p << 12);
}

MT_INLINE uint64_t tail_chksum_check_word(uint64_t key, const void *p, size_t size)
{
    return MT_CHKSUM_FN(MT_CHKSUM, keyed)(key, (uintptr_t)p, size);
}

/* The head canary of the program's block u: keyed like the size word but
 * shifted the other way, so a size word copied in front of a block is no
 * canary (and no check word: those hold the address unshifted). */
MT_INLINE uint64_t tail_chksum_canary(uint64_t key, const void *u)
{
    return key ^ ((uint64_t)(uintptr_t)u >> 4);
}

/* freed_mark: the word a freed block keeps in its canary and in its
 * program's first word until it is handed out again: the canary inverted,
 * which names no head length (inspect_named). */
MT_INLINE uint64_t tail_chksum_freed_mark(uint64_t key, const void *u) { return ~tail_chksum_canary(key, u); }

/* The canary as stored: it names the head's length (log2 - 4, so 0 for
 * the common 16), so that the slow paths look for the block below at one
 * place, in the block's own memory. */
MT_INLINE uint64_t tail_chksum_head_canary(uint64_t key, const void *u, size_t head)
{
    return tail_chksum_canary(key, u) ^ (uint64_t)(__builtin_ctzll(head) - 4);
}

/* The size word keeps the head's length (a power of two) in its top byte:
 * an aligned block's head is its alignment; 0 for a headless block (a far
 * alignment whose granule claim_far could not name: the socket could not
 * route the program's pointer). */
MT_INLINE uint64_t tail_chksum_head_bits(size_t head)
{
    return MT_HEAD_CANARY && head ? (uint64_t)__builtin_ctzll(head) << MT_TAIL_OFFSET_SHIFT : 0;
}

#if MT_HEAD_CANARY
/* A far-aligned block (its program pointer u starts a granule inside a
 * large block whose owner names only the first): name u's granule for this
 * layer, so that the socket routes u here, keeping the entry that was there
 * (an owner-0 entry's payload: an OS layer's free-range record) as payload
 * for free_far to put back. Returns the head, or 0 when the page map could
 * not take the entry (no leaf): the block is then headless, at p. */
MT_SLOW size_t tail_chksum_claim_far(char *u, size_t head)
{
    uintptr_t prev = mt_pagemap_get(u);
    mt_pagemap_set(u, MT_GRANULE, mt_entry(MT_SELF_ID, mt_entry_payload(prev)));
    return mt_entry_owner(mt_pagemap_get(u)) == (uintptr_t)MT_SELF_ID ? head : 0;
}
#endif

/* Seal the block p from below for a program block of size bytes `head`
 * bytes in: the canary in front of it, the check word after it and the
 * size word at the end. */
MT_INLINE void tail_chksum_seal(uint64_t key, char *p, size_t head, size_t size, size_t usable)
{
    char *u = p + head;
    if (MT_HEAD_CANARY && head)
        mt_safety_store(u - MT_TAIL_WORD, tail_chksum_head_canary(key, u, head));
    mt_safety_store(u + size, tail_chksum_check_word(key, u, size));
    mt_safety_store(p + usable - MT_TAIL_WORD,
                    (size | tail_chksum_head_bits(head)) ^ tail_chksum_size_mask(key, p));
}

/* Usable size below of a block this layer does not yet know (0 if none). */
MT_INLINE size_t tail_chksum_usable_below(void *p)
{
    mt_ctx q = mt_ctx_for_alloc(0, 1);
    mt_ctx_route(&q, p);
    return MT_BELOW(getmeta)(&q) ? q.usable : 0;
}

/* The sealed block's requested size, if p is a sealed block whose words
 * are intact and lie in p's granule, with the head an unaligned request
 * gets (the common case, inline); SIZE_MAX sends the caller to its slow
 * path. `usable` is from below, `key` the fixed key (0, not yet fixed:
 * slow path). */
MT_INLINE size_t tail_chksum_quick_size(uint64_t key, const char *p, size_t usable)
{
    const size_t extra = MT_TAIL_OVERHEAD + tail_chksum_head;
    const char *u = p + tail_chksum_head;
    /* one compare for usable < extra and usable > a granule (the owner's
     * answer for a pointer inside a block may be anything; a block in one
     * granule is no larger) */
    /* (with a head, vouch checked the program's pointer's alignment) */
    if (MT_UNLIKELY(usable - extra > MT_GRANULE - extra || !key ||
                    (!MT_HEAD_CANARY && ((uintptr_t)p & (MT_MIN_ALIGN - 1)) != 0) ||
                    (((uintptr_t)p ^ ((uintptr_t)p + usable - 1)) >> MT_GRANULE_SHIFT) != 0))
        return SIZE_MAX;
    /* the canary first: it lies in the block's own head, and only a block
     * whose head is 16 bytes has its size word where `usable` says (an
     * aligned block's usable answer is for a pointer inside it) */
    if (MT_HEAD_CANARY &&
        MT_UNLIKELY(mt_safety_load(u - MT_TAIL_WORD) != tail_chksum_head_canary(key, u, tail_chksum_head)))
        return SIZE_MAX;
    size_t size = mt_safety_load(p + usable - MT_TAIL_WORD) ^ tail_chksum_size_mask(key, p) ^
                  tail_chksum_head_bits(tail_chksum_head);
    if (MT_UNLIKELY(size > usable - extra))
        return SIZE_MAX;
    if (MT_UNLIKELY(mt_safety_load(u + size) != tail_chksum_check_word(key, u, size)))
        return SIZE_MAX;
    return size;
}

/* Is p (from below) a sealed (or freed or condemned) block of usable
 * bytes? *size gets its size and *head the length of its head; reads only
 * what mt_safety_word_readable allows. The canary is the caller's. */
MT_SLOW int tail_chksum_examine(char *p, size_t usable, size_t *size, size_t *head)
{
    *size = 0;
    *head = 0;
    if (usable < MT_TAIL_OVERHEAD + tail_chksum_head || usable > MT_MAX_REQUEST ||
        !mt_safety_word_readable(p, p + usable - MT_TAIL_WORD))
        return MT_TAIL_INVALID;
    uint64_t key = mt_chksum_key();
    uint64_t word = mt_safety_load(p + usable - MT_TAIL_WORD) ^ tail_chksum_size_mask(key, p);
    size_t h = 0, s = word;
    if (tail_chksum_head) {
        size_t log2 = (size_t)(word >> MT_TAIL_OFFSET_SHIFT);
        if ((log2 && log2 < 4) || log2 > MT_TAIL_MAX_OFFSET_LOG2)
            return MT_TAIL_WRECKED;
        h = log2 ? (size_t)1 << log2 : 0; /* 0: a headless block (claim_far failed) */
        s = word & MT_TAIL_SIZE_BITS;
    }
    if (h > usable - MT_TAIL_OVERHEAD || s > usable - MT_TAIL_OVERHEAD - h ||
        !mt_safety_word_readable(p, p + h + s))
        return MT_TAIL_WRECKED;
    *size = s;
    *head = h;
    uint64_t want = tail_chksum_check_word(key, p + h, s), got = mt_safety_load(p + h + s);
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
MT_SLOW bool tail_chksum_sealed_over(uintptr_t b, size_t usable, uintptr_t p)
{
    size_t size, head;
    if (usable > MT_MAX_REQUEST || b + usable <= p)
        return false;
    int state = tail_chksum_examine((char *)b, usable, &size, &head);
    return state != MT_TAIL_INVALID && state != MT_TAIL_WRECKED;
}

/* Does some layer below own b, and what is its usable size (q->usable)?
 * getmeta below may read in front of b (tlsf_glk's 16-byte boundary tag):
 * only asked where that memory is mapped, unless `aligned_start` says b
 * is 16-aligned, so that the tag lies in b's own (owned) granule or b
 * starts one (head_canary's candidates: a block below at a granule start
 * is a large block, whose owner reads nothing in front). */
MT_SLOW bool tail_chksum_owned_at(uintptr_t b, mt_ctx *q, bool aligned_start)
{
    *q = mt_ctx_for_alloc(0, 1);
    mt_ctx_route(q, (void *)b);
    if (!q->owner || (!aligned_start && (b & (MT_GRANULE - 1)) < 64 && !mt_safety_page_mapped(b - 64)))
        return false;
    return MT_BELOW(getmeta)(q) != NULL;
}

MT_SLOW bool tail_chksum_encloses(uintptr_t b, uintptr_t p)
{
    mt_ctx q;
    return tail_chksum_owned_at(b, &q, false) && tail_chksum_sealed_over(b, q.usable, p);
}

/* Does a sealed block start before p and reach past it? Then p points
 * inside it. Looked for in 16-byte steps back to p's granule's start (at
 * most MT_TAIL_LOOKBACK), with the usable size the owner gave for p (a
 * slab's blocks all have it), that size plus the distance (an owner that
 * answers the room from p to the block's end), and the owner's answer for
 * the candidate,
 * then at the starts of the MT_TAIL_LOOKBACK_GRANULES granules before
 * (large blocks start on one). Only on the error path. */
MT_SLOW bool tail_chksum_inside_block(char *p, size_t usable)
{
    uintptr_t at = (uintptr_t)p, base = mt_align_down_ptr(at, MT_GRANULE);
    for (size_t step = 1; step <= MT_TAIL_LOOKBACK && at - step * MT_MIN_ALIGN >= base; step++) {
        uintptr_t b = at - step * MT_MIN_ALIGN;
        if (tail_chksum_sealed_over(b, usable, at) || tail_chksum_sealed_over(b, usable + (at - b), at) ||
            tail_chksum_encloses(b, at))
            return true;
    }
    for (size_t k = 0; k < MT_TAIL_LOOKBACK_GRANULES && base >= k * MT_GRANULE; k++) {
        uintptr_t b = base - k * MT_GRANULE;
        if (b != at && (k > 0 || at - base > MT_TAIL_LOOKBACK * MT_MIN_ALIGN) && tail_chksum_encloses(b, at))
            return true;
    }
    return false;
}

/* With a head canary: the block below h bytes in front of the program's
 * block u, if its size word names that head; UNDERFLOW: its tail is
 * intact but the canary is not; INVALID: no such block. */
MT_SLOW int tail_chksum_headed_at(char *u, size_t h, size_t *size, size_t *usable)
{
    size_t s, found;
    mt_ctx q;
    if ((uintptr_t)u < h || !tail_chksum_owned_at((uintptr_t)u - h, &q, true))
        return MT_TAIL_INVALID;
    int state = tail_chksum_examine(u - h, q.usable, &s, &found);
    if (found != h || state == MT_TAIL_INVALID || state == MT_TAIL_WRECKED)
        return MT_TAIL_INVALID;
    *size = s;
    *usable = q.usable;
    if (state == MT_TAIL_OK &&
        mt_safety_load(u - MT_TAIL_WORD) != tail_chksum_head_canary(mt_chksum_key(), u, h))
        return MT_TAIL_UNDERFLOW;
    return state;
}

/* With a head canary: the block below whose program block starts at u,
 * at the head its canary names (one look, in the block's own memory).
 * INVALID: the canary names none (overwritten: an underflow; or a
 * headless block's, whose canary word is not its own). */
MT_SLOW int tail_chksum_inspect_named(char *u, size_t *size, size_t *usable, size_t *head)
{
    uintptr_t at = (uintptr_t)u;
    if (!mt_safety_word_readable(u, u - MT_TAIL_WORD))
        return MT_TAIL_INVALID;
    uint64_t named = mt_safety_load(u - MT_TAIL_WORD) ^ tail_chksum_canary(mt_chksum_key(), u);
    if (named > MT_TAIL_MAX_OFFSET_LOG2 - 4 || (at & (((size_t)16 << named) - 1)))
        return MT_TAIL_INVALID;
    int state = tail_chksum_headed_at(u, (size_t)16 << named, size, usable);
    if (state != MT_TAIL_INVALID)
        *head = (size_t)16 << named;
    return state;
}

/* With a head canary, after inspect_named found nothing: every head
 * length u's alignment allows, 16 first (an underflow overwrote the
 * canary). Reads other blocks' words: only on the way to a report. */
MT_SLOW int tail_chksum_inspect_heads(char *u, size_t *size, size_t *usable, size_t *head)
{
    uintptr_t at = (uintptr_t)u;
    int state;
    for (size_t log2 = 4; log2 <= MT_TAIL_MAX_OFFSET_LOG2 && !(at & (((size_t)1 << log2) - 1)); log2++)
        if ((state = tail_chksum_headed_at(u, (size_t)1 << log2, size, usable)) != MT_TAIL_INVALID) {
            *head = (size_t)1 << log2;
            return state;
        }
    return MT_TAIL_INVALID;
}

/* Classify the block at ctx->ptr (routed): MT_TAIL_* and its size; *head:
 * how far in front of it the block below starts. */
MT_SLOW int tail_chksum_inspect(const mt_ctx *ctx, size_t *size, size_t *usable, size_t *head)
{
    char *p = ctx->ptr;
    mt_ctx q = *ctx;
    size_t found;
    *size = 0;
    *usable = 0;
    *head = 0;
    if (((uintptr_t)p & (MT_MIN_ALIGN - 1)) && !MT_TAIL_BELOW_REPORTS)
        return MT_TAIL_INVALID;
    /* with a head: the head the canary names; else a headless block (a
     * far alignment claim_far could not name: a granule start) at p
     * itself; else every head (an underflow) */
    bool owned = false;
    int state = MT_TAIL_INVALID;
    if (MT_HEAD_CANARY && (state = tail_chksum_inspect_named(p, size, usable, head)) != MT_TAIL_INVALID)
        return state;
    if (!MT_HEAD_CANARY || !((uintptr_t)p & (MT_GRANULE - 1))) {
        owned = MT_BELOW(getmeta)(&q) != NULL;
        state = owned ? tail_chksum_examine(p, q.usable, size, &found) : MT_TAIL_INVALID;
    }
    if (MT_HEAD_CANARY && (state == MT_TAIL_INVALID || state == MT_TAIL_WRECKED || found)) {
        int headed = tail_chksum_inspect_heads(p, size, usable, head);
        if (headed != MT_TAIL_INVALID)
            return headed;
        owned = MT_BELOW(getmeta)(&q) != NULL;
        state = owned ? tail_chksum_examine(p, q.usable, size, &found) : MT_TAIL_INVALID;
    }
#if MT_HEAD_CANARY
    /* a granule start named for this layer is a far-aligned block's
     * program pointer (claim_far; the claim goes with the block): found at
     * no head, its size word is destroyed */
    if (!owned && ctx->owner == (uintptr_t)MT_SELF_ID && !((uintptr_t)p & (MT_GRANULE - 1)))
        return MT_TAIL_WRECKED;
#endif
    if (!owned)
        return MT_TAIL_BELOW_REPORTS ? MT_TAIL_REPORTED_BELOW : MT_TAIL_INVALID;
    *usable = q.usable;
    /* with a head, p starts no headed block (inspect_*): a block below
     * starting at p is the program's only if it is headless */
    if (MT_HEAD_CANARY && state != MT_TAIL_WRECKED && (state == MT_TAIL_INVALID || found))
        return MT_TAIL_INVALID;
    /* (below a safety layer getmeta vouched for p: no pointer inside a block) */
    /* clang-format off */
    if (state == MT_TAIL_WRECKED && !MT_TAIL_BELOW_REPORTS && tail_chksum_inside_block(p, q.usable))
        return MT_TAIL_INVALID;
    /* clang-format on */
    return state;
}

/* freed_mark: the program's block u of size bytes (head bytes in front) is
 * being freed: its canary and its first word get the mark, which alloc
 * checks when the layer below hands the block out again. A block whose
 * check word covers its first word (under 8 bytes) or with another head
 * (aligned) keeps its canary and is not checked. */
MT_INLINE void tail_chksum_mark_freed(uint64_t key, char *u, size_t size, size_t head)
{
    if (MT_FREED_MARK && head == tail_chksum_head && size >= MT_TAIL_WORD) {
        uint64_t mark = tail_chksum_freed_mark(key, u);
        mt_safety_store(u - MT_TAIL_WORD, mark);
        mt_safety_store(u, mark);
    }
}

/* freed_mark: is p from below a block this layer freed with the mark whose
 * first word the program wrote after the free? The layers below clear the
 * canary's word of a block they carve anew (MT_TRAIT_FRESH_HEADS), so a
 * mark in it is this very block's. */
MT_INLINE bool tail_chksum_mark_broken_at(uint64_t key, const char *p)
{
    const char *u = p + tail_chksum_head;
    uint64_t mark = tail_chksum_freed_mark(key, u);
    /* both loads, one branch: most blocks a slab hands out were freed here */
    return (int)(mt_safety_load(u - MT_TAIL_WORD) == mark) & (int)(mt_safety_load(u) != mark);
}

/* freed_mark: report the block p (usable bytes) from below whose mark
 * mark_broken_at found overwritten; under a policy that leaks damaged blocks
 * take others until one is intact. Returns the block to seal (its usable
 * size in ctx->usable) or NULL (ctx->err). want: what to ask below. */
MT_SLOW MT_UNUSED char *tail_chksum_mark_broken(mt_ctx *ctx, mt_lfunc *next, char *p, size_t usable,
                                                size_t want)
{
    for (;;) {
        uint64_t key = mt_chksum_key();
        /* the freed block's size word is still there, unless the write reached it too */
        size_t size = (size_t)((mt_safety_load(p + usable - MT_TAIL_WORD) ^ tail_chksum_size_mask(key, p)) &
                               MT_TAIL_SIZE_BITS);
        size_t most = usable - MT_TAIL_OVERHEAD - tail_chksum_head;
        tail_chksum_raise(MORTISE_BUG_WRITE_AFTER_FREE, p + tail_chksum_head, size <= most ? size : most,
                          "alloc");
        ctx->usable = usable;
        if (!MT_ERR_LEAKS(MT_ERR_HANDLE))
            return p;
        ctx->ptr = NULL;
        ctx->size = want;
        p = next(ctx);
        if (!p)
            return NULL;
        usable = ctx->ptr == p ? ctx->usable : tail_chksum_usable_below(p);
        if (!tail_chksum_mark_broken_at(key, p)) {
            ctx->usable = usable;
            return p;
        }
    }
}

/* Seal the block p from below (usable bytes) for a request of size bytes
 * behind a head of head bytes, and answer it. */
MT_INLINE void *tail_chksum_finish(mt_ctx *ctx, uint64_t key, char *p, size_t size, size_t head,
                                   size_t usable)
{
#if MT_HEAD_CANARY
    if (MT_UNLIKELY(head > tail_chksum_head) &&
        (((uintptr_t)p ^ (uintptr_t)(p + head)) >> MT_GRANULE_SHIFT) &&
        !mt_entry_owner(mt_pagemap_get(p + head)))
        head = tail_chksum_claim_far(p + head, head); /* the program's block starts a granule nobody names */
#endif
    tail_chksum_seal(key, p, head, size, usable);
    if (MT_HEAD_CANARY && ctx->zeroed == p)
        ctx->zeroed = p + head; /* the program's bytes are still fresh zeroes */
    ctx->ptr = p + head;        /* the hint for a layer above: getmeta's answer */
    ctx->usable = size;
    return p + head;
}

MT_INLINE void *tail_chksum_sealed_from(mt_ctx *ctx, mt_lfunc *next, size_t size, size_t head, bool quick);

/* An alloc's two ways off its inline path, in one out-of-line call, last
 * (one call site: the inline alloc then keeps nothing across a call and
 * needs no stack frame). p NULL: the quick request missed below; the same
 * request again, every layer below on its ordinary path. Else (freed_mark)
 * the block p from below (usable bytes) was freed here and its first word
 * written since: report it, then seal it or the one taken instead. */
MT_SLOW MT_UNUSED void *tail_chksum_alloc_slow(mt_ctx *ctx, mt_lfunc *next, char *p, size_t usable,
                                               size_t head)
{
    size_t size = ctx->size;
    if (!p) {
        (void)mt_chksum_key(); /* fixed here by the process's first alloc */
        ctx->ptr = NULL;
        return tail_chksum_sealed_from(ctx, next, size, head, false);
    }
    p = tail_chksum_mark_broken(ctx, next, p, usable, size + head + MT_TAIL_OVERHEAD);
    ctx->size = size;
    if (!p)
        return NULL;
    return tail_chksum_finish(ctx, mt_chksum_key(), p, size, head, ctx->usable);
}

/* Ask `next` (alloc, or the owner's resize of the block below at ctx->ptr)
 * for size bytes, the head and both words, and seal what it gives. The key
 * is loaded after the layers below ran (the caller fixed it): kept across
 * them it would cost a saved register on every call, their slow paths
 * being calls. An alloc (quick) asks below with MT_ALLOC_QUICK and repeats
 * a miss out of line: over a layer that answers quick, no call inline. */
MT_INLINE void *tail_chksum_sealed_from(mt_ctx *ctx, mt_lfunc *next, size_t size, size_t head, bool quick)
{
    /* an alloc may hand back the block's usable size (core/ctx.h): trusted
     * only for the block it names; a resize's ctx->ptr is the old block */
    bool hinted = ctx->ptr == NULL;
    char *p = NULL;
    size_t usable = 0;
    if (quick && MT_UNLIKELY(!mt_chksum_key_if_set()))
        goto slow; /* the key is fixed out of line */
    ctx->size = size + head + MT_TAIL_OVERHEAD;
    if (quick)
        ctx->chain = MT_ALLOC_QUICK;
    p = next(ctx);
    ctx->size = size;
    if (MT_UNLIKELY(!p)) {
        if (!quick)
            return NULL;
        ctx->chain = NULL;
        goto slow;
    }
    if (hinted && ctx->ptr == p) {
        usable = ctx->usable; /* getmeta's answer: it holds what was asked */
        MT_ASSERT(usable == tail_chksum_usable_below(p));
    } else {
        usable = tail_chksum_usable_below(p);
        if (MT_UNLIKELY(usable < size + head + MT_TAIL_OVERHEAD)) /* a layer below without getmeta */
            usable = size + head + MT_TAIL_OVERHEAD;
    }
    uint64_t key = mt_chksum_key_if_set();
    if (MT_FREED_MARK && hinted && head == tail_chksum_head &&
        MT_UNLIKELY(tail_chksum_mark_broken_at(key, p))) {
        if (quick)
            ctx->chain = NULL;
        goto slow;
    }
    return tail_chksum_finish(ctx, key, p, size, head, usable);
slow:
    return MT_COLD_CALL(ctx, copy, tail_chksum_alloc_slow(&copy, next, p, usable, head));
}

#define MT_IMPLEMENTS_alloc
MT_INLINE void *tail_chksum_alloc(mt_ctx *ctx, mt_lfunc *next)
{
    size_t head = tail_chksum_head;
    if (MT_HEAD_CANARY && MT_UNLIKELY(ctx->align > head)) {
        /* the block below aligned as asked, the program's one alignment
         * bytes into it */
        head = ctx->align;
        if (head > MT_MAX_REQUEST - ctx->size || head > ((size_t)1 << MT_TAIL_MAX_OFFSET_LOG2)) {
            ctx->err = MT_ENOMEM;
            return NULL;
        }
    }
    ctx->ptr = NULL; /* (sealed_from: a fresh block's usable-size hint) */
    return tail_chksum_sealed_from(ctx, next, ctx->size, head, true);
}

/* The inline check of free, getmeta and resize: the requested size of the
 * intact block at ctx->ptr (routed) and its usable size below; SIZE_MAX
 * for the slow path. A safety layer below is asked only for what its
 * inline check vouches for (MT_SAFETY_QUICK): whatever it refuses, the
 * slow path asks again and it reports there, once. With a head, the
 * block below is asked for 16 bytes in front (in the same granule, so the
 * routing holds; a block at a granule start takes the slow path). */
MT_INLINE size_t tail_chksum_vouch(const mt_ctx *ctx, uint64_t key, size_t *usable)
{
    mt_ctx q = *ctx;
    /* not 16-aligned: no block start, and the owner's getmeta is not asked
     * (tlsf_glk's reads a boundary tag in front of the pointer) */
    bool aligned = ((uintptr_t)ctx->ptr & (MT_MIN_ALIGN - 1)) == 0;
    if (tail_chksum_head) {
        aligned = aligned && ((uintptr_t)ctx->ptr & (MT_GRANULE - 1)) != 0;
        q.ptr = (char *)ctx->ptr - tail_chksum_head;
    }
    q.chain = MT_SAFETY_QUICK; /* a refusal is decided (and reported) on the slow path */
    void *owned = aligned ? MT_BELOW(getmeta)(&q) : NULL;
    *usable = q.usable;
    return owned ? tail_chksum_quick_size(key, q.ptr, q.usable) : SIZE_MAX;
}

#if MT_HEAD_CANARY
/* Hand a block whose program pointer starts a granule to `next`, that
 * granule's entry first put back as it was if claim_far named it. */
MT_SLOW void *tail_chksum_free_far(mt_ctx *ctx, mt_lfunc *next, size_t head)
{
    char *u = ctx->ptr;
    uintptr_t e = mt_pagemap_get(u);
    if (mt_entry_owner(e) == (uintptr_t)MT_SELF_ID)
        mt_pagemap_set(u, MT_GRANULE, mt_entry(0, mt_entry_payload(e)));
    mt_ctx_route(ctx, u - head);
    return next(ctx);
}
#endif

/* Hand the block below (head bytes in front of the program's) to `next`. */
MT_INLINE void *tail_chksum_free_below(mt_ctx *ctx, mt_lfunc *next, size_t head)
{
#if MT_HEAD_CANARY
    if (head > tail_chksum_head) { /* an aligned block: its start may be granules before */
        if (((uintptr_t)ctx->ptr & (MT_GRANULE - 1)) == 0) /* only such a block can be claimed */
            return tail_chksum_free_far(ctx, next, head);
        mt_ctx_route(ctx, (char *)ctx->ptr - head);
    } else {
        ctx->ptr = (char *)ctx->ptr - head;
    }
#else
    (void)head;
#endif
    return next(ctx);
}

/* Everything free's inline check does not vouch for. */
MT_SLOW void tail_chksum_free_slow(mt_ctx *ctx, mt_lfunc *next)
{
    size_t size, usable, head;
    char *p = ctx->ptr;
    switch (tail_chksum_inspect(ctx, &size, &usable, &head)) {
    case MT_TAIL_OK: break;
    case MT_TAIL_INVALID: tail_chksum_raise(MORTISE_BUG_INVALID_FREE, p, 0, "free"); return;
    case MT_TAIL_FREED_BLOCK: tail_chksum_raise(MORTISE_BUG_DOUBLE_FREE, p, size, "free"); return;
    case MT_TAIL_CONDEMNED_BLOCK:
    case MT_TAIL_REPORTED_BELOW: return; /* reported before; left alone */
    case MT_TAIL_WRECKED:
        /* never freed below, whatever the policy: a destroyed size word is
         * also what a second free looks like once the layer below reused
         * the block's last word (tlsf_glk's boundary tag) */
        tail_chksum_raise(MORTISE_BUG_HEAP_BUFFER_OVERFLOW, p, 0, "free");
        return;
    case MT_TAIL_UNDERFLOW:
        /* the tail vouches for the block: freed like an overflowed one */
        tail_chksum_raise(MORTISE_BUG_HEAP_BUFFER_UNDERFLOW, p, size, "free");
        if (MT_ERR_LEAKS(MT_ERR_HANDLE))
            return;
        break;
    default:
        tail_chksum_raise(MORTISE_BUG_HEAP_BUFFER_OVERFLOW, p, size, "free");
        if (MT_ERR_LEAKS(MT_ERR_HANDLE))
            return;
        break;
    }
    mt_safety_store(p + size, tail_chksum_check_word(mt_chksum_key(), p, size) ^ MT_TAIL_FREED);
    tail_chksum_mark_freed(mt_chksum_key(), p, size, head);
    (void)tail_chksum_free_below(ctx, next, head);
}

#define MT_IMPLEMENTS_free
MT_INLINE void *tail_chksum_free(mt_ctx *ctx, mt_lfunc *next)
{
    char *p = ctx->ptr;
    uint64_t key = mt_chksum_key_if_set();
    size_t usable;
    if (MT_TAIL_BELOW_REPORTS)
        mt_safety_op_above = "free";
    size_t size = tail_chksum_vouch(ctx, key, &usable);
    if (MT_UNLIKELY(size == SIZE_MAX)) {
        MT_COLD_CALL(ctx, copy, (tail_chksum_free_slow(&copy, next), 0));
        return NULL;
    }
    mt_safety_store(p + size, tail_chksum_check_word(key, p, size) ^ MT_TAIL_FREED);
    tail_chksum_mark_freed(key, p, size, tail_chksum_head);
    return tail_chksum_free_below(ctx, next, tail_chksum_head);
}

/* Everything getmeta's inline check does not vouch for. */
MT_SLOW void *tail_chksum_getmeta_slow(mt_ctx *ctx)
{
    size_t size, usable, head;
    char *p = ctx->ptr;
    switch (tail_chksum_inspect(ctx, &size, &usable, &head)) {
    case MT_TAIL_OK:
    case MT_TAIL_CONDEMNED_BLOCK: break;
    case MT_TAIL_INVALID: tail_chksum_raise(MORTISE_BUG_INVALID_FREE, p, 0, "getmeta"); return NULL;
    case MT_TAIL_REPORTED_BELOW: return NULL;
    case MT_TAIL_FREED_BLOCK: tail_chksum_raise(MORTISE_BUG_DOUBLE_FREE, p, size, "getmeta"); return NULL;
    case MT_TAIL_WRECKED: tail_chksum_raise(MORTISE_BUG_HEAP_BUFFER_OVERFLOW, p, 0, "getmeta"); return NULL;
    case MT_TAIL_UNDERFLOW:
        tail_chksum_raise(MORTISE_BUG_HEAP_BUFFER_UNDERFLOW, p, size, "getmeta");
        /* reported once: a new canary, or condemned so that free leaks it quietly */
        if (MT_ERR_LEAKS(MT_ERR_HANDLE))
            mt_safety_store(p + size, tail_chksum_check_word(mt_chksum_key(), p, size) ^ MT_TAIL_CONDEMNED);
        else
            mt_safety_store(p - MT_TAIL_WORD, tail_chksum_head_canary(mt_chksum_key(), p, head));
        break;
    default:
        tail_chksum_raise(MORTISE_BUG_HEAP_BUFFER_OVERFLOW, p, size, "getmeta");
        /* reported once: reseal, or condemn so that free leaks it quietly */
        mt_safety_store(p + size, tail_chksum_check_word(mt_chksum_key(), p, size) ^
                                      (MT_ERR_LEAKS(MT_ERR_HANDLE) ? MT_TAIL_CONDEMNED : 0));
        break;
    }
    ctx->usable = size;
    ctx->szcls_key = 0;
    return p;
}

#define MT_IMPLEMENTS_getmeta
MT_INLINE void *tail_chksum_getmeta(mt_ctx *ctx, mt_lfunc *next)
{
    uint64_t key = mt_chksum_key_if_set();
    size_t usable;
    (void)next; /* the same chain as MT_BELOW(getmeta) */
    if (MT_TAIL_BELOW_REPORTS)
        mt_safety_op_above = NULL;
    size_t size = tail_chksum_vouch(ctx, key, &usable);
    if (MT_UNLIKELY(size == SIZE_MAX))
        return MT_COLD_GETMETA(ctx, copy, tail_chksum_getmeta_slow(&copy));
    ctx->usable = size;
    ctx->szcls_key = 0;
    return ctx->ptr;
}

/* Grow or shrink the intact block p (usable bytes below, head bytes in
 * front of p) to want bytes: resealed in place while the block below holds
 * them, else the owner's resize of the block below. */
MT_INLINE void *tail_chksum_reseal(mt_ctx *ctx, mt_lfunc *next, uint64_t key, size_t want, size_t usable,
                                   size_t head)
{
    char *p = ctx->ptr;
    if (want > usable - MT_TAIL_OVERHEAD - head) {
        if (head != tail_chksum_head)
            return NULL; /* an aligned block: the socket moves it (the owner's move would keep no alignment) */
        if (tail_chksum_head)
            mt_ctx_route(ctx, p - head);
        return tail_chksum_sealed_from(ctx, next, want, head, false);
    }
    tail_chksum_seal(key, p - head, head, want, usable);
    return p;
}

/* realloc: the socket asked getmeta first (which verified the block), so a
 * block that is not intact here is one getmeta reported: let the socket
 * move it (its free then leaks a condemned block). */
MT_SLOW void *tail_chksum_resize_slow(mt_ctx *ctx, mt_lfunc *next)
{
    size_t size, usable, head;
    if (MT_TAIL_BELOW_REPORTS)
        mt_safety_op_above = "realloc";
    if (tail_chksum_inspect(ctx, &size, &usable, &head) != MT_TAIL_OK)
        return NULL;
    return tail_chksum_reseal(ctx, next, mt_chksum_key(), ctx->size, usable, head);
}

/* Inline: an intact block whose usable size below still holds the new size
 * and both words is resealed in place, as many times as the program grows
 * or shrinks it within that size (a realloc-heavy program does little
 * else); an intact one too small goes to its owner's resize (moving is the
 * socket's); everything else the slow way. */
#define MT_IMPLEMENTS_resize
MT_INLINE void *tail_chksum_resize(mt_ctx *ctx, mt_lfunc *next)
{
    size_t usable;
    uint64_t key = mt_chksum_key_if_set();
    if (MT_TAIL_BELOW_REPORTS)
        mt_safety_op_above = "realloc";
    size_t size = tail_chksum_vouch(ctx, key, &usable);
    if (MT_UNLIKELY(size == SIZE_MAX))
        return MT_COLD_CALL(ctx, copy, tail_chksum_resize_slow(&copy, next));
    return tail_chksum_reseal(ctx, next, key, ctx->size, usable, tail_chksum_head);
}

/* Its traits (descriptor, core/ctx.h): a safety layer (safety/common.h)
 * that adds its two words to every request and reads the usable-size hint
 * (sealed_from); with freed_mark, mark_broken_at trusts a mark in the head,
 * so the layers below clear a fresh block's second word; with head_canary,
 * no safety layer below, whose header would already lie in front of the
 * block */
#define MT_DESCRIPTOR MT_DESCRIPTOR_tail_chksum
#include "../core/layer_end.h"
/* Forget this instance's slots: the next instance starts from the defaults. */
#undef MT_CHKSUM
#undef MT_ERR_HANDLE
#undef MT_HEAD_CANARY
#undef MT_FREED_MARK
#undef MT_TAIL_BELOW_REPORTS
#ifdef MT_NAMES_tail_chksum
#include "../names/tail_chksum.h" /* forget them */
#endif
#endif /* MT_DESCRIBE */

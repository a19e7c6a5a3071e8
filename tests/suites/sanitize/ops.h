/* tests/suites/sanitize/ops.h — the operation engine shared by the sanitizer stress
 * tests and the fuzzer: one call applies one operation of the san_ family to
 * a slot of a table of live blocks and checks everything the answer promises,
 * against a shadow of what each block must contain:
 *   - the block is non-NULL (sizes here are small), aligned as asked (at least
 *     16 for malloc-style calls) and has usable size >= the request;
 *   - calloc'd memory is zero, realloc keeps the old prefix;
 *   - every block holds its own byte pattern (derived from a tag) from its
 *     allocation to its free: an allocator that hands out overlapping or
 *     still-live memory, or writes into a live block, breaks some pattern
 *     (all bytes of the first 256 KiB, then 128 bytes of every page);
 *   - with few slots, a new block is checked not to overlap any live one.
 * A failed check prints what was expected and aborts: the sanitizer runtime
 * and libFuzzer both turn that into a failing run.
 */
#ifndef MORTISE_TEST_OPS_H
#define MORTISE_TEST_OPS_H
#include "san_alloc.h"
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "ops.h: the word-wise pattern assumes a little-endian target"
#endif

enum op_kind {
    OP_MALLOC,
    OP_CALLOC,
    OP_REALLOC,
    OP_REALLOCARRAY,
    OP_ALIGNED_ALLOC,
    OP_MEMALIGN,
    OP_POSIX_MEMALIGN,
    OP_VALLOC,
    OP_PVALLOC,
    OP_FREE,
    OP_FREE_SIZED,
    OP_USABLE,
    OP_TRIM,
    OP_COUNT
};

typedef struct {
    unsigned char *p;
    size_t size;  /* bytes requested (and holding the pattern) */
    size_t align; /* alignment asked for (1 = none) */
    uint32_t tag;
} op_block;

typedef struct {
    op_block *slots;
    size_t nslots;
    uint32_t next_tag;
    unsigned long ops;
} op_table;

#define OP_OVERLAP_CHECK_MAX 256 /* tables up to this size check every new block */
#define OP_MIN_ALIGN 16          /* what malloc-style calls promise */
#define OP_PAGE 4096

/* The shadow checks are the harness, not the code under test: keep the
 * fuzzer's coverage tracing out of their loops (it would dominate the run). */
#if defined(__clang__)
#define OP_NO_COVERAGE __attribute__((no_sanitize("coverage")))
#else
#define OP_NO_COVERAGE
#endif

static void op_fail(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
static void op_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("ops: CHECK FAILED: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}

/* The pattern of a block: byte i is byte i % 8 of word(tag, i / 8), so fill
 * and verify move whole words (8 times fewer sanitizer checks). */
static inline uint64_t op_pattern_word(uint32_t tag, size_t w)
{
    return ((uint64_t)tag * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)w * 0xBF58476D1CE4E5B9ull) ^ (w >> 7);
}

static inline unsigned char op_pattern(uint32_t tag, size_t i)
{
    return (unsigned char)(op_pattern_word(tag, i / 8) >> (i % 8 * 8));
}

/* Which bytes carry the pattern: all of the first OP_DENSE_BYTES, then the
 * first OP_SAMPLE_BYTES of every page, so multi-MiB blocks cost little but
 * every page is still watched. The rule depends on the offset only, so it
 * holds across realloc. op_next_range moves [*lo, *hi) to the next patterned
 * run at or after *lo, within `to`; false when there is none. */
#define OP_DENSE_BYTES ((size_t)256 << 10)
#define OP_SAMPLE_BYTES ((size_t)128)

static inline int op_next_range(size_t *lo, size_t *hi, size_t to)
{
    size_t l = *lo;
    if (l >= OP_DENSE_BYTES && l % OP_PAGE >= OP_SAMPLE_BYTES)
        l += OP_PAGE - l % OP_PAGE;
    if (l >= to)
        return 0;
    size_t h = l < OP_DENSE_BYTES ? OP_DENSE_BYTES : l - l % OP_PAGE + OP_SAMPLE_BYTES;
    *lo = l;
    *hi = h < to ? h : to;
    return 1;
}

OP_NO_COVERAGE static void op_fill_run(const op_block *b, size_t i, size_t to)
{
    for (; i < to && i % 8; i++)
        b->p[i] = op_pattern(b->tag, i);
    for (; i + 8 <= to; i += 8) {
        uint64_t w = op_pattern_word(b->tag, i / 8);
        memcpy(b->p + i, &w, 8); /* little-endian: byte k of w is byte i + k */
    }
    for (; i < to; i++)
        b->p[i] = op_pattern(b->tag, i);
}

OP_NO_COVERAGE static void op_verify_run(const op_block *b, size_t i, size_t to, const char *when)
{
    for (; i < to && i % 8; i++)
        if (b->p[i] != op_pattern(b->tag, i))
            goto bad;
    for (; i + 8 <= to; i += 8) {
        uint64_t w;
        memcpy(&w, b->p + i, 8);
        if (w != op_pattern_word(b->tag, i / 8))
            break; /* find the byte below */
    }
    for (; i < to; i++)
        if (b->p[i] != op_pattern(b->tag, i))
            goto bad;
    return;
bad:
    op_fail("%s: block %p (size %zu, tag %u) byte %zu is 0x%02x, expected 0x%02x", when, (void *)b->p,
            b->size, b->tag, i, b->p[i], op_pattern(b->tag, i));
}

OP_NO_COVERAGE static void op_fill(const op_block *b, size_t from, size_t to)
{
    for (size_t lo = from, hi; op_next_range(&lo, &hi, to); lo = hi)
        op_fill_run(b, lo, hi);
}

OP_NO_COVERAGE static void op_verify(const op_block *b, const char *when)
{
    for (size_t lo = 0, hi; op_next_range(&lo, &hi, b->size); lo = hi)
        op_verify_run(b, lo, hi, when);
}

OP_NO_COVERAGE static void op_check_zero(const op_block *b, size_t n, size_t each)
{
    for (size_t lo = 0, hi; op_next_range(&lo, &hi, b->size); lo = hi)
        for (size_t i = lo; i < hi; i++)
            if (b->p[i])
                op_fail("calloc(%zu, %zu) = %p: byte %zu is 0x%02x, not 0", n, each, (void *)b->p, i,
                        b->p[i]);
}

static void op_table_init(op_table *t, op_block *slots, size_t nslots, uint32_t first_tag)
{
    memset(slots, 0, nslots * sizeof *slots);
    t->slots = slots;
    t->nslots = nslots;
    t->next_tag = first_tag;
    t->ops = 0;
}

/* A block just returned for `size` bytes at `align`: check it and install it. */
static void op_accept(op_table *t, op_block *b, void *p, size_t size, size_t align, const char *what)
{
    if (!p)
        op_fail("%s(size %zu, align %zu) returned NULL (errno %d)", what, size, align, errno);
    size_t want = align > OP_MIN_ALIGN ? align : OP_MIN_ALIGN;
    if ((uintptr_t)p % want)
        op_fail("%s(size %zu, align %zu) returned %p, not %zu-aligned", what, size, align, p, want);
    size_t usable = san_malloc_usable_size(p);
    if (usable < size)
        op_fail("%s(size %zu) returned %p with usable size %zu", what, size, p, usable);
    if (usable) /* the whole usable size must be mapped: its last byte is readable */
        (void)*(volatile unsigned char *)((unsigned char *)p + usable - 1);
    if (t->nslots <= OP_OVERLAP_CHECK_MAX) {
        uintptr_t lo = (uintptr_t)p, hi = lo + (size ? size : 1);
        for (size_t i = 0; i < t->nslots; i++) {
            const op_block *o = &t->slots[i];
            if (o == b || !o->p)
                continue;
            uintptr_t olo = (uintptr_t)o->p, ohi = olo + (o->size ? o->size : 1);
            if (lo < ohi && olo < hi)
                op_fail("%s(size %zu) returned %p, overlapping live block %p (size %zu)", what, size, p,
                        (void *)o->p, o->size);
        }
    }
    b->p = p;
    b->size = size;
    b->align = align;
}

static void op_release(op_block *b, int sized)
{
    op_verify(b, "free");
    if (sized)
        san_free_sized(b->p, b->size);
    else
        san_free(b->p);
    b->p = NULL;
}

/* Apply operation `kind` to slot `slot`: an allocating call first frees what
 * the slot holds; realloc resizes it; free releases it. `size` is the request,
 * `align_log2` the alignment exponent for the aligned calls. */
static void op_apply(op_table *t, unsigned kind, size_t slot, size_t size, unsigned align_log2)
{
    op_block *b = &t->slots[slot % t->nslots];
    size_t align = (size_t)1 << align_log2;
    void *p = NULL;
    t->ops++;
    kind %= OP_COUNT;
    if (b->p && kind != OP_REALLOC && kind != OP_REALLOCARRAY && kind != OP_USABLE && kind != OP_TRIM)
        op_release(b, kind == OP_FREE_SIZED);
    switch (kind) {
    case OP_MALLOC:
        b->tag = t->next_tag++;
        op_accept(t, b, san_malloc(size), size, 1, "malloc");
        op_fill(b, 0, size);
        break;
    case OP_CALLOC: {
        size_t n = size ? 1 + size % 7 : 0, each = n ? size / n : 3;
        p = san_calloc(n, each);
        b->tag = t->next_tag++;
        op_accept(t, b, p, n * each, 1, "calloc");
        op_check_zero(b, n, each);
        op_fill(b, 0, b->size);
        break;
    }
    case OP_REALLOC:
    case OP_REALLOCARRAY: {
        size_t old = b->p ? b->size : 0;
        if (b->p)
            op_verify(b, "realloc (before)");
        else
            b->tag = t->next_tag++;
        if (kind == OP_REALLOC) {
            p = san_realloc(b->p, size);
        } else {
            size_t each = 1 + size % 5;
            size = size / each * each;
            p = san_reallocarray(b->p, size / each, each);
        }
        if (size == 0 && b->p) { /* glibc's behaviour: freed, NULL returned */
            if (p)
                op_fail("realloc(%p, 0) returned %p, expected NULL", (void *)b->p, p);
            b->p = NULL;
            break;
        }
        b->size = old < size ? old : size; /* what must have survived */
        op_accept(t, b, p, size, 1, "realloc");
        b->size = old < size ? old : size;
        op_verify(b, "realloc (kept prefix)");
        b->size = size;
        op_fill(b, old < size ? old : size, size);
        break;
    }
    case OP_ALIGNED_ALLOC:
    case OP_MEMALIGN:
        b->tag = t->next_tag++;
        p = kind == OP_MEMALIGN ? san_memalign(align, size) : san_aligned_alloc(align, size);
        op_accept(t, b, p, size, align, kind == OP_MEMALIGN ? "memalign" : "aligned_alloc");
        op_fill(b, 0, size);
        break;
    case OP_POSIX_MEMALIGN: {
        if (align < sizeof(void *))
            align = sizeof(void *);
        int r = san_posix_memalign(&p, align, size);
        if (r)
            op_fail("posix_memalign(%zu, %zu) returned %d", align, size, r);
        b->tag = t->next_tag++;
        op_accept(t, b, p, size, align, "posix_memalign");
        op_fill(b, 0, size);
        break;
    }
    case OP_VALLOC:
    case OP_PVALLOC:
        b->tag = t->next_tag++;
        p = kind == OP_VALLOC ? san_valloc(size) : san_pvalloc(size);
        op_accept(t, b, p, size, OP_PAGE, kind == OP_VALLOC ? "valloc" : "pvalloc");
        if (kind == OP_PVALLOC && san_malloc_usable_size(p) < (size + OP_PAGE - 1) / OP_PAGE * OP_PAGE)
            op_fail("pvalloc(%zu): usable size %zu is less than the whole pages", size,
                    san_malloc_usable_size(p));
        op_fill(b, 0, size);
        break;
    case OP_FREE:
        san_free(NULL); /* the slot was released above; free(NULL) is a no-op */
        break;
    case OP_FREE_SIZED: break; /* released above with free_sized */
    case OP_USABLE: {
        if (!b->p) {
            if (san_malloc_usable_size(NULL) != 0)
                op_fail("malloc_usable_size(NULL) != 0");
            break;
        }
        op_verify(b, "usable");
        size_t usable = san_malloc_usable_size(b->p);
        if (usable < b->size)
            op_fail("malloc_usable_size(%p) = %zu < %zu", (void *)b->p, usable, b->size);
        /* every usable byte is the caller's: extend the pattern over them */
        b->size = usable;
        op_fill(b, 0, usable);
        break;
    }
    case OP_TRIM:
        san_malloc_trim(0); /* must give back only what is free */
        break;
    }
}

/* Verify and free every live block (alternating plain and sized free). */
static void op_table_clear(op_table *t)
{
    for (size_t i = 0; i < t->nslots; i++)
        if (t->slots[i].p)
            op_release(&t->slots[i], (int)(i & 1));
}

#endif

/* tail_test — tail_chksum from inside, over one trunk and one chksum policy
 * (compose.h; err_handle=callback records every report):
 *   - overflow by 1, 8 and a page past the requested size is reported on
 *     free, on malloc_usable_size (getmeta) and on realloc, once each;
 *   - byte precision: the byte at the requested size, after a shrinking
 *     realloc, on memalign/posix_memalign/aligned_alloc blocks;
 *   - malloc_usable_size is the requested size; filling it is not a bug;
 *   - double free at once and after other frees;
 *   - invalid frees (interior, stack, global, foreign mapping, wild) are
 *     reported as invalid-free and nothing crashes;
 *   - a forged size word is caught;
 *   - with SAFETY_HEAD_CANARY (head_canary=1): a write of 1, 8 or 16 bytes
 *     in front of a block, plain or aligned, is reported as
 *     heap-buffer-underflow with its size on free, malloc_usable_size and
 *     realloc, once; also in front of far-aligned blocks (64 KiB and 1 MiB
 *     alignments, 100 bytes and 3 MiB), whose granule tail_chksum names
 *     while they live and gives back on free (a second free: invalid-free;
 *     a destroyed size word: heap-buffer-overflow of size 0);
 *   - with SAFETY_FREED_MARK (freed_mark=1): a byte of a freed block's first
 *     8 written after free is reported as write-after-free when the block is
 *     handed out again; memory carved again for other sizes never is. */
#define SAFETY_TAIL 1
#include "compose.h"
#include "safety_check.h"
#include <stdint.h>
#include <stdlib.h>

#if defined(SAFETY_HEAD_CANARY)
#define HEAD 16 /* the block below starts this far in front of the program's */
#else
#define HEAD 0
#endif

static const size_t sizes[] = {0, 1, 7, 8, 15, 16, 24, 100, 1000, 4000, 40000, 70000, 300000};
#define NSIZES (sizeof sizes / sizeof sizes[0])

/* Overflow by `by` bytes past a block of `size`. The block is a larger one
 * shrunk in place by realloc, so even a page-long overflow stays in memory
 * the block owns below (past a tight block it would wreck the neighbours'
 * metadata, which the layer reports but cannot repair). */
static void overflow_on_free(size_t size, size_t by)
{
    unsigned char *big = t_malloc(size + by + 64);
    unsigned char *p = t_realloc(big, size);
    CHECK(p == big);
    memset(p, 0xa5, size);
    expect_none("fill requested size");
    size_t usable = t_malloc_usable_size(p);
    CHECKF(usable == size, "usable %zu for a request of %zu", usable, size);
    memset(p + size, 0x5a, by);
    t_free(p);
    expect_one(MORTISE_BUG_HEAP_BUFFER_OVERFLOW, p, "overflow on free");
    CHECKF(seen.last.size == size, "report size %zu, wanted %zu", seen.last.size, size);
}

static void overflow_by_one_everywhere(void)
{
    for (size_t i = 0; i < NSIZES; i++) {
        size_t size = sizes[i];
        /* free */
        unsigned char *p = t_malloc(size);
        p[size] = (unsigned char)~p[size];
        t_free(p);
        expect_one(MORTISE_BUG_HEAP_BUFFER_OVERFLOW, p, "1 byte, free");
        CHECKF(seen.last.size == size && !strcmp(seen.last.operation, "free") &&
                   !strcmp(seen.last.layer, "tail_chksum"),
               "report of %zu: size %zu (%s, %s)", size, seen.last.size, seen.last.layer,
               seen.last.operation);
        /* usable size: reported once, then the block is resealed */
        p = t_malloc(size);
        p[size] ^= 0xff;
        CHECK(t_malloc_usable_size(p) == size);
        expect_one(MORTISE_BUG_HEAP_BUFFER_OVERFLOW, p, "1 byte, usable size");
        t_free(p);
        expect_none("free after a reported overflow");
        /* realloc: reported once, the data moves */
        p = t_malloc(size);
        memset(p, 0x33, size);
        p[size] ^= 0x01;
        unsigned char *q = t_realloc(p, size + 5000);
        expect_one(MORTISE_BUG_HEAP_BUFFER_OVERFLOW, p, "1 byte, realloc");
        CHECK(q != NULL);
        size_t intact = 0;
        for (size_t k = 0; q && k < size; k++)
            intact += q[k] == 0x33;
        CHECK(intact == size);
        t_free(q);
        expect_none("free of the moved block");
    }
}

static void shrink_and_aligned(void)
{
    /* shrinking realloc: the check word moves to the new size */
    for (size_t i = 1; i < NSIZES; i++) {
        size_t size = sizes[i], smaller = size / 2 + (size > 2);
        if (smaller >= size || smaller == 0)
            continue;
        unsigned char *p = t_malloc(size);
        unsigned char *q = t_realloc(p, smaller);
        CHECK(q != NULL);
        CHECKF(t_malloc_usable_size(q) == smaller, "usable %zu after realloc to %zu", t_malloc_usable_size(q),
               smaller);
        memset(q, 1, smaller);
        t_free(q);
        expect_none("free after shrink");
        q = t_realloc(t_malloc(size), smaller);
        q[smaller] ^= 0x80;
        t_free(q);
        expect_one(MORTISE_BUG_HEAP_BUFFER_OVERFLOW, q, "1 byte past a shrunk block");
        /* growing a shrunk block keeps it checked at the grown size */
        q = t_realloc(t_realloc(t_malloc(size), smaller), size);
        memset(q, 2, size);
        q[size] ^= 0x80;
        t_free(q);
        expect_one(MORTISE_BUG_HEAP_BUFFER_OVERFLOW, q, "1 byte past a regrown block");
    }
    static const size_t aligns[] = {16, 32, 64, 256, 4096, 65536};
    for (size_t a = 0; a < sizeof aligns / sizeof aligns[0]; a++) {
        for (size_t i = 0; i < NSIZES; i++) {
            size_t size = sizes[i], align = aligns[a];
            unsigned char *p[3];
            p[0] = t_memalign(align, size);
            CHECK(t_posix_memalign((void **)&p[1], align, size) == 0);
            p[2] = t_aligned_alloc(align, size);
            for (int k = 0; k < 3; k++) {
                CHECKF(p[k] && ((uintptr_t)p[k] & (align - 1)) == 0, "aligned %zu: %p", align, (void *)p[k]);
                CHECK(t_malloc_usable_size(p[k]) == size);
                memset(p[k], 3, size);
            }
            expect_none("aligned blocks filled");
            p[1][size] ^= 0x10;
            for (int k = 0; k < 3; k++)
                t_free(p[k]);
            expect_one(MORTISE_BUG_HEAP_BUFFER_OVERFLOW, p[1], "1 byte past an aligned block");
        }
    }
}

static void double_free(void)
{
    for (size_t i = 0; i < NSIZES; i++) {
        size_t size = sizes[i] < 16 ? 16 : sizes[i]; /* the layer below keeps its link in the first word */
        void *p = t_malloc(size);
        t_free(p);
        expect_none("first free");
        t_free(p);
        CHECKF(seen.count == 1, "double free of %zu: %d reports", size, seen.count);
        if (seen.count)
            /* the layer below may have reused the tail words or given a large
             * block back to the OS: any of the three, but exactly one */
            CHECKF(seen.last.ptr == p && (seen.last.kind == MORTISE_BUG_DOUBLE_FREE ||
                                          seen.last.kind == MORTISE_BUG_HEAP_BUFFER_OVERFLOW ||
                                          seen.last.kind == MORTISE_BUG_INVALID_FREE),
                   "double free of %zu: %s", size, mt_bug_class_name(seen.last.kind));
        seen.count = 0;
    }
    /* after other frees in between (same class, the block not reused yet) */
    void *a = t_malloc(200), *b = t_malloc(200), *c = t_malloc(200);
    t_free(a);
    t_free(b);
    t_free(c);
    t_free(b);
    CHECKF(seen.count == 1 && seen.last.ptr == b, "double free after other frees: %d reports", seen.count);
    seen.count = 0;
}

/* A pointer 16 bytes into a block that starts a granule (its span's first
 * block, often preceded by unmapped memory): still invalid-free. */
static void interior_of_first_block(void)
{
    static unsigned char *held[20000];
    size_t n = 0;
    unsigned char *first = NULL;
    while (n < 20000 && !first) {
        unsigned char *p = t_malloc(64);
        held[n++] = p;
        if (((uintptr_t)p & (MT_GRANULE - 1)) == 0)
            first = p;
    }
    if (first) { /* (tlsf_glk's chunks start with a header: never) */
        t_free(first + 16);
        expect_one(MORTISE_BUG_INVALID_FREE, first + 16, "interior of a granule's first block");
    }
    while (n)
        t_free(held[--n]);
    expect_none("the held blocks");
}

static void forged_size(void)
{
    /* a stray write of a plausible size over the size word: the check word
     * it points at is not there */
    unsigned char *p = t_malloc(40);
    size_t usable_below = 0;
    {
        mt_ctx q = mt_ctx_for_alloc(0, 1);
        mt_ctx_route(&q, p - HEAD);
        CHECK(mt_below_tail_chksum_getmeta(&q) != NULL);
        usable_below = q.usable;
    }
    uint64_t forged = 8;
    memcpy(p - HEAD + usable_below - 8, &forged, 8);
    t_free(p);
    expect_one(MORTISE_BUG_HEAP_BUFFER_OVERFLOW, p, "forged size word");
}

#if defined(SAFETY_HEAD_CANARY)
/* The operation that finds an underflow: free (op 0), malloc_usable_size
 * (1) or realloc (2). Returns the block that lives on (p, or realloc's). */
static unsigned char *check_by_op(unsigned char *p, size_t size, int op)
{
    if (op == 0)
        t_free(p);
    else if (op == 1)
        CHECK(t_malloc_usable_size(p) == size);
    else
        return t_realloc(p, size + 100);
    return p;
}

static void expect_underflow(const void *p, size_t size, const char *what)
{
    expect_one(MORTISE_BUG_HEAP_BUFFER_UNDERFLOW, p, what);
    CHECKF(seen.last.size == size && !strcmp(seen.last.layer, "tail_chksum"), "%s: size %zu (%s), wanted %zu",
           what, seen.last.size, seen.last.layer, size);
}

static void underflow_everywhere(void)
{
    static const size_t by[] = {1, 8, 16};
    static const char *const ops[] = {"underflow, free", "underflow, usable size", "underflow, realloc"};
    for (size_t i = 0; i < NSIZES; i++)
        for (size_t k = 0; k < sizeof by / sizeof by[0]; k++)
            for (int op = 0; op < 3; op++) {
                size_t size = sizes[i];
                unsigned char *p = t_malloc(size), *q = p;
                memset(p, 7, size);
                memset(p - by[k], 0x41, by[k]);
                q = check_by_op(p, size, op);
                expect_underflow(p, size, ops[op]);
                if (op > 0) { /* reported once (a new canary): the block lives on */
                    CHECK(q != NULL && (size == 0 || (q[0] == 7 && q[size - 1] == 7)));
                    t_free(q);
                    expect_none(ops[op]);
                }
            }
    static const size_t aligns[] = {32, 64, 256, 4096};
    for (size_t a = 0; a < sizeof aligns / sizeof aligns[0]; a++) {
        unsigned char *p = t_memalign(aligns[a], 100);
        CHECK(p && ((uintptr_t)p & (aligns[a] - 1)) == 0);
        memset(p - 8, 0x41, 8);
        t_free(p);
        expect_underflow(p, 100, "underflow of an aligned block");
    }
}

/* Far alignments: the program's block starts a granule inside a large
 * block whose owner names only the block's first granule; tail_chksum names
 * that granule itself (claim_far) so the block keeps its head and canary,
 * and gives the entry back when the block goes below. Returns how many of
 * the blocks needed the claim. */
static int far_aligned_once(size_t align, size_t size, size_t by, int op)
{
    unsigned char *p = t_memalign(align, size), *q = p;
    CHECKF(p && ((uintptr_t)p & (align - 1)) == 0, "memalign(%zu, %zu)", align, size);
    if (!p)
        return 0;
    uintptr_t owner = mt_entry_owner(mt_pagemap_get(p));
    CHECKF(owner != 0, "memalign(%zu, %zu): the program's granule is routed", align, size);
    int claimed = owner == (uintptr_t)tail_chksum_id;
    CHECK(t_malloc_usable_size(p) == size);
    memset(p, 7, size);
    expect_none("far-aligned block in use");
    if (by)
        memset(p - by, 0x41, by);
    q = check_by_op(p, size, op);
    if (by)
        expect_underflow(p, size, "underflow of a far-aligned block");
    else
        expect_none("far-aligned block, intact");
    if (op > 0) {
        CHECK(q != NULL && q[0] == 7 && q[size - 1] == 7);
        t_free(q);
        expect_none("far-aligned block after one report");
    }
    /* the claim is given back with the block (a later block of another
     * layer there is routed to its owner, not to tail_chksum) */
    if (op == 0 || q != p)
        CHECK(mt_entry_owner(mt_pagemap_get(p)) != (uintptr_t)tail_chksum_id);
    return claimed;
}

static void underflow_far_aligned(void)
{
    static const size_t aligns[] = {(size_t)64 << 10, (size_t)1 << 20};
    static const size_t far_sizes[] = {100, (size_t)3 << 20};
    static const size_t by[] = {0, 1, 8, 16};
    int claimed = 0;
    for (size_t a = 0; a < sizeof aligns / sizeof aligns[0]; a++)
        for (size_t s = 0; s < sizeof far_sizes / sizeof far_sizes[0]; s++)
            for (size_t k = 0; k < sizeof by / sizeof by[0]; k++)
                for (int op = 0; op < 3; op++)
                    claimed += far_aligned_once(aligns[a], far_sizes[s], by[k], op);
    /* a 3 MiB block aligned to 1 MiB is a large block of the OS layer over
     * every trunk here: the case the claim exists for */
    CHECKF(claimed > 0, "no far-aligned block needed a claim (%d)", claimed);
    /* its size word destroyed too (an overflow to the end of the block
     * below): heap-buffer-overflow of unknown size, the block kept */
    unsigned char *w = t_memalign((size_t)1 << 20, 100);
    CHECK(w != NULL);
    {
        mt_ctx q = mt_ctx_for_alloc(0, 1);
        mt_ctx_route(&q, w - ((size_t)1 << 20));
        CHECK(mt_below_tail_chksum_getmeta(&q) != NULL);
        memset(w - ((size_t)1 << 20) + q.usable - 8, 0x41, 8);
    }
    t_free(w);
    expect_one(MORTISE_BUG_HEAP_BUFFER_OVERFLOW, w, "far-aligned block, size word destroyed");
    CHECK(seen.last.size == 0);
    /* a second free of a far-aligned block finds its granule unnamed:
     * reported (the socket's invalid-free), never a crash */
    unsigned char *p = t_memalign((size_t)1 << 20, (size_t)3 << 20);
    CHECK(p != NULL);
    t_free(p);
    expect_none("far-aligned free");
    t_free(p);
    expect_one(MORTISE_BUG_INVALID_FREE, p, "second free of a far-aligned block");
}

#endif

#if defined(SAFETY_FREED_MARK)
/* freed_mark: one byte of a freed block's first 8 flipped is reported when
 * the trunk hands the block out again, once, with the block's size; a
 * block freed intact comes back without a report. */
static void write_after_free_on_reuse(void)
{
    /* (slab_wf alone leaves 70000 bytes to the OS layer, which clears the
     * head of every block it hands out: not checked there) */
#if defined(SAFETY_TRUNK_SLAB_WF)
    static const size_t marked[] = {8, 15, 24, 100, 1000, 4000, 40000};
#else
    static const size_t marked[] = {8, 15, 24, 100, 1000, 4000, 40000, 70000};
#endif
    for (size_t i = 0; i < sizeof marked / sizeof marked[0]; i++)
        for (size_t byte = 0; byte < 8; byte += 7) {
            size_t size = marked[i];
            unsigned char *p = t_malloc(size);
            memset(p, 3, size);
            t_free(p);
            p[byte] ^= 0x20;
            void *again[64];
            size_t n = 0;
            bool back = false;
            while (n < 64 && !back) {
                again[n] = t_malloc(size);
                back = again[n++] == p;
            }
            CHECKF(back, "size %zu: the freed block was not handed out again in 64 allocations", size);
            expect_one(MORTISE_BUG_WRITE_AFTER_FREE, p, "write after free, found on reuse");
            CHECKF(seen.last.size == size && !strcmp(seen.last.layer, "tail_chksum"),
                   "size %zu: reported %zu (%s)", size, seen.last.size, seen.last.layer);
            for (size_t k = 0; k < n; k++)
                t_free(again[k]);
            /* the same block freed intact comes back silently */
            unsigned char *q = t_malloc(size);
            t_free(q);
            q = t_malloc(size);
            t_free(q);
            expect_none("a block freed intact, handed out again");
        }
}

/* No false report from a mark an earlier life of the memory left: blocks
 * of one size are freed (marked) and the memory is carved again for other
 * sizes, whose programs write every other word (so an old block's first
 * word may be overwritten while its head is not), then for the first size
 * again, many times over. The trunks clear a fresh block's head; without
 * that, this reports writes after free that never happened. */
static void no_stale_marks(void)
{
    enum { N = 2000 };
    static void *blocks[N];
    static const size_t sizes_by_round[] = {40, 72, 24, 136, 40, 56, 200, 40, 88, 24, 40};
    for (int pass = 0; pass < 3; pass++)
        for (size_t r = 0; r < sizeof sizes_by_round / sizeof sizes_by_round[0]; r++) {
            size_t size = sizes_by_round[r];
            for (size_t i = 0; i < N; i++) {
                uint64_t *w = blocks[i] = t_malloc(size);
                for (size_t k = 1 + (i & 1); k < size / 8; k += 2)
                    w[k] = 0x5151515151515151ull * (k + r);
            }
            for (size_t i = 0; i < N; i++)
                t_free(blocks[(i * 7) % N]);
            t_malloc_trim(0);
        }
    expect_none("memory carved again for other sizes");
}
#endif

static void ordinary_use(void)
{
    void *blocks[500];
    for (int round = 0; round < 4; round++) {
        for (size_t i = 0; i < 500; i++) {
            size_t size = (i * 37 + (size_t)round * 11) % 3000;
            blocks[i] = t_malloc(size);
            memset(blocks[i], (int)i, size);
        }
        for (size_t i = 0; i < 500; i += 2)
            blocks[i] = t_realloc(blocks[i], (i * 13) % 5000 + 1);
        for (size_t i = 0; i < 500; i++)
            t_free(blocks[i]);
    }
    void *z = t_calloc(100, 10);
    t_free(z);
    expect_none("ordinary use");
}

int main(void)
{
    t_set_error_handler(record, NULL);
    ordinary_use();
    overflow_on_free(24, 1);
    overflow_on_free(24, 8);
    overflow_on_free(100, 4096);
    overflow_on_free(5000, 4096);
    overflow_on_free(300000, 4096);
    overflow_by_one_everywhere();
    shrink_and_aligned();
    double_free();
    invalid_frees();
    interior_of_first_block();
    forged_size();
#if defined(SAFETY_HEAD_CANARY)
    underflow_everywhere();
    underflow_far_aligned();
#endif
#if defined(SAFETY_FREED_MARK)
    write_after_free_on_reuse();
    no_stale_marks();
#endif
    ordinary_use();
    return check_report("tail_test");
}

/* The shadow-model random sequence over one composition: a table of the
 * live blocks (address, size, alignment, fill tag) beside the allocator.
 * Every block is filled with a pattern of its own when it is handed out and
 * checked when it is freed or moved, so a block handed out twice, an
 * overlap or a layer writing into a live block shows up as a changed byte;
 * each new block is also compared with every live one (no overlap), its
 * alignment and usable size checked. The layers' invariant checkers run
 * every 512 operations. At the end everything is freed and trimmed, and
 * the largest block the pool can give must be what it was before: the pool
 * is whole again. */
#include "selftest.h"

#define SLOTS 192
#define CHECK_EVERY 512
#define MIN_ALIGN 16

typedef struct {
    unsigned char *p;
    size_t size, align;
    uint32_t tag;
} live_block;

static live_block slot[SLOTS];
static size_t live_bytes;

static unsigned char pattern(uint32_t tag, size_t i) { return (unsigned char)(tag ^ (i * 131) ^ (i >> 9)); }

static void fill(live_block *b)
{
    for (size_t i = 0; i < b->size; i++)
        b->p[i] = pattern(b->tag, i);
}

static bool intact(const live_block *b, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (b->p[i] != pattern(b->tag, i))
            return false;
    return true;
}

/* 1 byte to max, uniform in the logarithm: every size class and trunk path. */
static size_t random_size(size_t max)
{
    unsigned bits = 0;
    while (((size_t)2 << bits) <= max)
        bits++;
    size_t base = (size_t)1 << (bm_random() % (bits + 1));
    size_t size = base + bm_random() % base;
    return size > max ? max : size;
}

static bool disjoint_from_live(const unsigned char *p, size_t size, const live_block *self)
{
    for (size_t i = 0; i < SLOTS; i++) {
        const live_block *b = &slot[i];
        if (b != self && b->p && p < b->p + b->size && b->p < p + size)
            return false;
    }
    return true;
}

/* A block just handed out for b: where it is, what it holds, then our fill. */
static void take(const bm_allocator *a, live_block *b, unsigned char *p, size_t size, size_t align)
{
    b->p = p;
    b->size = size;
    b->align = align;
    b->tag = bm_random();
    BM_CHECK(((uintptr_t)p & (align - 1)) == 0);
    BM_CHECK(a->usable_size(p) >= size);
    BM_CHECK(disjoint_from_live(p, size, b));
    fill(b);
    live_bytes += size;
}

static void drop(const bm_allocator *a, live_block *b)
{
    BM_CHECK(intact(b, b->size));
    a->free(b->p);
    live_bytes -= b->size;
    b->p = NULL;
}

static void allocate(const bm_allocator *a, live_block *b, size_t size)
{
    unsigned how = bm_random() % 8;
    if (how < 5) {
        unsigned char *p = a->malloc(size);
        if (BM_CHECK(p != NULL))
            take(a, b, p, size, MIN_ALIGN);
    } else if (how < 7) {
        size_t align = (size_t)32 << (bm_random() % 8); /* 32 B .. 4 KiB */
        unsigned char *p = a->aligned_alloc(align, size);
        if (BM_CHECK(p != NULL))
            take(a, b, p, size, align);
    } else {
        size_t each = 1 + bm_random() % 16, n = size / each + 1;
        unsigned char *p = a->calloc(n, each);
        if (BM_CHECK(p != NULL)) {
            bool zero = true;
            for (size_t i = 0; i < n * each; i++)
                zero &= p[i] == 0;
            BM_CHECK(zero);
            take(a, b, p, n * each, MIN_ALIGN);
        }
    }
}

static void reallocate(const bm_allocator *a, live_block *b, size_t size)
{
    unsigned char *p = a->realloc(b->p, size);
    if (!BM_CHECK(p != NULL))
        return;
    size_t kept = size < b->size ? size : b->size;
    live_block moved = *b;
    moved.p = p;
    BM_CHECK(intact(&moved, kept));
    live_bytes -= b->size;
    b->p = NULL; /* the old block is gone: not compared for overlap */
    take(a, b, p, size, MIN_ALIGN);
}

/* The largest block the pool gives now (to 1 KiB), each try given back. */
static size_t largest_block(const bm_allocator *a)
{
    size_t lo = 0, hi = a->pool_size;
    while (hi - lo > 1024) {
        size_t mid = lo + (hi - lo) / 2;
        void *p = a->malloc(mid);
        if (p) {
            a->free(p);
            lo = mid;
        } else {
            hi = mid;
        }
        a->trim(0);
    }
    return lo;
}

void bm_shadow_test(const bm_allocator *a, unsigned ops)
{
    unsigned before_failures = bm_failures, frees = 0, reallocs = 0, allocs = 0;
    bm_random_seed(0x9e3779b9u);
    a->free(a->malloc(64)); /* first use: record pools take their granule */
    a->trim(0);
    size_t whole = largest_block(a);
    BM_CHECK(whole >= a->pool_size / 2);

    for (unsigned op = 0; op < ops; op++) {
        live_block *b = &slot[bm_random() % SLOTS];
        size_t size = random_size(a->max_request);
        bool room = live_bytes + size <= a->live_budget;
        if (!b->p && room) {
            allocate(a, b, size);
            allocs++;
        } else if (b->p && (bm_random() % 3 || !room)) {
            drop(a, b);
            frees++;
        } else if (b->p) {
            reallocate(a, b, size);
            reallocs++;
        }
        if (op % CHECK_EVERY == 0)
            BM_CHECK(a->check() == NULL);
        if (bm_failures - before_failures > 10)
            break; /* enough said */
    }
    for (size_t i = 0; i < SLOTS; i++)
        if (slot[i].p)
            drop(a, &slot[i]);
    BM_CHECK(live_bytes == 0);
    BM_CHECK(a->check() == NULL);
    a->trim(0);
    BM_CHECK(a->check() == NULL);
    size_t after = largest_block(a);
    BM_CHECK(after == whole);

    bm_print(bm_failures == before_failures ? "ok   " : "FAIL ");
    bm_print(a->name);
    bm_print(" shadow model:");
    bm_print_num("ops", ops);
    bm_print_num("allocs", allocs);
    bm_print_num("frees", frees);
    bm_print_num("reallocs", reallocs);
    bm_print_num("largest_block_before", (uint32_t)whole);
    bm_print_num("after", (uint32_t)after);
    bm_print_line("");
}

/* Pointers no layer handed out (a global, the stack, NULL) are ignored or
 * answered as POSIX says, without a crash. */
void bm_foreign_pointers(const bm_allocator *a)
{
    static unsigned char global_object[64];
    unsigned char stack_object[64];
    unsigned before_failures = bm_failures;
    a->free(NULL);
    a->free(global_object);
    a->free(stack_object);
    BM_CHECK(a->usable_size(NULL) == 0);
    BM_CHECK(a->usable_size(global_object) == 0);
    BM_CHECK(a->usable_size(stack_object) == 0);
    BM_CHECK(a->realloc(stack_object, 32) == NULL);
    BM_CHECK(a->malloc(SIZE_MAX / 2) == NULL);
    BM_CHECK(a->aligned_alloc(48, 64) == NULL); /* not a power of two */
    BM_CHECK(a->check() == NULL);
    bm_print(bm_failures == before_failures ? "ok   " : "FAIL ");
    bm_print(a->name);
    bm_print_line(" foreign pointers and refused requests");
}

/* tests/suites/conformance/conf_model.c — the `random` case: a fixed-seed sequence of
 * malloc / calloc / realloc / reallocarray / aligned allocations and frees,
 * sizes from 0 to 8 MiB, checked against a shadow model:
 *   - every live block's usable range [p, p + usable) is kept in a sorted
 *     interval array; a new block overlapping any live one is a failure;
 *   - every block holds the pattern of its id over its whole usable size and
 *     is verified before each realloc and free;
 *   - realloc keeps min(old, new) requested bytes; calloc returns zeros. */
#include "conformance.h"

#include <malloc.h>
#include <stdlib.h>
#include <string.h>

enum {
    MODEL_SLOTS = 4096,
    MODEL_OPS = 100000,
    MODEL_MAX_FAILURES = 50, /* stop early: one bug repeats forever */
};
#define MODEL_LIVE_CAP (96 * CONF_MIB)
#define MODEL_SEED 0x5EEDC0FFEEull

typedef struct {
    char *p;
    size_t size, usable;
    uint64_t id;
} model_block;
typedef struct {
    uintptr_t lo, hi;
} model_range;

static model_block model_slot[MODEL_SLOTS];
static model_range model_live[MODEL_SLOTS]; /* sorted by lo, disjoint */
static size_t model_nlive, model_bytes;
static uint64_t model_ids;

/* index of the first live range with lo >= a */
static size_t model_find(uintptr_t a)
{
    size_t lo = 0, hi = model_nlive;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (model_live[mid].lo < a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void model_insert(const model_block *b)
{
    uintptr_t lo = (uintptr_t)b->p, hi = lo + (b->usable ? b->usable : 1);
    size_t at = model_find(lo);
    CHECKF(at == 0 || model_live[at - 1].hi <= lo, "block [%#lx, %#lx) overlaps live [%#lx, %#lx)",
           (unsigned long)lo, (unsigned long)hi, (unsigned long)model_live[at ? at - 1 : 0].lo,
           (unsigned long)model_live[at ? at - 1 : 0].hi);
    CHECKF(at == model_nlive || model_live[at].lo >= hi, "block [%#lx, %#lx) overlaps live [%#lx, %#lx)",
           (unsigned long)lo, (unsigned long)hi, (unsigned long)model_live[at].lo,
           (unsigned long)model_live[at].hi);
    memmove(&model_live[at + 1], &model_live[at], (model_nlive - at) * sizeof model_live[0]);
    model_live[at] = (model_range){lo, hi};
    model_nlive++;
    model_bytes += b->usable;
}

static void model_remove(const model_block *b)
{
    size_t at = model_find((uintptr_t)b->p);
    CHECK(at < model_nlive && model_live[at].lo == (uintptr_t)b->p);
    if (at >= model_nlive || model_live[at].lo != (uintptr_t)b->p)
        return;
    memmove(&model_live[at], &model_live[at + 1], (model_nlive - at - 1) * sizeof model_live[0]);
    model_nlive--;
    model_bytes -= b->usable;
}

static void model_verify(const model_block *b, size_t len, const char *when)
{
    size_t bad = conf_verify(b->p, 0, len, b->id);
    CHECKF(bad == SIZE_MAX, "block %p id %llu (%zu bytes) %s: byte %zu changed", (void *)b->p,
           (unsigned long long)b->id, b->size, when, bad);
}

/* A new block from one of the allocating entry points. */
static void model_alloc(conf_rng *r, model_block *b)
{
    size_t size = conf_size(r, 8 * CONF_MIB), align = 16, roll = conf_range(r, 0, 99);
    void *p = NULL;
    int zeroed = 0;
    if (roll < 50) {
        p = malloc(size);
    } else if (roll < 65) {
        p = calloc(1, size);
        zeroed = 1;
    } else if (roll < 75) {
        p = realloc(NULL, size);
    } else if (roll < 80) {
        size_t each = conf_range(r, 1, 16);
        size = size / each * each;
        p = reallocarray(NULL, size / each, each);
    } else {
        align = (size_t)1 << conf_range(r, 0, 16);
        int way = (int)conf_range(r, 0, 2);
        if (way == 0)
            p = memalign(align, size);
        else if (way == 1)
            p = aligned_alloc(align, size);
        else if (posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, size))
            p = NULL;
        align = align < 16 ? 16 : align; /* every block has 16 */
    }
    CHECKF(p != NULL, "allocation of %zu bytes (roll %zu) failed", size, roll);
    if (!p)
        return;
    b->p = p;
    b->size = size;
    b->usable = malloc_usable_size(p);
    b->id = ++model_ids;
    CHECKF(b->usable >= size, "%p: usable %zu < size %zu", p, b->usable, size);
    CHECKF(((uintptr_t)p & (align - 1)) == 0, "%p not aligned to %zu", p, align);
    if (zeroed) {
        size_t nz = conf_first_nonzero(p, size);
        CHECKF(nz == SIZE_MAX, "calloc(%zu) = %p: byte %zu not zero", size, p, nz);
    }
    model_insert(b);
    conf_fill(p, 0, b->usable, b->id);
}

static void model_realloc(conf_rng *r, model_block *b)
{
    size_t size = conf_size(r, 8 * CONF_MIB);
    int array = conf_range(r, 0, 9) == 0 && size >= 4;
    if (array)
        size = size / 4 * 4;
    size_t keep = size < b->size ? size : b->size;
    model_verify(b, b->usable, "before realloc");
    model_remove(b);
    char *q = array ? reallocarray(b->p, size / 4, 4) : realloc(b->p, size);
    if (!q && size == 0) { /* realloc(p, 0) freed it */
        b->p = NULL;
        return;
    }
    CHECKF(q != NULL, "realloc(%p, %zu) failed", (void *)b->p, size);
    if (!q) {
        model_insert(b); /* the old block is still ours */
        return;
    }
    b->p = q;
    b->usable = malloc_usable_size(q);
    CHECKF(b->usable >= size, "realloc: usable %zu < size %zu", b->usable, size);
    CHECK(((uintptr_t)q & 15) == 0);
    model_verify(b, keep, "after realloc");
    b->size = size;
    model_insert(b);
    conf_fill(q, keep, b->usable, b->id);
}

static void model_free(conf_rng *r, model_block *b)
{
    typedef void sized_fn(void *, size_t);
    static sized_fn *free_sized_fn;
    if (!free_sized_fn)
        free_sized_fn = (sized_fn *)conf_symbol("free_sized");
    model_verify(b, b->usable, "before free");
    model_remove(b);
    if (free_sized_fn && conf_range(r, 0, 9) == 0)
        free_sized_fn(b->p, b->size);
    else
        free(b->p);
    b->p = NULL;
}

void conf_case_random(void)
{
    conf_rng r = {MODEL_SEED};
    size_t ops = 0, planned = conf_emulated() ? MODEL_OPS / 5 : MODEL_OPS;
    int start_failures = conf_failures();
    for (; ops < planned && conf_failures() - start_failures < MODEL_MAX_FAILURES; ops++) {
        model_block *b = &model_slot[conf_range(&r, 0, MODEL_SLOTS - 1)];
        if (!b->p) {
            if (model_bytes < MODEL_LIVE_CAP)
                model_alloc(&r, b);
        } else if (conf_range(&r, 0, 3) == 0 && model_bytes < MODEL_LIVE_CAP) {
            model_realloc(&r, b);
        } else {
            model_free(&r, b);
        }
    }
    CHECKF(ops == planned, "stopped after %zu operations", ops);
    for (size_t i = 0; i < MODEL_SLOTS; i++)
        if (model_slot[i].p)
            model_free(&r, &model_slot[i]);
    CHECK(model_nlive == 0 && model_bytes == 0);
    printf("random: %zu operations, %llu blocks\n", ops, (unsigned long long)model_ids);
}

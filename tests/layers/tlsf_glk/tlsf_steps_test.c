/* tlsf_glk's O(1) bound, measured: every bitmap search, list operation,
 * split and merge of alloc, free and resize counts one step (MT_TLSF_STEP,
 * nothing unless a test defines it). The same workload runs on a 1 MiB and a
 * 256 MiB heap: fill it with blocks of every size from 16 B to 64 KiB,
 * free every other one (thousands of free blocks of all sizes, none
 * adjacent), then 200000 random operations (malloc, aligned_alloc up to
 * 4 KiB alignment, free of random blocks merging with none, one or both
 * neighbours, realloc growing in place, shrinking, or moving), then free the
 * rest so that every free merges on both sides. The heap never grows during
 * the measured phases (checked), so only the TLSF algorithm is counted.
 * Passes iff the largest step count per operation kind is the same on both
 * heaps and within the analysis in tlsf_glk.h (find <= 2 steps, insert and
 * remove 1, split <= 3, leading-gap trim 2, each merge 2):
 *   malloc 5, aligned 7, free 5, realloc 12 (a move: malloc + free).
 * model: mmap_heap::tlsf_glk(sync=spinlock, max_block=SIZE_MAX, pool_size=128KB)::custom_socket(prefix=t_) */
#include <stdint.h>
static uint64_t tlsf_steps;
#define MT_TLSF_STEP() (tlsf_steps++)

#include <mortise/mortise.h>
#include <mortise/os/mmap_heap.h>

#define MT_SYNC spinlock
#define MT_MAX_BLOCK SIZE_MAX
#define MT_POOL_SIZE (128 << 10)
#include <mortise/layers/tlsf_glk.h>

#define MT_PREFIX t_
#include <mortise/sockets/custom_socket.h>

MT_COMPOSE(mmap_heap, tlsf_glk, custom_socket)

#include "../../common/check.h"
#include "../../common/trunk_test.h"
#include <string.h>

enum { MALLOC, ALIGNED, FREE, REALLOC, KINDS };
static const char *const kind_name[KINDS] = {"malloc", "aligned", "free", "realloc"};
static const uint64_t bound[KINDS] = {5, 7, 5, 12};

typedef struct {
    uint64_t max[KINDS], ops[KINDS];
    size_t free_blocks_peak, grew;
} result;

/* 16 B to 64 KiB, uniform in the logarithm: every first-level list. */
static size_t random_size(void)
{
    size_t base = (size_t)16 << (rng() % 12);
    return base + rng() % base;
}

static size_t heap_bytes(void)
{
    mt_tlsf_stats s;
    CHECK(tlsf_glk_walk(&s) == NULL);
    return s.heap_bytes;
}

static void *measure(result *r, int kind, void *(*op)(void *, size_t, size_t), void *p, size_t a, size_t b)
{
    uint64_t before = tlsf_steps;
    void *q = op(p, a, b);
    uint64_t steps = tlsf_steps - before;
    r->ops[kind]++;
    if (steps > r->max[kind])
        r->max[kind] = steps;
    return q;
}
static void *op_malloc(void *p, size_t size, size_t unused)
{
    (void)p, (void)unused;
    return t_malloc(size);
}
static void *op_aligned(void *p, size_t size, size_t align)
{
    (void)p;
    return t_aligned_alloc(align, size);
}
static void *op_free(void *p, size_t a, size_t b)
{
    (void)a, (void)b;
    t_free(p);
    return NULL;
}
static void *op_realloc(void *p, size_t size, size_t unused)
{
    (void)unused;
    return t_realloc(p, size);
}

static void run(size_t heap, result *r, void **slot, size_t *len, size_t slots)
{
    memset(r, 0, sizeof *r);
    rng_state = 0x9e3779b97f4a7c15ull;
    /* one free block of `heap` bytes: everything below happens inside it */
    t_free(t_malloc(heap - MT_GRANULE));
    size_t grown = heap_bytes(), live = 0, n = 0;
    mt_tlsf_stats s;

    /* fill 70 %, then free every other block; the rest of the heap stays
     * free, so that requests always fit without growing it */
    while (n < slots && live < heap / 10 * 7) {
        len[n] = random_size();
        if (!(slot[n] = measure(r, MALLOC, op_malloc, NULL, len[n], 0)))
            break;
        live += len[n++];
    }
    for (size_t i = 0; i < n; i += 2) {
        measure(r, FREE, op_free, slot[i], 0, 0);
        slot[i] = NULL;
        live -= len[i];
    }
    tlsf_glk_walk(&s);
    r->free_blocks_peak = s.free_blocks;

    /* random operations, at most 45 % of the heap in use */
    for (int op = 0; op < 200000; op++) {
        size_t k = rng() % n, size = random_size();
        unsigned what = (unsigned)(rng() % 8);
        bool room = live + size < heap / 100 * 45;
        if (slot[k] && what < 3) {
            measure(r, FREE, op_free, slot[k], 0, 0);
            slot[k] = NULL;
            live -= len[k];
        } else if (slot[k] && what < 5 && (room || size < len[k])) {
            void *q = measure(r, REALLOC, op_realloc, slot[k], size, 0);
            if (q) {
                slot[k] = q;
                live = live - len[k] + size;
                len[k] = size;
            }
        } else if (!slot[k] && room) {
            slot[k] = what < 7 ? measure(r, MALLOC, op_malloc, NULL, size, 0)
                               : measure(r, ALIGNED, op_aligned, NULL, size, (size_t)32 << (rng() % 8));
            len[k] = size;
            live += slot[k] ? size : 0;
        }
        if (op % 1000 == 0) {
            tlsf_glk_walk(&s);
            if (s.free_blocks > r->free_blocks_peak)
                r->free_blocks_peak = s.free_blocks;
        }
    }

    /* free what is left: odd slots first, then even ones (merging both ways) */
    for (size_t parity = 1; parity < 3; parity++)
        for (size_t i = parity % 2; i < n; i += 2)
            if (slot[i]) {
                measure(r, FREE, op_free, slot[i], 0, 0);
                slot[i] = NULL;
            }
    r->grew = heap_bytes() - grown;
    CHECK(tlsf_glk_walk(&s) == NULL && s.used_blocks == 0 && s.free_blocks == s.regions);
    t_malloc_trim(0);
    CHECK(heap_bytes() == 0);
}

int main(void)
{
    enum { SLOTS = 200000 };
    static void *slot[SLOTS];
    static size_t len[SLOTS];
    static result small, large;
    run((size_t)1 << 20, &small, slot, len, SLOTS);
    run((size_t)256 << 20, &large, slot, len, SLOTS);

    printf("%-8s %12s %12s %12s %12s %6s\n", "op", "ops 1MiB", "max 1MiB", "ops 256MiB", "max 256MiB",
           "bound");
    for (int k = 0; k < KINDS; k++) {
        printf("%-8s %12llu %12llu %12llu %12llu %6llu\n", kind_name[k], (unsigned long long)small.ops[k],
               (unsigned long long)small.max[k], (unsigned long long)large.ops[k],
               (unsigned long long)large.max[k], (unsigned long long)bound[k]);
        CHECK(small.max[k] == large.max[k]);
        CHECK(large.max[k] <= bound[k]);
        CHECK(small.ops[k] > 1000 && large.ops[k] > 1000);
    }
    printf(
        "free blocks at most: %zu (1 MiB heap), %zu (256 MiB heap); growth while measuring: %zu, %zu bytes\n",
        small.free_blocks_peak, large.free_blocks_peak, small.grew, large.grew);
    CHECK(large.free_blocks_peak > 10000);
    CHECK(small.grew == 0 && large.grew == 0);
    return check_report("tlsf_steps_test");
}

/* slab_lk above buddy_glk, as in hslab: slab spans (and multi-granule
 * slabs) are buddy blocks claimed in the page map and handed back with
 * the buddy's entry restored on every granule; buddy_glk serves span
 * requests (aligned to a granule) below its size_handle, user requests
 * only inside it; both invariant checkers hold after random operations,
 * and everything returns to mmap_heap after free and purge.
 * Built per sync policy (TSB_SYNC in both layers), and as the paper's hslab
 * has them: buddy_glk(sync=flatcombine), slab_lk(sync=posix_spin).
 * model: mmap_heap::buddy_glk(sync=TSB_BUDDY_SYNC, sizeclass=tc, size_handle=[32768, SIZE_MAX])
 *          ::slab_lk(sync=TSB_SYNC, sizeclass=tc, size_handle=[0, 32768])::custom_socket(prefix=t_) */
#include <mortise/mortise.h>
#include <mortise/os/mmap_heap.h>

#ifndef TSB_BUDDY_SYNC
#define TSB_BUDDY_SYNC TSB_SYNC
#endif
#define MT_SYNC TSB_BUDDY_SYNC
#define MT_SIZECLASS tc
#define MT_SIZE_HANDLE 32768, SIZE_MAX
#include <mortise/layers/buddy_glk.h>

#define MT_SYNC TSB_SYNC
#define MT_SIZECLASS tc
#define MT_SIZE_HANDLE 0, 32768
#include <mortise/layers/slab_lk.h>

#define MT_PREFIX t_
#include <mortise/sockets/custom_socket.h>

MT_COMPOSE(mmap_heap, buddy_glk, slab_lk, custom_socket)

#include "../../common/tsb.h"

static size_t check(void) { return tsb_check(); }
static slab_lk_slab *slab_of(void *p)
{
    return (slab_lk_slab *)mt_payload_ptr(mt_entry_payload(mt_pagemap_get(p)));
}

static void drain(void)
{
    t_malloc_trim(0);
    CHECK(buddy_glk_state.chunks == 0);
    CHECK(check() == 0);
}

/* Who serves what: small sizes slab_lk, 32 KiB .. 4 MiB buddy_glk, more
 * mmap_heap; a granule-aligned request below 32 KiB is a span: buddy_glk. */
static void test_routing(void)
{
    void *small = t_malloc(100), *mid = t_malloc(40000), *big = t_malloc((size_t)5 << 20);
    void *span = t_memalign(65536, 100), *aligned = t_memalign(4096, 100);
    CHECK(tsb_owner(small) == slab_lk_id && tsb_owner(aligned) == slab_lk_id);
    CHECK(tsb_owner(mid) == buddy_glk_id && t_malloc_usable_size(mid) == 65536);
    CHECK(tsb_owner(span) == buddy_glk_id && t_malloc_usable_size(span) == 65536);
    CHECK(tsb_owner(big) == mmap_heap_id);
    /* the slab is a buddy block: the slab keeps the buddy's entry to restore */
    slab_lk_slab *s = slab_of(small);
    CHECK(mt_entry_owner(s->prev_entry) == buddy_glk_id);
    t_free(small), t_free(mid), t_free(big), t_free(span), t_free(aligned);
    CHECK(check() == 0);
    drain();
}

/* Slabs of 32768-byte blocks are 256 KiB: four granules claimed by
 * slab_lk, all four back to buddy_glk's entry when the slab is freed. */
static void test_multi_granule(void)
{
    void *blocks[64];
    for (int i = 0; i < 64; i++)
        blocks[i] = t_malloc(32767);
    slab_lk_slab *s = slab_of(blocks[0]);
    CHECK(s->len == 262144 && s->capacity == 7);
    char *base = s->base;
    size_t claimed = 0;
    for (size_t g = 0; g < s->len; g += MT_GRANULE)
        claimed += tsb_owner(base + g) == slab_lk_id;
    CHECK(claimed == 4);
    for (int i = 0; i < 64; i++)
        t_free(blocks[i]);
    CHECK(t_malloc_trim(0) == 1); /* the cached empty slab goes back too */
    CHECK(check() == 0);          /* buddy_glk's checker reads the page map of free blocks */
    drain();
}

static void test_random(void)
{
    CHECK(tsb_random_ops(11, 150000, 1500, (size_t)5 << 20, 3000, check) == 0);
    CHECK(tsb_random_ops(12, 20000, 48, 70000, 1, check) == 0);
    drain();
}

static void test_threads(void)
{
    CHECK(tsb_threads(4, 30000, 100000, check) == 0);
    drain();
}

/* Everything allocated and freed goes back to the OS layer: RSS falls. */
static void test_rss(void)
{
    enum { N = 40000 };
    static void *p[N];
    size_t before = tsb_rss();
    uint64_t s = 21;
    for (int i = 0; i < N; i++) {
        size_t size = tsb_range(&s, 16, 4000);
        p[i] = t_malloc(size);
        memset(p[i], 1, size);
    }
    size_t peak = tsb_rss();
    for (int i = 0; i < N; i++)
        t_free(p[i]);
    t_malloc_trim(0);
    size_t after = tsb_rss();
    CHECK(peak > before + ((size_t)48 << 20));
    CHECK(after < before + ((size_t)2 << 20));
    printf("hslab_test: RSS %zu KiB -> %zu KiB -> %zu KiB after free and trim\n", before >> 10, peak >> 10,
           after >> 10);
    CHECK(buddy_glk_state.chunks == 0);
}

int main(void)
{
    test_routing();
    test_multi_granule();
    test_rss();
    test_random();
    test_threads();
    return check_report("hslab_test(" MT_STR(TSB_BUDDY_SYNC) ", " MT_STR(TSB_SYNC) ")");
}

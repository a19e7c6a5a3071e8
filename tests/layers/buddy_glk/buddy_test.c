/* buddy_glk from the inside, over mmap_heap: the invariant checker after
 * random operation sequences (one thread and several), coalescing back to
 * whole chunks in any free order, wholly free chunks going back below (all
 * but one on free, all on purge), getmeta of every block start and of
 * every page inside a block, double and interior frees ignored, resize in
 * place, zero-filled blocks reported for calloc, chunks cycling through
 * purge without new mappings. Built per sync policy
 * (TSB_SYNC) and smallest block (TSB_BUDDY_MIN: 12, the state map in the
 * record; 4, a map span of its own).
 * model: mmap_heap(large_keep=0)::buddy_glk(sync=TSB_SYNC, size_handle=[0, SIZE_MAX])::custom_socket(prefix=t_)
 *        with MT_BUDDY_MIN_SHIFT=TSB_BUDDY_MIN */
#include <mortise/mortise.h>
#define MT_LARGE_KEEP 0 /* chunks given back reach the OS at once: RSS shows it */
#include <mortise/os/mmap_heap.h>

#define MT_SYNC TSB_SYNC
#define MT_SIZE_HANDLE 0, SIZE_MAX
#define MT_BUDDY_MIN_SHIFT TSB_BUDDY_MIN
#include <mortise/layers/buddy_glk.h>

#define MT_PREFIX t_
#include <mortise/sockets/custom_socket.h>

MT_COMPOSE(mmap_heap, buddy_glk, custom_socket)

#include "../../common/tsb.h"

#define PAGE ((size_t)1 << TSB_BUDDY_MIN) /* the smallest block */
#define CHUNK ((size_t)4 << 20)
#define PAGES (CHUNK / PAGE)
#define TOP (buddy_glk_levels - 1)

static size_t check(void) { return tsb_check(); }
static buddy_glk_chunk *chunk_of(void *p)
{
    return (buddy_glk_chunk *)mt_payload_ptr(mt_entry_payload(mt_pagemap_get(p)));
}

/* Give everything back: no chunk left. */
static void drain(void)
{
    t_malloc_trim(0);
    CHECK(buddy_glk_state.chunks == 0 && buddy_glk_state.all == NULL);
}

static void test_random(void)
{
    CHECK(tsb_random_ops(3, 60000, 500, (size_t)6 << 20, 2000, check) == 0);
    CHECK(tsb_random_ops(4, 20000, 48, 300000, 1, check) == 0); /* checker after every operation */
    drain();
    CHECK(check() == 0);
}

static void test_threads(void)
{
    CHECK(tsb_threads(4, 20000, 200000, check) == 0);
    CHECK(check() == 0);
    drain();
}

static void shuffle(void **a, size_t n, uint64_t seed)
{
    for (size_t i = n - 1; i > 0; i--) {
        size_t j = tsb_next(&seed) % (i + 1);
        void *t = a[i];
        a[i] = a[j], a[j] = t;
    }
}

/* A chunk cut into every smallest block, freed in random order, merges
 * back into one free block; purge gives it back below. */
static void test_coalesce(void)
{
    drain();
    void **blocks = malloc(PAGES * sizeof *blocks);
    for (size_t i = 0; i < PAGES; i++)
        blocks[i] = t_malloc(1);
    buddy_glk_chunk *ch = chunk_of(blocks[0]);
    CHECK(buddy_glk_state.chunks == 1 && ch->free_pages == 0 && check() == 0);
    for (unsigned round = 0; round < 3; round++) {
        shuffle(blocks, PAGES, 77 + round);
        for (size_t i = 0; i < PAGES; i++) {
            t_free(blocks[i]);
            if (i % (PAGES / 16 + 1) == 0)
                CHECK(check() == 0); /* fully coalesced at every step */
        }
        CHECK(buddy_glk_state.chunks == 1 && buddy_glk_state.free_chunks == 1);
        CHECK(ch->free_pages == PAGES && (char *)buddy_glk_state.free[TOP] == ch->base);
        CHECK(mt_load_relaxed(&ch->state[0]) == (MT_BUDDY_FREE | TOP));
        for (size_t i = 0; i < PAGES; i++) /* the same chunk serves them again */
            blocks[i] = t_malloc(PAGE);
        CHECK(buddy_glk_state.chunks == 1 && chunk_of(blocks[PAGES - 1]) == ch);
    }
    for (size_t i = 0; i < PAGES; i++)
        t_free(blocks[i]);
    char *base = ch->base;
    CHECK(tsb_owner(base) == buddy_glk_id);
    CHECK(t_malloc_trim(0) == 1);
    CHECK(buddy_glk_state.chunks == 0 && tsb_owner(base) != buddy_glk_id);
    free(blocks);
}

/* Wholly free chunks go back below when freed, except one kept. */
static void test_return(void)
{
    drain();
    char *c[4];
    size_t before = tsb_rss();
    for (int i = 0; i < 4; i++) {
        c[i] = t_malloc(CHUNK); /* one whole chunk each */
        memset(c[i], 0x33, CHUNK);
    }
    CHECK(buddy_glk_state.chunks == 4 && buddy_glk_state.free_chunks == 0);
    size_t peak = tsb_rss();
    for (int i = 0; i < 4; i++)
        t_free(c[i]);
    size_t after = tsb_rss();
    CHECK(buddy_glk_state.chunks == 1 && buddy_glk_state.free_chunks == 1);
    size_t ours = 0;
    for (int i = 0; i < 4; i++)
        ours += tsb_owner(c[i]) == buddy_glk_id;
    CHECK(ours == 1);
    CHECK(peak >= before + 4 * CHUNK && after <= before + CHUNK + ((size_t)1 << 20));
    printf("buddy_test: RSS %zu KiB -> %zu KiB with 4 chunks -> %zu KiB after free\n", before >> 10,
           peak >> 10, after >> 10);
    CHECK(check() == 0);
    drain();
}

/* malloc_trim gives back the pages of free blocks inside a chunk that one
 * live block keeps: the chunk stays, its RSS does not (without it the whole
 * written chunk stayed resident). */
static void test_trim_inside_used_chunk(void)
{
    drain();
    size_t before = tsb_rss();
    char *pin = t_malloc(PAGE), *rest = t_malloc(CHUNK / 2), *quarter = t_malloc(CHUNK / 4);
    CHECK(pin && rest && quarter && chunk_of(pin) == chunk_of(rest) && chunk_of(pin) == chunk_of(quarter));
    memset(rest, 0x5a, CHUNK / 2);
    memset(quarter, 0xa5, CHUNK / 4);
    size_t written = tsb_rss();
    t_free(rest);
    t_free(quarter);
    CHECK(buddy_glk_state.chunks == 1 && buddy_glk_state.free_chunks == 0);
    CHECK(t_malloc_trim(0) == 1);
    size_t trimmed = tsb_rss();
    CHECK(buddy_glk_state.chunks == 1); /* pin keeps the chunk */
    CHECK_MSG(written >= before + CHUNK / 2 && trimmed <= before + ((size_t)1 << 20),
              "RSS %zu KiB -> %zu KiB written -> %zu KiB after trim", before >> 10, written >> 10,
              trimmed >> 10);
    CHECK(check() == 0);
    char *again = t_malloc(CHUNK / 2); /* the free lists survived the discard */
    CHECK(again != NULL && chunk_of(again) == chunk_of(pin));
    memset(again, 0x11, CHUNK / 2);
    t_free(again);
    t_free(pin);
    CHECK(check() == 0);
    drain();
}

/* Blocks of mixed orders: getmeta answers 2^k at every block start and
 * nothing at every other page or offset of the chunk. */
static void test_getmeta(void)
{
    drain();
    void *blocks[600];
    size_t n = 0;
    uint64_t s = 5;
    while (n < 600) {
        size_t size = (size_t)PAGE << (tsb_next(&s) % 6);
        blocks[n++] = t_malloc(size - tsb_next(&s) % (size / 2));
    }
    size_t starts = 0, answers = 0, inside = 0;
    for (buddy_glk_chunk *ch = buddy_glk_state.all; ch; ch = ch->all_next) {
        for (size_t page = 0; page < PAGES; page++) {
            char *p = ch->base + page * PAGE;
            unsigned st = mt_load_relaxed(&ch->state[page]);
            size_t usable = t_malloc_usable_size(p);
            if (st & MT_BUDDY_USED) {
                starts++;
                answers += usable == ((size_t)PAGE << (st & MT_BUDDY_LEVEL));
            } else {
                inside += usable != 0;
            }
            inside += t_malloc_usable_size(p + 8) != 0 || t_malloc_usable_size(p + PAGE - 1) != 0;
        }
    }
    CHECK(starts == n && answers == n);
    CHECK(inside == 0);
    for (size_t i = 0; i < n; i++)
        t_free(blocks[i]);
    CHECK(check() == 0);
    drain();
}

/* A second free, a free inside a block or a page: ignored. */
static void test_bad_frees(void)
{
    char *a = t_malloc(3 * PAGE), *b = t_malloc(PAGE);
    buddy_glk_chunk *ch = chunk_of(a);
    size_t free_pages = ch->free_pages;
    t_free(a + PAGE); /* inside a's block of 4 smallest blocks */
    t_free(a + 8);
    t_free(b + 100);
    CHECK(ch->free_pages == free_pages && t_malloc_usable_size(a) == 4 * PAGE);
    t_free(b);
    t_free(b); /* double free */
    CHECK(ch->free_pages == free_pages + 1 && check() == 0);
    t_free(a);
    CHECK(check() == 0);
    drain();
}

/* realloc in place: shrink frees the upper halves, grow takes free buddies;
 * a grow whose buddy is in use moves. */
static void test_resize(void)
{
    drain();
    char *p = t_malloc(8192);
    memset(p, 0x7E, 8192);
    char *q = t_realloc(p, 60000); /* 8 KiB -> 64 KiB: buddies free in a fresh chunk */
    CHECK(q == p && t_malloc_usable_size(q) == 65536 && q[8191] == 0x7E);
    q = t_realloc(p, 5000); /* shrink to 8 KiB */
    CHECK(q == p && t_malloc_usable_size(q) == 8192 && q[4999] == 0x7E && check() == 0);
    char *blocker = t_malloc(8192); /* the buddy of p */
    CHECK(blocker == p + 8192);
    q = t_realloc(p, 16384);
    CHECK(q != p && q && q[8191] == 0x7E && t_malloc_usable_size(q) == 16384);
    t_free(q);
    t_free(blocker);
    CHECK(check() == 0);
    drain();
}

/* Blocks carved from a fresh chunk are reported zero-filled (calloc skips
 * its memset); a block that was used is not. */
static void test_zeroed(void)
{
    drain();
    size_t dirty = 0;
    for (int i = 0; i < 3; i++) {
        unsigned char *p = t_calloc(1, 100000);
        for (size_t k = 0; k < 100000; k++)
            dirty += p[k] != 0;
        memset(p, 0xFF, 100000);
        t_free(p);
    }
    CHECK(dirty == 0);
    drain();
    mt_ctx ctx = mt_ctx_for_alloc(PAGE, 1);
    void *fresh = mt_chain_alloc(&ctx);
    CHECK(ctx.zeroed == fresh); /* from a fresh chunk */
    t_free(fresh);              /* the chunk merges back, no longer known zero */
    ctx = mt_ctx_for_alloc(131072, 1);
    void *used = mt_chain_alloc(&ctx);
    CHECK(used == fresh && ctx.zeroed != used);
    t_free(used);
    drain();
}

static size_t mappings(void)
{
    size_t n = 0;
    int c;
    FILE *f = fopen("/proc/self/maps", "r");
    while (f && (c = fgetc(f)) != EOF)
        n += c == '\n';
    if (f)
        fclose(f);
    return n;
}

/* Chunks given back below and taken again reuse the OS layer's cached
 * chunks: the process's mappings do not grow (chunk-aligned requests
 * bypassed mmap_heap's cache: one new mapping per chunk, never reused). */
static void test_no_mapping_growth(void)
{
    drain();
    size_t before = mappings();
    for (int round = 0; round < 100; round++) {
        void *p[3];
        for (int i = 0; i < 3; i++)
            p[i] = t_malloc(CHUNK);
        for (int i = 0; i < 3; i++)
            t_free(p[i]);
        drain();
    }
    size_t after = mappings();
    printf("buddy_test: %zu mappings before, %zu after 100 rounds of 3 chunks\n", before, after);
    CHECK(after <= before + 8);
}

static void test_checker_finds(void)
{
    void *p = t_malloc(PAGE);
    buddy_glk_chunk *ch = chunk_of(p);
    ch->free_pages--;
    CHECK(check() != 0);
    ch->free_pages++;
    CHECK(check() == 0);
    t_free(p);
    drain();
}

int main(void)
{
    test_coalesce();
    test_return();
    test_trim_inside_used_chunk();
    test_getmeta();
    test_bad_frees();
    test_resize();
    test_zeroed();
    test_no_mapping_growth();
    test_checker_finds();
    test_random();
    test_threads();
    return check_report("buddy_test(" MT_STR(TSB_SYNC) ", min 2^" MT_STR(TSB_BUDDY_MIN) ")");
}

/* bench_large_loop: blocks of several MiB allocated, filled and freed in a
 * loop (an image or compression buffer per request).
 *
 * Each thread keeps a window of two live blocks: per round it checks and
 * frees the older one, then allocates a new block of 1 to 8 MiB (random, not
 * a page multiple) and writes one word on every page of it. One round in
 * eight uses calloc instead (every page's first word must read zero before
 * it is written), one in eight grows or shrinks the new block with realloc
 * (the pages it keeps must survive). So every page of every block is
 * touched, and an allocator that gives freed pages back to the OS at once
 * pays a page fault per page per round. 6000·SCALE rounds shared among the
 * threads.
 *
 * Besides the seal (workload.h), each page of a block carries a word
 * derived from the block's id and the page's index; all are checked before
 * the block is freed. Ids and sizes depend only on -t and -s.
 */
#include "workload.h"

#define WINDOW 2
#define MIN_SIZE ((size_t)1 << 20)
#define MAX_SIZE ((size_t)8 << 20)
#define PAGE 4096

struct slot {
    char *p;
    size_t size;
    uint64_t id;
};

static int nthreads;
static size_t total_rounds;
static struct wl_ledger ledger;
static _Atomic uint64_t pages_written;

static uint64_t page_word(uint64_t id, size_t page) { return wl_mix(id ^ ((uint64_t)page << 1)); }

/* The page words live just after the 16-byte seal head on the first page
 * and at the start of every other page, clear of the tail seal word. */
static size_t word_at(size_t page) { return page ? page * PAGE : WL_MIN_SEALED; }

static size_t fill(char *p, size_t size, uint64_t id)
{
    size_t n = 0;
    for (size_t page = 0; word_at(page) + 8 <= size - 8; page++, n++) {
        uint64_t w = page_word(id, page);
        memcpy(p + word_at(page), &w, 8);
    }
    return n;
}

static void verify(const char *p, size_t size, uint64_t id, size_t upto, const char *where)
{
    for (size_t page = 0; word_at(page) + 8 <= upto - 8; page++) {
        uint64_t w;
        memcpy(&w, p + word_at(page), 8);
        if (w != page_word(id, page))
            wl_fail("%s: page %zu of block %p (%zu bytes) damaged", where, page, (const void *)p, size);
    }
}

static void retire(struct slot *s, struct wl_tally *tl)
{
    if (!s->p)
        return;
    verify(s->p, s->size, s->id, s->size, "large_loop free");
    tl->freed_sum += wl_mix(wl_free_sealed(s->p, s->size, "large_loop free") + s->size);
    tl->freed++;
    s->p = NULL;
}

static void worker(int t, void *arg)
{
    (void)arg;
    size_t rounds = wl_share(total_rounds, t, nthreads);
    struct wl_rng rng = wl_rng_seed(0x1a26e + (uint64_t)t);
    struct slot window[WINDOW] = {{0}};
    struct wl_tally tl = {0};
    uint64_t serial = 0, pages = 0;
    for (size_t k = 0; k < rounds; k++) {
        struct slot *s = &window[k % WINDOW];
        retire(s, &tl);
        uint64_t id = wl_mix(((uint64_t)t << 40) ^ ++serial);
        size_t size = (size_t)wl_range(&rng, MIN_SIZE, MAX_SIZE);
        unsigned roll = (unsigned)wl_below(&rng, 8);
        char *p;
        if (roll == 0) {
            p = calloc(1, size);
            if (!p)
                wl_fail("calloc(1, %zu) returned NULL", size);
            for (size_t page = 0; page * PAGE + 8 <= size; page++) {
                uint64_t w;
                memcpy(&w, p + page * PAGE, 8);
                if (w)
                    wl_fail("calloc(1, %zu): page %zu of %p not zero", size, page, (void *)p);
            }
        } else {
            p = wl_malloc(size, "large_loop");
        }
        pages += fill(p, size, id);
        wl_seal(p, size, id);
        if (roll == 1) {
            size_t to = (size_t)wl_range(&rng, MIN_SIZE, MAX_SIZE);
            char *q = realloc(p, to);
            if (!q)
                wl_fail("realloc(%zu) returned NULL", to);
            verify(q, size, id, to < size ? to : size, "large_loop realloc");
            p = q;
            size = to;
            pages += fill(p, size, id);
            wl_seal(p, size, id);
        }
        *s = (struct slot){p, size, id};
        tl.made_sum += wl_mix(id + size);
    }
    for (int i = 0; i < WINDOW; i++)
        retire(&window[i], &tl);
    tl.made = serial;
    wl_ledger_add(&ledger, &tl);
    atomic_fetch_add(&pages_written, pages);
}

int main(int argc, char **argv)
{
    struct wl_args a = wl_parse(argc, argv, "blocks of 1-8 MiB allocated, every page written, freed");
    nthreads = a.threads;
    total_rounds = wl_scaled(6000, a.scale, (size_t)nthreads);
    wl_run_threads(nthreads, worker, NULL);
    uint64_t blocks = wl_ledger_check(&ledger, "large_loop");
    printf("ok checksum=%016llx threads=%d blocks=%llu pages=%llu\n",
           (unsigned long long)wl_mix(atomic_load(&ledger.made_sum)), nthreads, (unsigned long long)blocks,
           (unsigned long long)atomic_load(&pages_written));
    return 0;
}

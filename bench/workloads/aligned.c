/* bench_aligned: aligned and random-size requests across threads (like
 * rptest in the paper, whose requests are partly aligned).
 *
 * Each thread keeps 1000 live blocks and replaces a random one at a time.
 * A new block is, in equal shares, a plain malloc, a posix_memalign or an
 * aligned_alloc (size rounded up to the alignment) with a random power-of-
 * two alignment of 16 B–4 KiB (one in 32 up to 64 KiB), and sizes of 16 B–
 * 4 KiB (one in 16 up to 64 KiB); one in 8 replacements grows or shrinks
 * the old block with realloc instead. A block leaving the working set is
 * freed by its thread, or (one in 4) posted to a random thread's inbox and
 * freed there. 2·10^6·SCALE replacements shared among the threads.
 *
 * Every alignment is checked when the block is made, every block's seal
 * when it dies, and the ids freed must add up to those allocated.
 */
#include "workload.h"

#define WORKING_SET 1000
#define POST_BATCH 32 /* blocks per letter */

static int nthreads;
static size_t total_ops;
static struct wl_mailbox *inbox;
static _Atomic int finished;
static struct wl_ledger ledger;

static void *make_block(struct wl_rng *rng, size_t *size_out)
{
    size_t size = wl_below(rng, 16) ? wl_range(rng, 16, 4096) : wl_range(rng, 4097, 65536);
    size_t align = (size_t)16 << (wl_below(rng, 32) ? wl_below(rng, 9) : wl_below(rng, 13));
    void *p = NULL;
    switch (wl_below(rng, 3)) {
    case 0:
        p = wl_malloc(size, "aligned: malloc");
        align = 16;
        break;
    case 1: {
        int e = posix_memalign(&p, align, size);
        if (e)
            wl_fail("posix_memalign(%zu, %zu): %s", align, size, strerror(e));
        break;
    }
    default:
        size = (size + align - 1) / align * align;
        p = aligned_alloc(align, size);
        if (!p)
            wl_fail("aligned_alloc(%zu, %zu) returned NULL", align, size);
    }
    if ((uintptr_t)p % align)
        wl_fail("%p is not aligned to %zu", p, align);
    *size_out = size;
    return p;
}

static void worker(int t, void *arg)
{
    (void)arg;
    size_t ops = wl_share(total_ops, t, nthreads);
    struct wl_rng rng = wl_rng_seed(0xa119e0 + (uint64_t)t);
    struct wl_item *set = calloc(WORKING_SET, sizeof *set);
    struct wl_letter *outgoing = NULL;
    if (!set)
        wl_fail("no memory for a working set");
    uint64_t serial = 0;
    struct wl_tally tl = {0};
    for (size_t k = 0; k < ops; k++) {
        struct wl_item *s = &set[wl_below(&rng, WORKING_SET)];
        uint64_t id = wl_mix(((uint64_t)t << 40) ^ ++serial);
        if (s->p && wl_below(&rng, 8) == 0) {
            /* realloc: the old block's content survives up to the smaller size */
            tl.freed_sum += wl_open(s->p, s->size, "before realloc");
            tl.freed++;
            size_t size = wl_range(&rng, 16, 8192);
            uint64_t keep;
            memcpy(&keep, (char *)s->p + 8, 8);
            void *q = realloc(s->p, size);
            if (!q)
                wl_fail("realloc(%zu) returned NULL", size);
            if (memcmp((char *)q + 8, &keep, 8))
                wl_fail("realloc lost the block's content");
            s->p = q;
            s->size = size;
        } else {
            if (s->p) {
                if (wl_below(&rng, 4) == 0) {
                    if (!outgoing)
                        outgoing = wl_letter_new(serial);
                    wl_open(s->p, s->size, "before posting");
                    outgoing->item[outgoing->count++] = *s;
                    if (outgoing->count == POST_BATCH) {
                        wl_mail_post(&inbox[wl_below(&rng, (uint64_t)nthreads)], outgoing);
                        outgoing = NULL;
                    }
                } else {
                    tl.freed_sum += wl_free_sealed(s->p, s->size, "aligned replace");
                    tl.freed++;
                }
            }
            s->p = make_block(&rng, &s->size);
        }
        wl_seal(s->p, s->size, id);
        tl.made_sum += id;
        if (k % 256 == 0)
            wl_mail_empty(&inbox[t], &tl);
    }
    if (outgoing)
        wl_mail_post(&inbox[t], outgoing);
    for (int i = 0; i < WORKING_SET; i++)
        if (set[i].p) {
            tl.freed_sum += wl_free_sealed(set[i].p, set[i].size, "aligned end");
            tl.freed++;
        }
    free(set);
    wl_mail_finish(&inbox[t], &finished, nthreads, &tl);
    tl.made = serial;
    wl_ledger_add(&ledger, &tl);
}

int main(int argc, char **argv)
{
    struct wl_args a = wl_parse(argc, argv, "aligned and random-size requests, freed across threads");
    nthreads = a.threads;
    total_ops = wl_scaled(2000000, a.scale, (size_t)nthreads);
    inbox = wl_mailboxes_new(nthreads);
    wl_run_threads(nthreads, worker, NULL);
    free(inbox);
    uint64_t blocks = wl_ledger_check(&ledger, "aligned");
    printf("ok checksum=%016llx threads=%d blocks=%llu\n",
           (unsigned long long)wl_mix(atomic_load(&ledger.made_sum)), nthreads, (unsigned long long)blocks);
    return 0;
}

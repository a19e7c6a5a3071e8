/* bench_lifofifo: mixed LIFO and FIFO free order with cross-thread frees
 * (like sh6bench/sh8bench in the paper).
 *
 * Each round a thread allocates a batch of 300 blocks of 16–1000 bytes; it
 * frees the newest third in LIFO order (last allocated first), the oldest
 * third in FIFO order (first allocated first), and mails the middle third
 * to the next thread (t+1 mod T), which frees it when it next empties its
 * mailbox. A thread empties its mailbox every round and keeps doing so until
 * every thread has finished; a sender whose receiver has 64 letters waiting
 * waits. 2·10^4·SCALE rounds shared among the threads.
 *
 * The ids of the blocks freed, by whatever thread, must add up to those
 * allocated; sizes and ids depend only on -t and -s.
 */
#include "workload.h"

#define BATCH 300
#define THIRD (BATCH / 3)
#define MAILBOX_MAX 64

static struct wl_mailbox *box;
static int nthreads;
static size_t total_rounds;
static _Atomic int finished;
static struct wl_ledger ledger;

static void worker(int t, void *arg)
{
    (void)arg;
    size_t rounds = wl_share(total_rounds, t, nthreads);
    struct wl_rng rng = wl_rng_seed(0x5b8 + (uint64_t)t);
    struct wl_item block[BATCH];
    uint64_t serial = 0;
    struct wl_tally tl = {0};
    for (size_t r = 0; r < rounds; r++) {
        for (int i = 0; i < BATCH; i++) {
            uint64_t id = wl_mix(((uint64_t)t << 40) ^ ++serial);
            block[i].size = wl_range(&rng, WL_MIN_SEALED, 1000);
            block[i].p = wl_malloc(block[i].size, "batch block");
            wl_seal(block[i].p, block[i].size, id);
            tl.made_sum += id;
        }
        for (int i = BATCH; i-- > 2 * THIRD;)
            tl.freed_sum += wl_free_sealed(block[i].p, block[i].size, "LIFO free");
        for (int i = 0; i < THIRD; i++)
            tl.freed_sum += wl_free_sealed(block[i].p, block[i].size, "FIFO free");
        tl.freed += 2 * THIRD;
        struct wl_letter *l = wl_letter_new(serial);
        memcpy(l->item, block + THIRD, THIRD * sizeof *block);
        l->count = THIRD;
        struct wl_mailbox *to = &box[(t + 1) % nthreads];
        /* A slow receiver holds back its sender, so the live set stays bounded. */
        while (atomic_load(&to->letters) >= MAILBOX_MAX) {
            wl_mail_empty(&box[t], &tl);
            sched_yield();
        }
        wl_mail_post(to, l);
        wl_mail_empty(&box[t], &tl);
    }
    wl_mail_finish(&box[t], &finished, nthreads, &tl);
    tl.made = serial;
    wl_ledger_add(&ledger, &tl);
}

int main(int argc, char **argv)
{
    struct wl_args a = wl_parse(argc, argv, "LIFO and FIFO frees mixed with frees by the next thread");
    nthreads = a.threads;
    total_rounds = wl_scaled(20000, a.scale, (size_t)nthreads);
    box = wl_mailboxes_new(nthreads);
    wl_run_threads(nthreads, worker, NULL);
    free(box);
    uint64_t blocks = wl_ledger_check(&ledger, "lifofifo");
    printf("ok checksum=%016llx threads=%d rounds=%zu blocks=%llu\n",
           (unsigned long long)wl_mix(atomic_load(&ledger.made_sum)), nthreads, total_rounds,
           (unsigned long long)blocks);
    return 0;
}

/* bench_prodcons: producers allocate, consumers free (like xmalloc-test in
 * the paper: many allocating and many freeing threads).
 *
 * Of T threads, half (at least one) produce and the rest (at least one)
 * consume. A producer allocates blocks of 16–512 bytes, seals them, and
 * hands them over 64 at a time in a heap-allocated batch through a shared
 * bounded queue (at most 256 batches waiting); a consumer takes a batch,
 * opens and frees every block, and frees the batch. Every block is freed by
 * a thread that did not allocate it. 4·10^6·SCALE blocks in all.
 *
 * The ids of the blocks freed must add up to those allocated; the sizes and
 * ids depend only on -t and -s.
 */
#include <stdatomic.h>

#include "workload.h"

#define BATCH 64
#define QUEUE_MAX 256

struct batch {
    uint64_t id, seal;
    struct batch *next;
    int count;
    void *block[BATCH];
    uint32_t size[BATCH];
};

static struct {
    pthread_mutex_t lock;
    pthread_cond_t nonempty, nonfull;
    struct batch *head, *tail;
    int queued, producers_left;
} q = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, NULL, 0, 0};

static int producers, consumers;
static size_t total_blocks;
static struct wl_ledger ledger;

static void put(struct batch *b)
{
    pthread_mutex_lock(&q.lock);
    while (q.queued >= QUEUE_MAX)
        pthread_cond_wait(&q.nonfull, &q.lock);
    b->next = NULL;
    if (q.tail)
        q.tail->next = b;
    else
        q.head = b;
    q.tail = b;
    q.queued++;
    pthread_cond_signal(&q.nonempty);
    pthread_mutex_unlock(&q.lock);
}

/* NULL once every producer is done and the queue is empty. */
static struct batch *take(void)
{
    pthread_mutex_lock(&q.lock);
    while (!q.head && q.producers_left > 0)
        pthread_cond_wait(&q.nonempty, &q.lock);
    struct batch *b = q.head;
    if (b) {
        q.head = b->next;
        if (!q.head)
            q.tail = NULL;
        q.queued--;
        pthread_cond_signal(&q.nonfull);
    }
    pthread_mutex_unlock(&q.lock);
    return b;
}

static void produce(int p)
{
    size_t mine = wl_share(total_blocks, p, producers);
    struct wl_rng rng = wl_rng_seed(0x9c0d + (uint64_t)p);
    uint64_t serial = 0;
    struct wl_tally tl = {0};
    while (mine > 0) {
        struct batch *b = wl_malloc(sizeof *b, "batch");
        wl_seal(b, WL_MIN_SEALED, ((uint64_t)p << 40) | serial);
        b->count = mine < BATCH ? (int)mine : BATCH;
        for (int i = 0; i < b->count; i++) {
            uint64_t id = wl_mix(((uint64_t)p << 40) ^ ++serial);
            size_t size = wl_range(&rng, 16, 512);
            b->block[i] = wl_malloc(size, "producer");
            b->size[i] = (uint32_t)size;
            wl_seal(b->block[i], size, id);
            tl.made_sum += id;
        }
        mine -= (size_t)b->count;
        put(b);
    }
    tl.made = serial;
    wl_ledger_add(&ledger, &tl);
    pthread_mutex_lock(&q.lock);
    if (--q.producers_left == 0)
        pthread_cond_broadcast(&q.nonempty);
    pthread_mutex_unlock(&q.lock);
}

static void consume(void)
{
    struct wl_tally tl = {0};
    struct batch *b;
    while ((b = take()) != NULL) {
        for (int i = 0; i < b->count; i++)
            tl.freed_sum += wl_free_sealed(b->block[i], b->size[i], "consumer");
        tl.freed += (uint64_t)b->count;
        wl_free_sealed(b, WL_MIN_SEALED, "batch");
    }
    wl_ledger_add(&ledger, &tl);
}

static void worker(int i, void *arg)
{
    (void)arg;
    if (i < producers)
        produce(i);
    else
        consume();
}

int main(int argc, char **argv)
{
    struct wl_args a = wl_parse(argc, argv, "producers allocate, consumers free, through a shared queue");
    producers = a.threads / 2 > 0 ? a.threads / 2 : 1;
    consumers = a.threads - producers > 0 ? a.threads - producers : 1;
    total_blocks = wl_scaled(4000000, a.scale, (size_t)producers);
    q.producers_left = producers;
    wl_run_threads(producers + consumers, worker, NULL);
    if (wl_ledger_check(&ledger, "prodcons") != total_blocks)
        wl_fail("%llu blocks freed of %zu", (unsigned long long)atomic_load(&ledger.freed), total_blocks);
    printf("ok checksum=%016llx producers=%d consumers=%d blocks=%zu\n",
           (unsigned long long)wl_mix(atomic_load(&ledger.made_sum)), producers, consumers, total_blocks);
    return 0;
}

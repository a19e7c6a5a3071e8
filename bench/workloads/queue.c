/* bench_queue: concurrent queue node churn (like cxqueue in the paper).
 *
 * One shared FIFO queue, Michael and Scott's two-lock algorithm: a head
 * lock and a tail lock, a dummy node in front. Every enqueue mallocs a
 * 32-byte node and every dequeue frees the node in front (the old dummy),
 * so nodes are allocated by one thread and freed by whichever thread
 * dequeues past them. Each thread enqueues a batch of 16384 values, then
 * dequeues 16384 values (waiting while the queue is empty), and repeats.
 * 8·10^6·SCALE nodes in all, shared among the threads.
 *
 * The values dequeued must add up to those enqueued, each thread's values
 * must come out in the order it put them in, and every node's seal must be
 * intact when it is freed.
 */
#include <sched.h>
#include <stdatomic.h>

#include "workload.h"

#define BATCH 16384

struct node {
    uint64_t id, seal;
    _Atomic(struct node *) next;
    uint64_t value; /* thread << 48 | sequence number */
};

static struct {
    pthread_mutex_t head_lock;
    struct node *head;
    char pad[64];
    pthread_mutex_t tail_lock;
    struct node *tail;
} q = {PTHREAD_MUTEX_INITIALIZER, NULL, {0}, PTHREAD_MUTEX_INITIALIZER, NULL};

static int nthreads;
static size_t total_nodes;
static uint64_t *last_seen; /* per producer: last sequence number dequeued, under head_lock */
static struct wl_ledger ledger;

static struct node *node_new(uint64_t value)
{
    struct node *n = wl_malloc(sizeof *n, "queue node");
    wl_seal(n, WL_MIN_SEALED, value);
    atomic_store_explicit(&n->next, NULL, memory_order_relaxed);
    n->value = value;
    return n;
}

static void enqueue(uint64_t value)
{
    struct node *n = node_new(value);
    pthread_mutex_lock(&q.tail_lock);
    atomic_store_explicit(&q.tail->next, n, memory_order_release);
    q.tail = n;
    pthread_mutex_unlock(&q.tail_lock);
}

/* 0 when the queue is empty, else 1 with *value set. */
static int dequeue(uint64_t *value)
{
    pthread_mutex_lock(&q.head_lock);
    struct node *front = q.head;
    struct node *next = atomic_load_explicit(&front->next, memory_order_acquire);
    if (!next) {
        pthread_mutex_unlock(&q.head_lock);
        return 0;
    }
    *value = next->value;
    uint64_t producer = *value >> 48, seq = *value & ((1ull << 48) - 1);
    if (seq <= last_seen[producer])
        wl_fail("value %llu of thread %llu came out after %llu", (unsigned long long)seq,
                (unsigned long long)producer, (unsigned long long)last_seen[producer]);
    last_seen[producer] = seq;
    q.head = next;
    pthread_mutex_unlock(&q.head_lock);
    wl_free_sealed(front, WL_MIN_SEALED, "dequeued node");
    return 1;
}

static void worker(int t, void *arg)
{
    (void)arg;
    size_t mine = wl_share(total_nodes, t, nthreads);
    uint64_t seq = 0;
    struct wl_tally tl = {0};
    while (mine > 0) {
        size_t batch = mine < BATCH ? mine : BATCH;
        for (size_t i = 0; i < batch; i++) {
            uint64_t v = ((uint64_t)t << 48) | ++seq;
            enqueue(v);
            tl.made_sum += v;
        }
        for (size_t i = 0; i < batch; i++) {
            uint64_t v;
            while (!dequeue(&v))
                sched_yield();
            tl.freed_sum += v;
        }
        mine -= batch;
    }
    tl.made = tl.freed = seq;
    wl_ledger_add(&ledger, &tl);
}

int main(int argc, char **argv)
{
    struct wl_args a =
        wl_parse(argc, argv, "two-lock queue: every node malloc'd by its producer, freed by its consumer");
    nthreads = a.threads;
    total_nodes = wl_scaled(8000000, a.scale, (size_t)nthreads);
    last_seen = calloc((size_t)nthreads, sizeof *last_seen);
    if (!last_seen)
        wl_fail("no memory");
    q.head = q.tail = node_new(0);
    wl_run_threads(nthreads, worker, NULL);
    if (atomic_load(&q.head->next))
        wl_fail("queue not empty at the end");
    wl_free_sealed(q.head, WL_MIN_SEALED, "dummy node");
    free(last_seen);
    if (wl_ledger_check(&ledger, "queue") != total_nodes)
        wl_fail("%llu values dequeued of %zu", (unsigned long long)atomic_load(&ledger.freed), total_nodes);
    printf("ok checksum=%016llx threads=%d nodes=%zu\n",
           (unsigned long long)wl_mix(atomic_load(&ledger.made_sum)), nthreads, total_nodes);
    return 0;
}

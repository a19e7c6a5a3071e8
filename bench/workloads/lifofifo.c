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
#include <sched.h>
#include <stdatomic.h>

#include "workload.h"

#define BATCH 300
#define THIRD (BATCH / 3)

struct letter {
  uint64_t id, seal;
  struct letter *next;
  void *block[THIRD];
  uint32_t size[THIRD];
};

#define MAILBOX_MAX 64

struct mailbox {
  pthread_mutex_t lock;
  struct letter *head;
  _Atomic int letters;
  char pad[64];
};

static struct mailbox *box;
static int nthreads;
static size_t total_rounds;
static _Atomic int finished;
static _Atomic uint64_t made_sum, freed_sum, freed_count, made_count;

static uint64_t empty_mailbox(int t, uint64_t *count) {
  pthread_mutex_lock(&box[t].lock);
  struct letter *l = box[t].head;
  box[t].head = NULL;
  atomic_store(&box[t].letters, 0);
  pthread_mutex_unlock(&box[t].lock);
  uint64_t sum = 0;
  while (l) {
    struct letter *next = l->next;
    for (int i = 0; i < THIRD; i++)
      sum += wl_free_sealed(l->block[i], l->size[i], "mailed block");
    *count += THIRD;
    wl_free_sealed(l, WL_MIN_SEALED, "letter");
    l = next;
  }
  return sum;
}

static void worker(int t, void *arg) {
  (void)arg;
  size_t rounds = wl_share(total_rounds, t, nthreads);
  struct wl_rng rng = wl_rng_seed(0x5b8 + (uint64_t)t);
  void *block[BATCH];
  uint32_t size[BATCH];
  uint64_t serial = 0, made = 0, freed = 0, nfreed = 0;
  for (size_t r = 0; r < rounds; r++) {
    for (int i = 0; i < BATCH; i++) {
      uint64_t id = wl_mix(((uint64_t)t << 40) ^ ++serial);
      size[i] = (uint32_t)wl_range(&rng, WL_MIN_SEALED, 1000);
      block[i] = wl_malloc(size[i], "batch block");
      wl_seal(block[i], size[i], id);
      made += id;
    }
    for (int i = BATCH; i-- > 2 * THIRD;)
      freed += wl_free_sealed(block[i], size[i], "LIFO free");
    for (int i = 0; i < THIRD; i++)
      freed += wl_free_sealed(block[i], size[i], "FIFO free");
    nfreed += 2 * THIRD;
    struct letter *l = wl_malloc(sizeof *l, "letter");
    wl_seal(l, WL_MIN_SEALED, serial);
    memcpy(l->block, block + THIRD, sizeof l->block);
    memcpy(l->size, size + THIRD, sizeof l->size);
    struct mailbox *to = &box[(t + 1) % nthreads];
    /* A slow receiver holds back its sender, so the live set stays bounded. */
    while (atomic_load(&to->letters) >= MAILBOX_MAX) {
      freed += empty_mailbox(t, &nfreed);
      sched_yield();
    }
    pthread_mutex_lock(&to->lock);
    l->next = to->head;
    to->head = l;
    atomic_fetch_add(&to->letters, 1);
    pthread_mutex_unlock(&to->lock);
    freed += empty_mailbox(t, &nfreed);
  }
  /* Keep receiving until every sender is done. */
  atomic_fetch_add(&finished, 1);
  while (atomic_load(&finished) < nthreads) {
    freed += empty_mailbox(t, &nfreed);
    sched_yield();
  }
  freed += empty_mailbox(t, &nfreed);
  atomic_fetch_add(&made_sum, made);
  atomic_fetch_add(&freed_sum, freed);
  atomic_fetch_add(&freed_count, nfreed);
  atomic_fetch_add(&made_count, serial);
}

int main(int argc, char **argv) {
  struct wl_args a = wl_parse(argc, argv, "LIFO and FIFO frees mixed with frees by the next thread");
  nthreads = a.threads;
  total_rounds = wl_scaled(20000, a.scale, (size_t)nthreads);
  box = calloc((size_t)nthreads, sizeof *box);
  if (!box)
    wl_fail("no memory for mailboxes");
  for (int t = 0; t < nthreads; t++)
    pthread_mutex_init(&box[t].lock, NULL);
  wl_run_threads(nthreads, worker, NULL);
  free(box);
  if (atomic_load(&freed_count) != atomic_load(&made_count))
    wl_fail("%llu blocks allocated, %llu freed", (unsigned long long)atomic_load(&made_count),
            (unsigned long long)atomic_load(&freed_count));
  if (atomic_load(&freed_sum) != atomic_load(&made_sum))
    wl_fail("the blocks freed are not the blocks allocated");
  printf("ok checksum=%016llx threads=%d rounds=%zu blocks=%llu\n",
         (unsigned long long)wl_mix(atomic_load(&made_sum)), nthreads, total_rounds,
         (unsigned long long)atomic_load(&made_count));
  return 0;
}

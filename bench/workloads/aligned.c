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
#include <sched.h>
#include <stdatomic.h>

#include "workload.h"

#define WORKING_SET 1000
#define POST_BATCH 32

struct slot {
  void *p;
  size_t size;
};

struct post {
  uint64_t id, seal;
  struct post *next;
  struct slot item[POST_BATCH];
};

struct inbox {
  pthread_mutex_t lock;
  struct post *head;
  char pad[64];
};

static int nthreads;
static size_t total_ops;
static struct inbox *inbox;
static _Atomic int finished;
static _Atomic uint64_t made_sum, freed_sum, made_count, freed_count;

static uint64_t empty_inbox(int t, uint64_t *count) {
  pthread_mutex_lock(&inbox[t].lock);
  struct post *p = inbox[t].head;
  inbox[t].head = NULL;
  pthread_mutex_unlock(&inbox[t].lock);
  uint64_t sum = 0;
  while (p) {
    struct post *next = p->next;
    for (int i = 0; i < POST_BATCH; i++)
      sum += wl_free_sealed(p->item[i].p, p->item[i].size, "posted block");
    *count += POST_BATCH;
    wl_free_sealed(p, WL_MIN_SEALED, "post");
    p = next;
  }
  return sum;
}

static void *make_block(struct wl_rng *rng, size_t *size_out) {
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

static void worker(int t, void *arg) {
  (void)arg;
  size_t ops = wl_share(total_ops, t, nthreads);
  struct wl_rng rng = wl_rng_seed(0xa119e0 + (uint64_t)t);
  struct slot *set = calloc(WORKING_SET, sizeof *set);
  struct post *outgoing = NULL;
  int posted = 0;
  if (!set)
    wl_fail("no memory for a working set");
  uint64_t serial = 0, made = 0, freed = 0, nfreed = 0;
  for (size_t k = 0; k < ops; k++) {
    struct slot *s = &set[wl_below(&rng, WORKING_SET)];
    uint64_t id = wl_mix(((uint64_t)t << 40) ^ ++serial);
    if (s->p && wl_below(&rng, 8) == 0) {
      /* realloc: the old block's content survives up to the smaller size */
      freed += wl_open(s->p, s->size, "before realloc");
      nfreed++;
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
          if (!outgoing) {
            outgoing = wl_malloc(sizeof *outgoing, "post");
            wl_seal(outgoing, WL_MIN_SEALED, serial);
            posted = 0;
          }
          wl_open(s->p, s->size, "before posting");
          outgoing->item[posted++] = *s;
          if (posted == POST_BATCH) {
            struct inbox *to = &inbox[wl_below(&rng, (uint64_t)nthreads)];
            pthread_mutex_lock(&to->lock);
            outgoing->next = to->head;
            to->head = outgoing;
            pthread_mutex_unlock(&to->lock);
            outgoing = NULL;
          }
        } else {
          freed += wl_free_sealed(s->p, s->size, "aligned replace");
          nfreed++;
        }
      }
      s->p = make_block(&rng, &s->size);
    }
    wl_seal(s->p, s->size, id);
    made += id;
    if (k % 256 == 0)
      freed += empty_inbox(t, &nfreed);
  }
  if (outgoing) {
    for (int i = 0; i < posted; i++)
      freed += wl_free_sealed(outgoing->item[i].p, outgoing->item[i].size, "unposted");
    nfreed += (uint64_t)posted;
    wl_free_sealed(outgoing, WL_MIN_SEALED, "post");
  }
  for (int i = 0; i < WORKING_SET; i++)
    if (set[i].p) {
      freed += wl_free_sealed(set[i].p, set[i].size, "aligned end");
      nfreed++;
    }
  free(set);
  atomic_fetch_add(&finished, 1);
  while (atomic_load(&finished) < nthreads) {
    freed += empty_inbox(t, &nfreed);
    sched_yield();
  }
  freed += empty_inbox(t, &nfreed);
  atomic_fetch_add(&made_sum, made);
  atomic_fetch_add(&freed_sum, freed);
  atomic_fetch_add(&made_count, serial);
  atomic_fetch_add(&freed_count, nfreed);
}

int main(int argc, char **argv) {
  struct wl_args a = wl_parse(argc, argv, "aligned and random-size requests, freed across threads");
  nthreads = a.threads;
  total_ops = wl_scaled(2000000, a.scale, (size_t)nthreads);
  inbox = calloc((size_t)nthreads, sizeof *inbox);
  if (!inbox)
    wl_fail("no memory for inboxes");
  for (int t = 0; t < nthreads; t++)
    pthread_mutex_init(&inbox[t].lock, NULL);
  wl_run_threads(nthreads, worker, NULL);
  free(inbox);
  if (atomic_load(&made_count) != atomic_load(&freed_count))
    wl_fail("%llu blocks made, %llu retired", (unsigned long long)atomic_load(&made_count),
            (unsigned long long)atomic_load(&freed_count));
  if (atomic_load(&made_sum) != atomic_load(&freed_sum))
    wl_fail("the blocks freed are not the blocks allocated");
  printf("ok checksum=%016llx threads=%d blocks=%llu\n", (unsigned long long)wl_mix(atomic_load(&made_sum)),
         nthreads, (unsigned long long)atomic_load(&made_count));
  return 0;
}

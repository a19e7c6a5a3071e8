/* bench_server: a server simulation in the style of larson (paper: larson).
 *
 * T slot tables of 2000 blocks (16–1024 bytes) each. A worker thread owns
 * one table for a round: it replaces random slots (frees the old block,
 * allocates one of a new random size) 20000 times, then starts its own
 * successor thread on the same table and exits. The successor frees blocks
 * its predecessor allocated, so most frees are remote frees from a thread
 * that did not allocate the block, into the heap of a thread that is gone.
 * T chains of such threads run at once; the 600·SCALE rounds are shared
 * among them, so the work does not grow with -t.
 *
 * Each table carries its own random stream from thread to thread, so the
 * sequence of sizes and the checksum depend only on -t and -s. Every block
 * is sealed and opened before it is freed.
 */
#include "workload.h"

#define SLOTS 2000
#define REPLACE 20000
#define MIN_SIZE 16
#define MAX_SIZE 1024

struct slot {
  void *p;
  size_t size;
};

struct table {
  int index;
  size_t rounds_left;
  struct wl_rng rng;
  uint64_t serial, hash;
  struct slot slot[SLOTS];
};

static pthread_mutex_t done_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done_cond = PTHREAD_COND_INITIALIZER;
static int chains_running;

static void *round_main(void *arg);

static void start_round(struct table *t) {
  pthread_t tid;
  int e = pthread_create(&tid, NULL, round_main, t);
  if (e)
    wl_fail("pthread_create: %s", strerror(e));
  pthread_detach(tid);
}

static void *round_main(void *arg) {
  struct table *t = arg;
  for (int k = 0; k < REPLACE; k++) {
    struct slot *s = &t->slot[wl_below(&t->rng, SLOTS)];
    if (s->p)
      t->hash += wl_free_sealed(s->p, s->size, "server replace");
    s->size = wl_range(&t->rng, MIN_SIZE, MAX_SIZE);
    s->p = wl_malloc(s->size, "server");
    wl_seal(s->p, s->size, wl_mix(((uint64_t)t->index << 48) ^ ++t->serial));
  }
  if (--t->rounds_left > 0) {
    start_round(t);
    return NULL;
  }
  pthread_mutex_lock(&done_lock);
  chains_running--;
  pthread_cond_signal(&done_cond);
  pthread_mutex_unlock(&done_lock);
  return NULL;
}

int main(int argc, char **argv) {
  struct wl_args a = wl_parse(argc, argv, "larson-style server: successor threads free their predecessors' blocks");
  int n = a.threads;
  size_t rounds = wl_scaled(600, a.scale, (size_t)n);
  struct table *tables = calloc((size_t)n, sizeof *tables);
  if (!tables)
    wl_fail("no memory for %d tables", n);
  chains_running = n;
  for (int i = 0; i < n; i++) {
    tables[i].index = i;
    tables[i].rounds_left = wl_share(rounds, i, n);
    tables[i].rng = wl_rng_seed(0x1a450 + (uint64_t)i);
    start_round(&tables[i]);
  }
  pthread_mutex_lock(&done_lock);
  while (chains_running > 0)
    pthread_cond_wait(&done_cond, &done_lock);
  pthread_mutex_unlock(&done_lock);
  uint64_t checksum = 0, blocks = 0;
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < SLOTS; j++)
      if (tables[i].slot[j].p)
        tables[i].hash += wl_free_sealed(tables[i].slot[j].p, tables[i].slot[j].size, "server end");
    uint64_t expect = 0;
    for (uint64_t k = 1; k <= tables[i].serial; k++)
      expect += wl_mix(((uint64_t)i << 48) ^ k);
    if (expect != tables[i].hash)
      wl_fail("table %d: the blocks freed are not the blocks allocated", i);
    checksum = wl_mix(checksum ^ tables[i].hash);
    blocks += tables[i].serial;
  }
  free(tables);
  printf("ok checksum=%016llx threads=%d rounds=%zu blocks=%llu\n", (unsigned long long)checksum, n,
         rounds, (unsigned long long)blocks);
  return 0;
}

/* bench/workloads/workload.h: what every benchmark workload shares.
 *
 * The interface the harness (tools/bench.py) relies on, kept by every
 * bench_<name> program:
 *   -t THREADS  worker threads (default: online CPUs)
 *   -s SCALE    work multiplier, a positive real (default 1: quick mode)
 * A workload never times itself; it checks its own results and ends with one
 * stdout line, `ok checksum=<hex> key=value...` (exit 0) or `FAIL <reason>`
 * (exit 1). The checksum depends only on -t and -s, never on the allocator
 * or the schedule, so equal arguments give equal lines under every malloc.
 *
 * Blocks are sealed: the first 16 bytes hold an id and a hash of (id, size),
 * the last 8 bytes of a block of 24 bytes or more hold the hash again, and
 * every block is opened (checked) before it is freed. A block the allocator
 * handed out twice, overlapped with another, or wrote into while it was live
 * fails the run instead of skewing the time.
 */
#ifndef MORTISE_BENCH_WORKLOAD_H
#define MORTISE_BENCH_WORKLOAD_H

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct wl_args {
    int threads;
    double scale;
};

static _Noreturn void wl_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static _Noreturn void wl_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("FAIL ", stdout);
    vprintf(fmt, ap);
    fputc('\n', stdout);
    va_end(ap);
    fflush(stdout);
    exit(1);
}

static inline void wl_usage(const char *name, const char *what)
{
    fprintf(stderr,
            "usage: %s [-t THREADS] [-s SCALE]\n  %s\n"
            "  -t THREADS  worker threads (default: online CPUs)\n"
            "  -s SCALE    work multiplier > 0 (default 1)\n",
            name, what);
}

/* Parses -t and -s; anything else is a usage error (exit 2). */
static inline struct wl_args wl_parse(int argc, char **argv, const char *what)
{
    struct wl_args a;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    a.threads = ncpu > 0 ? (int)ncpu : 1;
    a.scale = 1.0;
    int c;
    while ((c = getopt(argc, argv, "t:s:h")) != -1) {
        char *end = NULL;
        switch (c) {
        case 't': {
            long t = strtol(optarg, &end, 10);
            if (*end || t < 1 || t > 4096) {
                fprintf(stderr, "%s: -t wants 1..4096\n", argv[0]);
                exit(2);
            }
            a.threads = (int)t;
            break;
        }
        case 's':
            a.scale = strtod(optarg, &end);
            if (*end || !(a.scale > 0) || a.scale > 1e6) {
                fprintf(stderr, "%s: -s wants a positive number\n", argv[0]);
                exit(2);
            }
            break;
        case 'h': wl_usage(argv[0], what); exit(0);
        default: wl_usage(argv[0], what); exit(2);
        }
    }
    if (optind != argc) {
        wl_usage(argv[0], what);
        exit(2);
    }
    return a;
}

/* base × scale, at least `floor`. */
static inline size_t wl_scaled(size_t base, double scale, size_t floor)
{
    double v = (double)base * scale;
    return v < (double)floor ? floor : (size_t)v;
}

/* splitmix64: seeds and hashes. */
static inline uint64_t wl_mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* xorshift64*: one per thread or per object stream, seeded through wl_mix. */
struct wl_rng {
    uint64_t s;
};
static inline struct wl_rng wl_rng_seed(uint64_t seed)
{
    struct wl_rng r = {wl_mix(seed) | 1};
    return r;
}
static inline uint64_t wl_next(struct wl_rng *r)
{
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return r->s * 0x2545f4914f6cdd1dull;
}
/* Uniform in [0, n). */
static inline uint64_t wl_below(struct wl_rng *r, uint64_t n)
{
    return (uint64_t)(((unsigned __int128)wl_next(r) * n) >> 64);
}
/* Uniform in [lo, hi]. */
static inline uint64_t wl_range(struct wl_rng *r, uint64_t lo, uint64_t hi)
{
    return lo + wl_below(r, hi - lo + 1);
}

static inline uint64_t wl_seal_word(uint64_t id, size_t size)
{
    return wl_mix(id ^ ((uint64_t)size << 40) ^ 0x5ea1ed0b1ec7ull);
}

#define WL_MIN_SEALED 16

/* Writes the seal of a block of `size` ≥ 16 bytes. */
static inline void wl_seal(void *p, size_t size, uint64_t id)
{
    uint64_t w = wl_seal_word(id, size);
    memcpy(p, &id, 8);
    memcpy((char *)p + 8, &w, 8);
    if (size >= 24)
        memcpy((char *)p + size - 8, &w, 8);
}

/* Checks the seal of a block of `size` bytes; returns its id or fails. */
static inline uint64_t wl_open(const void *p, size_t size, const char *where)
{
    uint64_t id, w, tail;
    if (!p)
        wl_fail("%s: NULL block", where);
    memcpy(&id, p, 8);
    memcpy(&w, (const char *)p + 8, 8);
    if (w != wl_seal_word(id, size))
        wl_fail("%s: block %p of %zu bytes overwritten (head)", where, p, size);
    if (size >= 24) {
        memcpy(&tail, (const char *)p + size - 8, 8);
        if (tail != w)
            wl_fail("%s: block %p of %zu bytes overwritten (tail)", where, p, size);
    }
    return id;
}

/* Checks then frees; returns the id. */
static inline uint64_t wl_free_sealed(void *p, size_t size, const char *where)
{
    uint64_t id = wl_open(p, size, where);
    free(p);
    return id;
}

static inline void *wl_malloc(size_t size, const char *where)
{
    void *p = malloc(size);
    if (!p)
        wl_fail("%s: malloc(%zu) returned NULL (errno %d)", where, size, errno);
    return p;
}

/* Slots of a random-replacement working set (churn, larson, server).
 * A slot remembers its block's id, so blocks of 8 to 15 bytes, too small
 * for a seal, can still be checked: they hold just the seal word, which a
 * damaged block no longer matches. */
#define WL_MIN_TAGGED 8
struct wl_slot {
    void *p;
    size_t size;
    uint64_t id;
};

/* What a thread allocated and freed: counts and sums of block ids. The
 * threads' tallies are added into one ledger, which must balance at the
 * end: every block allocated was freed, and none twice. */
struct wl_tally {
    uint64_t made, made_sum, freed, freed_sum;
};

/* Gives an empty slot a new sealed block of `size` ≥ WL_MIN_TAGGED bytes. */
static inline void wl_slot_fill(struct wl_slot *s, size_t size, uint64_t id, struct wl_tally *tl,
                                const char *where)
{
    s->p = wl_malloc(size, where);
    s->size = size;
    s->id = id;
    if (size >= WL_MIN_SEALED) {
        wl_seal(s->p, size, id);
    } else {
        uint64_t w = wl_seal_word(id, size);
        memcpy(s->p, &w, 8);
    }
    tl->made++;
    tl->made_sum += id;
}

/* Checks the slot's block (intact, and the block the slot was given),
 * frees it and empties the slot. */
static inline void wl_slot_free(struct wl_slot *s, struct wl_tally *tl, const char *where)
{
    if (s->size >= WL_MIN_SEALED) {
        if (wl_open(s->p, s->size, where) != s->id)
            wl_fail("%s: block %p holds another block's id", where, s->p);
    } else {
        uint64_t w;
        memcpy(&w, s->p, 8);
        if (w != wl_seal_word(s->id, s->size))
            wl_fail("%s: block %p of %zu bytes overwritten", where, s->p, s->size);
    }
    free(s->p);
    s->p = NULL;
    tl->freed++;
    tl->freed_sum += s->id;
}

/* One step of a working set of n slots: a random slot's block (if any)
 * is checked and freed, and a block of a random size in [lo, hi] takes
 * its place. */
static inline void wl_slot_replace(struct wl_slot *set, size_t n, struct wl_rng *r, size_t lo, size_t hi,
                                   uint64_t id, struct wl_tally *tl, const char *where)
{
    struct wl_slot *s = &set[wl_below(r, n)];
    if (s->p)
        wl_slot_free(s, tl, where);
    wl_slot_fill(s, wl_range(r, lo, hi), id, tl, where);
}

/* Runs fn(i, arg) on n threads and joins them all. */
struct wl_thread_start {
    void (*fn)(int, void *);
    void *arg;
    int index;
};
static inline void *wl_thread_main(void *p)
{
    struct wl_thread_start *s = p;
    s->fn(s->index, s->arg);
    return NULL;
}
static inline void wl_run_threads(int n, void (*fn)(int, void *), void *arg)
{
    pthread_t *tid = calloc((size_t)n, sizeof *tid);
    struct wl_thread_start *st = calloc((size_t)n, sizeof *st);
    if (!tid || !st)
        wl_fail("no memory for %d threads", n);
    for (int i = 0; i < n; i++) {
        st[i].fn = fn;
        st[i].arg = arg;
        st[i].index = i;
        int e = pthread_create(&tid[i], NULL, wl_thread_main, &st[i]);
        if (e)
            wl_fail("pthread_create: %s", strerror(e));
    }
    for (int i = 0; i < n; i++)
        pthread_join(tid[i], NULL);
    free(tid);
    free(st);
}

/* Chains of short-lived threads, larson's hand-over: a thread runs one
 * step of its chain and, while step returns nonzero, starts a fresh thread
 * for the next step on the same arg, then exits. So each step's frees land
 * in the heap of a thread that has exited. */
struct wl_chains {
    pthread_mutex_t lock;
    pthread_cond_t done;
    int running;
};
struct wl_chain {
    struct wl_chains *all;
    int (*step)(void *arg);
    void *arg;
};

static inline void *wl_chain_main(void *p);
static inline void wl_chain_start(struct wl_chain *c)
{
    pthread_t tid;
    int e = pthread_create(&tid, NULL, wl_chain_main, c);
    if (e)
        wl_fail("pthread_create: %s", strerror(e));
    pthread_detach(tid);
}
static inline void *wl_chain_main(void *p)
{
    struct wl_chain *c = p;
    if (c->step(c->arg)) {
        wl_chain_start(c);
        return NULL;
    }
    pthread_mutex_lock(&c->all->lock);
    c->all->running--;
    pthread_cond_signal(&c->all->done);
    pthread_mutex_unlock(&c->all->lock);
    return NULL;
}

/* Runs n chains at once, the i-th on args[i], until every one has ended. */
static inline void wl_run_chains(int n, int (*step)(void *), void *args, size_t arg_size)
{
    struct wl_chains all = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, n};
    struct wl_chain *c = calloc((size_t)n, sizeof *c);
    if (!c)
        wl_fail("no memory for %d chains", n);
    for (int i = 0; i < n; i++) {
        c[i].all = &all;
        c[i].step = step;
        c[i].arg = (char *)args + (size_t)i * arg_size;
        wl_chain_start(&c[i]);
    }
    pthread_mutex_lock(&all.lock);
    while (all.running > 0)
        pthread_cond_wait(&all.done, &all.lock);
    pthread_mutex_unlock(&all.lock);
    free(c);
}

/* The share of `total` items thread `i` of `n` handles. */
static inline size_t wl_share(size_t total, int i, int n)
{
    return total / (size_t)n + ((size_t)i < total % (size_t)n ? 1 : 0);
}

struct wl_ledger {
    _Atomic uint64_t made, made_sum, freed, freed_sum;
};
static inline void wl_ledger_add(struct wl_ledger *l, const struct wl_tally *t)
{
    atomic_fetch_add(&l->made, t->made);
    atomic_fetch_add(&l->made_sum, t->made_sum);
    atomic_fetch_add(&l->freed, t->freed);
    atomic_fetch_add(&l->freed_sum, t->freed_sum);
}
/* Fails unless the ledger balances; returns the number of blocks. */
static inline uint64_t wl_ledger_check(struct wl_ledger *l, const char *what)
{
    uint64_t made = atomic_load(&l->made), freed = atomic_load(&l->freed);
    if (made != freed)
        wl_fail("%s: %llu blocks allocated, %llu freed", what, (unsigned long long)made,
                (unsigned long long)freed);
    if (atomic_load(&l->made_sum) != atomic_load(&l->freed_sum))
        wl_fail("%s: the blocks freed are not the blocks allocated", what);
    return made;
}

/* Mailboxes: how a thread hands blocks to another thread to free. A letter
 * (itself a heap block, freed by the receiver) carries up to
 * WL_LETTER_ITEMS sealed blocks; a mailbox is a locked stack of letters. */
#define WL_LETTER_ITEMS 100
struct wl_item {
    void *p;
    size_t size;
};
struct wl_letter {
    uint64_t id, seal;
    struct wl_letter *next;
    int count;
    struct wl_item item[WL_LETTER_ITEMS];
};
struct wl_mailbox {
    pthread_mutex_t lock;
    struct wl_letter *head;
    _Atomic int letters;
    char pad[64];
};

static inline struct wl_mailbox *wl_mailboxes_new(int n)
{
    struct wl_mailbox *box = calloc((size_t)n, sizeof *box);
    if (!box)
        wl_fail("no memory for %d mailboxes", n);
    for (int i = 0; i < n; i++)
        pthread_mutex_init(&box[i].lock, NULL);
    return box;
}

static inline struct wl_letter *wl_letter_new(uint64_t id)
{
    struct wl_letter *l = wl_malloc(sizeof *l, "letter");
    wl_seal(l, WL_MIN_SEALED, id);
    l->count = 0;
    return l;
}

static inline void wl_mail_post(struct wl_mailbox *to, struct wl_letter *l)
{
    pthread_mutex_lock(&to->lock);
    l->next = to->head;
    to->head = l;
    atomic_fetch_add(&to->letters, 1);
    pthread_mutex_unlock(&to->lock);
}

/* Frees every block in the mailbox's letters, then the letters. */
static inline void wl_mail_empty(struct wl_mailbox *box, struct wl_tally *tl)
{
    pthread_mutex_lock(&box->lock);
    struct wl_letter *l = box->head;
    box->head = NULL;
    atomic_store(&box->letters, 0);
    pthread_mutex_unlock(&box->lock);
    while (l) {
        struct wl_letter *next = l->next;
        for (int i = 0; i < l->count; i++)
            tl->freed_sum += wl_free_sealed(l->item[i].p, l->item[i].size, "mailed block");
        tl->freed += (uint64_t)l->count;
        wl_free_sealed(l, WL_MIN_SEALED, "letter");
        l = next;
    }
}

/* A thread done sending: keeps emptying its mailbox until every one of
 * the n threads is done, then empties it once more. */
static inline void wl_mail_finish(struct wl_mailbox *mine, _Atomic int *finished, int n, struct wl_tally *tl)
{
    atomic_fetch_add(finished, 1);
    while (atomic_load(finished) < n) {
        wl_mail_empty(mine, tl);
        sched_yield();
    }
    wl_mail_empty(mine, tl);
}

#endif

/* tests/suites/sanitize/stress.c — a san_ allocator (one composition: san_alloc.c
 * or an instance under the san_ prefix) under heavy use, built twice per
 * composition by tests/suites/sanitize/CMakeLists.txt:
 *   sanitize.NAME.asan_ubsan  (-fsanitize=address,undefined): every phase —
 *       edge cases and errno, every alignment, realloc chains through every
 *       layer, random operations on a large and a small table, then threads
 *       with cross-thread frees and forks while they run;
 *   sanitize.NAME.tsan        (-fsanitize=thread): the threaded phase only,
 *       8 threads for a bounded time.
 * Every operation is checked by the engine in ops.h; any sanitizer report
 * stops the run (halt_on_error / -fno-sanitize-recover) with a non-zero exit.
 *
 * usage: stress [--threads N] [--seconds S] [--ops N] [--only-threads] [--no-fork]
 *               [--foreign-fatal]
 * --foreign-fatal: the composition ends the process on a pointer it does not
 * own (delayed_free with err_handle=fatal), so the edge cases do not ask
 * malloc_usable_size about one; the conformance `bad` case and the bad-input
 * corpus check that report instead.
 */
#include "ops.h"
#include "../../common/check.h"
#include <pthread.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- random operations ---- */

static inline uint64_t rng_next(uint64_t *s) /* splitmix64 */
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Mostly small, some medium, a few up to 6 MiB (past the OS layer's cache). */
static size_t rng_size(uint64_t *s)
{
    uint64_t r = rng_next(s), pick = r % 1000;
    r >>= 10;
    if (pick < 700)
        return r % 257;
    if (pick < 920)
        return r % 4097;
    if (pick < 990)
        return r % 65537;
    if (pick < 999)
        return r % (1u << 20);
    return r % (6u << 20);
}

static unsigned rng_align_log2(uint64_t *s)
{
    uint64_t r = rng_next(s);
    return (r & 7) ? (unsigned)(r >> 3) % 13 : 13 + (unsigned)(r >> 3) % 10; /* up to 4 MiB */
}

static void random_op(op_table *t, uint64_t *s)
{
    uint64_t r = rng_next(s);
    unsigned kind = (unsigned)(r % 1000);
    /* weights: allocate/free dominate, realloc often, trim rarely */
    if (kind < 250)
        kind = OP_MALLOC;
    else if (kind < 300)
        kind = OP_CALLOC;
    else if (kind < 420)
        kind = OP_REALLOC;
    else if (kind < 440)
        kind = OP_REALLOCARRAY;
    else if (kind < 480)
        kind = OP_ALIGNED_ALLOC + (unsigned)(r >> 12) % 5; /* aligned, memalign, posix, valloc, pvalloc */
    else if (kind < 830)
        kind = OP_FREE;
    else if (kind < 900)
        kind = OP_FREE_SIZED;
    else if (kind < 999)
        kind = OP_USABLE;
    else
        kind = OP_TRIM;
    op_apply(t, kind, (size_t)(r >> 20), rng_size(s), rng_align_log2(s));
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- single-threaded phases ---- */

static void edge_cases(int foreign_fatal)
{
    void *p, *q;
    int saved;
    errno = 0;
    CHECK(san_malloc(SIZE_MAX) == NULL && errno == ENOMEM);
    errno = 0;
    CHECK(san_calloc(SIZE_MAX / 2, 3) == NULL && errno == ENOMEM);
    errno = 0;
    CHECK(san_reallocarray(NULL, SIZE_MAX / 2, 3) == NULL && errno == ENOMEM);
    errno = 0;
    CHECK(san_aligned_alloc(24, 16) == NULL && errno == EINVAL);
    p = (void *)1;
    CHECK(san_posix_memalign(&p, 24, 16) == EINVAL && p == (void *)1);
    CHECK(san_posix_memalign(&p, 4, 16) == EINVAL && p == (void *)1); /* < sizeof(void *) */
    CHECK(san_posix_memalign(&p, 64, SIZE_MAX) == ENOMEM && p == (void *)1);
    p = san_malloc(100);
    CHECK(p != NULL);
    memset(p, 7, 100);
    errno = 0;
    CHECK(san_realloc(p, SIZE_MAX) == NULL && errno == ENOMEM); /* p untouched */
    CHECK(((unsigned char *)p)[99] == 7 && san_malloc_usable_size(p) >= 100);
    saved = errno = 4321;
    san_free(p);
    san_free(NULL);
    CHECK(errno == saved); /* free never changes errno */
    CHECK(san_malloc_usable_size(NULL) == 0);
    if (!foreign_fatal)
        CHECK(san_malloc_usable_size(&saved) == 0); /* not ours: not dereferenced */
    p = san_calloc(0, 0);
    q = san_malloc(0);
    CHECK(p && q && p != q); /* distinct unique pointers */
    san_free(p);
    san_cfree(q);
    FILE *devnull = fopen("/dev/null", "w");
    CHECK(devnull && san_malloc_info(0, devnull) == 0);
    if (devnull)
        fclose(devnull);
    CHECK(san_mallopt(1, 1) == 0);
}

/* Every power-of-two alignment from 1 to 4 MiB with sizes around it, through
 * every aligned entry point. */
static void all_alignments(op_table *t)
{
    for (unsigned lg = 0; lg <= 22; lg++) {
        size_t a = (size_t)1 << lg;
        size_t sizes[] = {0, 1, 15, 16, 17, a - 1 ? a - 1 : 1, a, a + 1, a + a / 2, 100000};
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
            for (unsigned k = OP_ALIGNED_ALLOC; k <= OP_POSIX_MEMALIGN; k++)
                op_apply(t, k, i, sizes[i], lg);
    }
    for (size_t size = 0; size < 70000; size += 997) {
        op_apply(t, OP_VALLOC, 0, size, 0);
        op_apply(t, OP_PVALLOC, 1, size, 0);
    }
    op_table_clear(t);
}

/* realloc up and down through every size class, layer and the mremap path. */
static void realloc_chains(op_table *t)
{
    for (size_t size = 0; size < 300000; size += size < 4096 ? 7 : size / 16)
        op_apply(t, OP_REALLOC, 0, size, 0);
    for (size_t size = 300000; size > 0; size /= 2)
        op_apply(t, OP_REALLOC, 0, size, 0);
    static const size_t big[] = {5u << 20, 9u << 20, 17u << 20, 33u << 20, 12u << 20,
                                 4u << 20, 70000,    6u << 20,  100,       0};
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) {
        op_apply(t, OP_REALLOC, 1, big[i], 0);
        op_apply(t, OP_USABLE, 1, 0, 0);
    }
    op_table_clear(t);
}

/* ---- threads with cross-thread frees ---- */

#define MAILBOXES 64
static struct {
    pthread_mutex_t lock;
    op_block block;
} mailbox[MAILBOXES];

static atomic_int stop_flag;

/* Move slot contents between tables (cross-thread hand-off): swaps them. */
static void op_swap(op_block *a, op_block *b)
{
    op_block tmp = *a;
    *a = *b;
    *b = tmp;
}

typedef struct {
    pthread_t id;
    unsigned index;
    unsigned long max_ops;
    double deadline;
    unsigned long ops, handoffs;
} worker;

static void *worker_main(void *arg)
{
    worker *w = arg;
    op_block slots[512];
    op_table t;
    uint64_t seed = 0x1234567ull * (w->index + 1);
    op_table_init(&t, slots, 512, (w->index + 1) << 24);
    while (w->ops < w->max_ops && !atomic_load(&stop_flag)) {
        uint64_t r = rng_next(&seed);
        if (r % 16 == 0) { /* hand a block to whoever opens this mailbox next */
            unsigned m = (unsigned)(r >> 8) % MAILBOXES;
            pthread_mutex_lock(&mailbox[m].lock);
            op_swap(&mailbox[m].block, &slots[(r >> 20) % 512]);
            pthread_mutex_unlock(&mailbox[m].lock);
            w->handoffs++;
        } else {
            random_op(&t, &seed);
        }
        if (++w->ops % 256 == 0 && now() > w->deadline)
            break;
    }
    op_table_clear(&t);
    return NULL;
}

static pid_t fork_child_allocates(void)
{
    pid_t pid = fork();
    if (pid == 0) { /* only this thread survives: the allocator must still work */
        op_block slots[32];
        op_table t;
        uint64_t seed = 99;
        op_table_init(&t, slots, 32, 0xF0000000u);
        for (int i = 0; i < 2000; i++)
            random_op(&t, &seed);
        op_table_clear(&t);
        _exit(0);
    }
    return pid;
}

static void threads_phase(unsigned nthreads, unsigned long ops, double seconds, int forks)
{
    worker *w = calloc(nthreads, sizeof *w);
    double start = now();
    for (unsigned m = 0; m < MAILBOXES; m++)
        pthread_mutex_init(&mailbox[m].lock, NULL);
    for (unsigned i = 0; i < nthreads; i++) {
        w[i].index = i;
        w[i].max_ops = ops;
        w[i].deadline = start + seconds;
        CHECK(pthread_create(&w[i].id, NULL, worker_main, &w[i]) == 0);
    }
    for (int f = 0; f < forks; f++) {
        usleep(20000);
        pid_t pid = fork_child_allocates();
        int status = -1;
        CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    unsigned long total = 0, handoffs = 0;
    for (unsigned i = 0; i < nthreads; i++) {
        pthread_join(w[i].id, NULL);
        total += w[i].ops;
        handoffs += w[i].handoffs;
    }
    /* blocks still in mailboxes were allocated by other threads: free them here */
    op_table rest;
    op_block slots[MAILBOXES];
    op_table_init(&rest, slots, MAILBOXES, 0);
    for (unsigned m = 0; m < MAILBOXES; m++)
        op_swap(&slots[m], &mailbox[m].block);
    op_table_clear(&rest);
    printf("threads: %u threads, %lu ops, %lu hand-offs, %.1f s\n", nthreads, total, handoffs, now() - start);
    CHECK(total > 0 && handoffs > 0);
    free(w);
}

int main(int argc, char **argv)
{
    unsigned nthreads = 4;
    unsigned long ops = 150000;
    double seconds = 60;
    int only_threads = 0, forks = 3, foreign_fatal = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            nthreads = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
            seconds = atof(argv[++i]);
        else if (!strcmp(argv[i], "--ops") && i + 1 < argc)
            ops = strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--only-threads"))
            only_threads = 1;
        else if (!strcmp(argv[i], "--no-fork"))
            forks = 0;
        else if (!strcmp(argv[i], "--foreign-fatal"))
            foreign_fatal = 1;
        else {
            fprintf(stderr,
                    "usage: %s [--threads N] [--seconds S] [--ops N] [--only-threads] [--no-fork]"
                    " [--foreign-fatal]\n",
                    argv[0]);
            return 2;
        }
    }
    if (!only_threads) {
        static op_block big_slots[4096], small_slots[64];
        op_table t;
        uint64_t seed = 42;
        double t0 = now();
        edge_cases(foreign_fatal);
        op_table_init(&t, small_slots, 8, 1);
        all_alignments(&t);
        realloc_chains(&t);
        printf("edge cases, alignments, realloc chains: %.1f s\n", now() - t0);
        t0 = now();
        op_table_init(&t, big_slots, 4096, 1u << 20);
        for (unsigned long i = 0; i < ops; i++)
            random_op(&t, &seed);
        op_table_clear(&t);
        op_table_init(&t, small_slots, 64, 2u << 20); /* overlap-checked */
        for (unsigned long i = 0; i < ops; i++)
            random_op(&t, &seed);
        op_table_clear(&t);
        printf("random: 2 x %lu ops: %.1f s\n", ops, now() - t0);
        CHECK(san_malloc_trim(0) >= 0);
    }
    threads_phase(nthreads, ops, seconds, forks);
    return check_report("sanitize.stress");
}

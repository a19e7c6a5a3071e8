/* tests/suites/conformance/conf_threads.c — the multithreaded cases:
 *   threads  10 threads exchange blocks through shared slots (cross-thread
 *            frees and reallocs), every block's pattern verified, until they
 *            have made 500 000 operations together or 5 s have passed;
 *            MORTISE_CONFORMANCE_STRESS_OPS=N and
 *            MORTISE_CONFORMANCE_STRESS_SECONDS=S change the two bounds;
 *   churn    2000 short threads allocate (small and large blocks), hand one
 *            block to the next thread and exit: RSS stays bounded;
 *   fork     4 threads allocate and exchange while the main thread forks 1000
 *            times; each child reallocates and frees parent-era blocks, then
 *            allocates its own, and must _exit(0); a child that makes no step
 *            for 2 s while it sleeps or burns CPU (a deadlock, a spinning
 *            lock), or for 30 s in any state, is killed and counted as hung,
 *            apart from the children that failed (a child merely waiting for
 *            a CPU on a loaded machine is not hung); MORTISE_CONFORMANCE_FORKS=N
 *            forks N times (tools/soak.py);
 *   trim     4 threads allocate 256 MiB in 64..256-byte blocks, free it all
 *            (half by another thread), malloc_trim(0): RSS returns to within
 *            16 MiB of the start within 1 s.
 * A "stamped" block carries its id and size in its first 16 bytes and the
 * pattern of its id after them, so any thread (or a fork child) can check a
 * block it did not allocate. */
#include "conformance.h"

#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- stamped blocks ---- */
typedef struct {
    uint64_t id;
    size_t size;
} stamp;
#define STAMP_MIN sizeof(stamp)

/* A new stamped block of 16 + [0, max] bytes from malloc, calloc or an
 * aligned entry point; NULL if the allocator failed. */
static char *stamp_new(conf_rng *r, uint64_t id, size_t max)
{
    size_t size = STAMP_MIN + conf_size(r, max);
    size_t roll = conf_range(r, 0, 9);
    char *p;
    if (roll < 6)
        p = malloc(size);
    else if (roll < 8)
        p = calloc(1, size);
    else
        p = aligned_alloc((size_t)64 << conf_range(r, 0, 6), size);
    if (!p)
        return NULL;
    stamp s = {id, size};
    memcpy(p, &s, sizeof s);
    conf_fill(p, STAMP_MIN, size, id);
    return p;
}

/* 1 if p is an intact stamped block. */
static int stamp_ok(const char *p)
{
    stamp s;
    memcpy(&s, p, sizeof s);
    if (s.size < STAMP_MIN || s.size > malloc_usable_size((void *)p))
        return 0;
    return conf_verify(p, STAMP_MIN, s.size, s.id) == SIZE_MAX;
}

/* Verify, realloc to a new size, verify the kept bytes and restamp. Returns
 * the block (NULL only if realloc failed, p then still valid). */
static char *stamp_realloc(conf_rng *r, char *p, size_t max, int *bad)
{
    stamp s;
    memcpy(&s, p, sizeof s);
    size_t size = STAMP_MIN + conf_size(r, max), keep = size < s.size ? size : s.size;
    char *q = realloc(p, size);
    if (!q)
        return NULL;
    stamp t;
    memcpy(&t, q, sizeof t);
    if (t.id != s.id || conf_verify(q, STAMP_MIN, keep, s.id) != SIZE_MAX)
        *bad = 1;
    s.size = size;
    memcpy(q, &s, sizeof s);
    conf_fill(q, keep, size, s.id);
    return q;
}

static void conf_sleep_ms(double ms)
{
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms * 1e6) % 1000000000L};
    nanosleep(&ts, NULL);
}

/* ---- block exchange through shared slots (threads and fork) ---- */
enum { XSLOTS = 512, XSTASH = 32 };
static _Atomic(char *) xslot[XSLOTS];
static atomic_bool xstop;
/* operations left to the storm (claimed 256 at a time); unbounded when the
 * storm only ends by its deadline or xstop */
static _Atomic int64_t xops_left;
#define XOPS_UNBOUNDED INT64_MAX
static atomic_int xbad_reported;

typedef struct {
    int index;
    double until; /* stop at this time, or when xstop is set */
    size_t max_size;
    pthread_mutex_t *publish; /* held while filling and publishing (fork) */
    unsigned pause_every;     /* nap after this many operations (0: never) */
    uint64_t ops, failures;
} xworker;

static void xreport(const xworker *w, const char *what, const void *p)
{
    if (atomic_fetch_add(&xbad_reported, 1) < 10)
        fprintf(stderr, "thread %d: %s (block %p)\n", w->index, what, p);
}

static void *xworker_run(void *arg)
{
    xworker *w = arg;
    conf_rng r = {0xC0FFEEull * (uint64_t)(w->index + 1)};
    char *stash[XSTASH] = {0};
    uint64_t serial = 0;
    while (!atomic_load_explicit(&xstop, memory_order_relaxed)) {
        if ((w->ops & 255) == 0 &&
            (conf_now() > w->until || atomic_fetch_sub_explicit(&xops_left, 256, memory_order_relaxed) <= 0))
            break;
        w->ops++;
        if (w->pause_every && w->ops % w->pause_every == 0)
            conf_sleep_ms(0.02); /* leave the forked children some CPU */
        uint64_t id = ((uint64_t)(w->index + 1) << 40) | ++serial;
        size_t roll = conf_range(&r, 0, 9);
        if (roll < 6) { /* publish a new block, take and check whatever was there */
            char *mine = NULL, *got;
            if (w->publish) {
                /* allocate outside the publish lock: fork may find us in malloc */
                char *fresh = malloc(STAMP_MIN + conf_size(&r, w->max_size));
                pthread_mutex_lock(w->publish);
                free(fresh); /* freed under the lock too: any mix must work */
                mine = stamp_new(&r, id, w->max_size);
                got = mine ? atomic_exchange(&xslot[conf_range(&r, 0, XSLOTS - 1)], mine) : NULL;
                pthread_mutex_unlock(w->publish);
            } else {
                mine = stamp_new(&r, id, w->max_size);
                got = mine ? atomic_exchange(&xslot[conf_range(&r, 0, XSLOTS - 1)], mine) : NULL;
            }
            if (!mine) {
                w->failures++, xreport(w, "allocation failed", NULL);
                continue;
            }
            if (got && !stamp_ok(got))
                w->failures++, xreport(w, "block from another thread corrupted", got);
            if (got && conf_range(&r, 0, 3) == 0) { /* realloc another thread's block */
                int bad = 0;
                char *q = stamp_realloc(&r, got, w->max_size, &bad);
                if (!q || bad)
                    w->failures++, xreport(w, "cross-thread realloc", got);
                got = q ? q : got;
            }
            free(got);
        } else { /* thread-local churn through a small stash */
            size_t k = conf_range(&r, 0, XSTASH - 1);
            if (stash[k]) {
                if (!stamp_ok(stash[k]))
                    w->failures++, xreport(w, "own block corrupted", stash[k]);
                free(stash[k]);
            }
            stash[k] = stamp_new(&r, id, w->max_size);
        }
    }
    for (size_t k = 0; k < XSTASH; k++) {
        if (stash[k] && !stamp_ok(stash[k]))
            w->failures++, xreport(w, "own block corrupted", stash[k]);
        free(stash[k]);
    }
    return NULL;
}

/* Check and free whatever the slots hold; returns the number of bad blocks. */
static size_t xslots_drain(void)
{
    size_t bad = 0;
    for (size_t i = 0; i < XSLOTS; i++) {
        char *p = atomic_exchange(&xslot[i], NULL);
        if (p && !stamp_ok(p))
            bad++;
        free(p);
    }
    return bad;
}

static int xworkers_start(pthread_t *t, xworker *w, int n, double seconds, int64_t ops, size_t max_size,
                          pthread_mutex_t *publish)
{
    atomic_store(&xstop, false);
    atomic_store(&xops_left, ops);
    for (int i = 0; i < n; i++) {
        w[i] = (xworker){.index = i,
                         .until = conf_now() + seconds,
                         .max_size = max_size,
                         .publish = publish ? &publish[i] : NULL,
                         .pause_every = publish ? 32 : 0};
        if (pthread_create(&t[i], NULL, xworker_run, &w[i]) != 0)
            return i;
    }
    return n;
}

/* Join the workers (telling them to stop now if `stop`, else at their
 * deadline); returns their failed operations and adds up their operations. */
static uint64_t xworkers_join(pthread_t *t, xworker *w, int n, bool stop, uint64_t *ops)
{
    uint64_t failures = 0;
    if (stop)
        atomic_store(&xstop, true);
    for (int i = 0; i < n; i++) {
        pthread_join(t[i], NULL);
        failures += w[i].failures;
        *ops += w[i].ops;
    }
    return failures;
}

/* ---- threads ---- */
/* The storm is bounded by its work: a fixed length would keep every core
 * busy for all of it on an idle machine, and the cases it covers (exchange,
 * cross-thread free and realloc, thread-local churn) recur in every few
 * thousand operations. The deadline bounds it on a busy or emulated
 * machine, where fewer operations fit. */
enum { STRESS_THREADS = 10, STRESS_OPS = 500000 };

void conf_case_threads(void)
{
    pthread_t t[STRESS_THREADS];
    xworker w[STRESS_THREADS];
    uint64_t ops = 0;
    const char *want = getenv("MORTISE_CONFORMANCE_STRESS_SECONDS");
    double seconds = want ? atof(want) : 0.0;
    int64_t quota = conf_env_count("MORTISE_CONFORMANCE_STRESS_OPS", STRESS_OPS);
    int started = xworkers_start(t, w, STRESS_THREADS, conf_seconds(seconds > 0 ? seconds : 5.0),
                                 quota > 0 ? quota : XOPS_UNBOUNDED, CONF_MIB, NULL);
    CHECK(started == STRESS_THREADS);
    uint64_t failures = xworkers_join(t, w, started, false, &ops);
    size_t bad = xslots_drain();
    CHECKF(failures == 0 && bad == 0, "%llu failed operations, %zu corrupted blocks left",
           (unsigned long long)failures, bad);
    /* Every thread must have got through operations of its own (a thread
     * stuck on a lock for the whole storm makes none). Not a count over all
     * of them: how many fit in the storm depends on the machine's load and
     * the build (a debug build checks the heap after its slow paths). */
    int idle = 0;
    for (int i = 0; i < started; i++)
        idle += w[i].ops == 0;
    CHECKF(idle == 0 && ops > 0, "%d of %d threads made no operation", idle, started);
    printf("threads: %d threads, %llu operations (%s)\n", started, (unsigned long long)ops,
           atomic_load(&xops_left) <= 0 ? "all done" : "ended by the deadline");
}

/* ---- churn ---- */
enum { CHURN_THREADS = 2000, CHURN_WAVE = 8, CHURN_SMALL = 64, CHURN_WARMUP = 250 };
/* whole waves, at least one */
#define churn_threads                                             \
    ((size_t)(conf_count(CHURN_THREADS) < CHURN_WAVE ? CHURN_WAVE \
                                                     : conf_count(CHURN_THREADS) / CHURN_WAVE * CHURN_WAVE))
#define churn_warmup ((size_t)conf_count(CHURN_WARMUP))
static _Atomic(char *) churn_handoff;
static atomic_int churn_failures;

static void *churn_run(void *arg)
{
    uintptr_t index = (uintptr_t)arg;
    conf_rng r = {0xC4u + index};
    char *small[CHURN_SMALL];
    int bad = 0;
    for (int i = 0; i < CHURN_SMALL; i++)
        small[i] = stamp_new(&r, index << 8 | (uint64_t)i, 2048);
    /* a few large blocks, touched at both ends and in the middle */
    size_t large[2] = {CONF_MIB + 4096 * (index % 7), 5 * CONF_MIB};
    for (int i = 0; i < 2; i++) {
        char *p = malloc(large[i]);
        if (!p) {
            bad++;
            continue;
        }
        p[0] = p[large[i] / 2] = p[large[i] - 1] = 1;
        free(p);
    }
    for (int i = 1; i < CHURN_SMALL; i++) {
        bad += !small[i] || !stamp_ok(small[i]);
        free(small[i]);
    }
    /* one block outlives its thread: the next thread frees it */
    char *prev = small[0] ? atomic_exchange(&churn_handoff, small[0]) : NULL;
    if (prev) {
        bad += !stamp_ok(prev);
        free(prev);
    }
    if (bad)
        atomic_fetch_add(&churn_failures, bad);
    return NULL;
}

void conf_case_churn(void)
{
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 256 * CONF_KIB);
    size_t base = 0, peak = 0, created = 0;
    for (size_t wave = 0; wave < churn_threads / CHURN_WAVE; wave++) {
        pthread_t t[CHURN_WAVE];
        int n = 0;
        for (; n < CHURN_WAVE; n++)
            if (pthread_create(&t[n], &attr, churn_run, (void *)(uintptr_t)(created + (size_t)n)) != 0)
                break;
        for (int i = 0; i < n; i++)
            pthread_join(t[i], NULL);
        created += (size_t)n;
        size_t rss = conf_rss();
        if (created <= churn_warmup)
            base = rss;
        else if (rss > peak)
            peak = rss;
    }
    pthread_attr_destroy(&attr);
    char *last = atomic_exchange(&churn_handoff, NULL);
    CHECK(!last || stamp_ok(last));
    free(last);
    CHECK(created == churn_threads);
    CHECKF(atomic_load(&churn_failures) == 0, "%d bad blocks", atomic_load(&churn_failures));
    /* qemu-user's /proc/self/statm is the emulator's own: it grows by about
     * 280 KiB per thread ever created, whatever the allocator (docs/portability.md) */
    if (conf_emulated())
        printf("churn: RSS bound not checked under emulation\n");
    else
        CHECKF(peak <= base + 16 * CONF_MIB, "RSS grew from %zu KiB after %zu threads to %zu KiB", base >> 10,
               churn_warmup, peak >> 10);
    printf("churn: %zu threads, RSS %zu KiB after %zu, peak %zu KiB after\n", created, base >> 10,
           churn_warmup, peak >> 10);
}

/* ---- fork ---- */
enum { FORKS = 1000, FORK_WORKERS = 4, FORK_INFLIGHT = 8, FORK_PARENT_BLOCKS = 64 };
#define FORK_CHILD_STALL conf_seconds(2.0)  /* seconds without a step: hung if not starved */
#define FORK_CHILD_LIMIT conf_seconds(30.0) /* seconds without a step: hung in any state */
#define FORK_CHILD_SPIN 0.25                /* CPU seconds burnt without a step: spinning */
#define FORK_DEADLINE 90.0                  /* seconds for FORKS forks */

static pthread_mutex_t fork_publish[FORK_WORKERS];
static atomic_bool fork_case_active;

/* The test's own handlers run before Mortise's (registered later, so called
 * first): no worker is half-way through publishing a block when the child's
 * memory is copied, while workers may be anywhere inside the allocator. */
static void fork_prepare(void)
{
    if (atomic_load(&fork_case_active))
        for (int i = 0; i < FORK_WORKERS; i++)
            pthread_mutex_lock(&fork_publish[i]);
}
static void fork_parent(void)
{
    if (atomic_load(&fork_case_active))
        for (int i = FORK_WORKERS - 1; i >= 0; i--)
            pthread_mutex_unlock(&fork_publish[i]);
}
static void fork_child(void)
{
    if (atomic_load(&fork_case_active))
        for (int i = 0; i < FORK_WORKERS; i++)
            pthread_mutex_init(&fork_publish[i], NULL);
}

/* The child's heartbeat, in memory shared with the parent: one step of its
 * work done. */
#define STEP(beat) atomic_fetch_add_explicit((beat), 1, memory_order_relaxed)

/* In the child: only this thread exists. Exit status 0 = all good. */
static int fork_child_work(char **parent_blocks, uint64_t seed, _Atomic(unsigned) *beat)
{
    conf_rng r = {seed};
    int bad = 0;
    for (int i = 0; i < FORK_PARENT_BLOCKS; i++) { /* parent-era blocks */
        char *p = parent_blocks[i];
        if (!p || !stamp_ok(p))
            return 2;
        if (i & 1) {
            char *q = stamp_realloc(&r, p, 64 * CONF_KIB, &bad);
            if (!q || bad)
                return 3;
            p = q;
        }
        free(p);
        STEP(beat);
    }
    for (size_t i = 0; i < XSLOTS; i += 3) { /* blocks of the parent's threads */
        char *p = atomic_load(&xslot[i]);
        if (p && !stamp_ok(p))
            return 4;
        if (p && (i & 1)) {
            char *q = stamp_realloc(&r, p, 4096, &bad);
            if (!q || bad)
                return 5;
            p = q;
        }
        free(p);
        STEP(beat);
    }
    char *own[32];
    for (int i = 0; i < 32; i++, STEP(beat))
        if (!(own[i] = stamp_new(&r, seed + (uint64_t)i, i == 0 ? CONF_MIB : 8192)))
            return 6;
    for (int i = 0; i < 32; i++, STEP(beat)) {
        char *q = stamp_realloc(&r, own[i], i == 1 ? CONF_MIB : 8192, &bad);
        if (!q || bad)
            return 7;
        if (!stamp_ok(q))
            return 8;
        free(q);
    }
    char *big = malloc(300000); /* and a large block, moved by realloc */
    if (!big)
        return 9;
    memset(big, 0x6B, 4096);
    char *bigger = realloc(big, 5 * CONF_MIB);
    if (!bigger || conf_first_nonzero(bigger, 1) != 0 || bigger[4095] != 0x6B)
        return 10;
    free(bigger);
    return 0;
}

typedef struct {
    pid_t pid;
    unsigned beat;  /* the child's steps when last seen */
    double stepped; /* when its step count last moved */
    double cpu;     /* its CPU seconds then */
} fork_child_slot;

/* A child's CPU seconds and whether it is waiting for a CPU ('R'), from
 * /proc; -1 when unknown. A child with one thread that sleeps can only be
 * woken by a thread that no longer exists: a deadlock. */
static double fork_child_cpu(pid_t pid, bool *runnable)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = 0;
    const char *e = strrchr(buf, ')'); /* the command name may hold spaces */
    unsigned long long ut, st;
    char state;
    if (!e || sscanf(e + 1, " %c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &state, &ut, &st) != 3)
        return -1;
    *runnable = state == 'R';
    return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

/* Hung: no step for FORK_CHILD_STALL while it sleeps or burns CPU, or for
 * FORK_CHILD_LIMIT whatever it does. */
static bool fork_child_hung(fork_child_slot *c, _Atomic(unsigned) *beat, double now)
{
    unsigned b = atomic_load_explicit(beat, memory_order_relaxed);
    bool runnable = false;
    double cpu = fork_child_cpu(c->pid, &runnable);
    if (b != c->beat) {
        c->beat = b, c->stepped = now, c->cpu = cpu;
        return false;
    }
    if (c->cpu < 0) /* the first look since the fork */
        c->cpu = cpu;
    double idle = now - c->stepped;
    if (idle > FORK_CHILD_LIMIT)
        return true;
    bool starved = runnable && cpu >= 0 && c->cpu >= 0 && cpu - c->cpu < FORK_CHILD_SPIN;
    return idle > FORK_CHILD_STALL && !starved;
}

void conf_case_fork(void)
{
    static atomic_bool registered;
    if (!atomic_exchange(&registered, true))
        pthread_atfork(fork_prepare, fork_parent, fork_child);
    for (int i = 0; i < FORK_WORKERS; i++)
        pthread_mutex_init(&fork_publish[i], NULL);
    atomic_store(&fork_case_active, true);

    conf_rng r = {0xF0Cull};
    char *parent_blocks[FORK_PARENT_BLOCKS];
    for (int i = 0; i < FORK_PARENT_BLOCKS; i++)
        parent_blocks[i] = stamp_new(&r, 0xFA000000ull + (uint64_t)i, i == 0 ? 2 * CONF_MIB : 4096);

    pthread_t t[FORK_WORKERS];
    xworker w[FORK_WORKERS];
    int started = xworkers_start(t, w, FORK_WORKERS, 1e9, XOPS_UNBOUNDED, 64 * CONF_KIB, fork_publish);
    CHECK(started == FORK_WORKERS);

    /* More forks than the default get proportionally more time, and so does
     * the watchdog conf_main armed for this case. */
    int fork_count = conf_count(conf_env_count("MORTISE_CONFORMANCE_FORKS", FORKS));
    double stretch = fork_count > FORKS ? (double)fork_count / FORKS : 1.0;
    if (stretch > 1.0)
        alarm((unsigned)(alarm(0) * stretch));
    /* Test-only faults, so that tests/tools/test_soak.py can prove that
     * tools/soak.py counts a hung child as a hang and a failed one as a
     * failure: the first MORTISE_CONFORMANCE_FORK_HANG children sleep until
     * they are killed, the next MORTISE_CONFORMANCE_FORK_FAIL exit with 99. */
    int inject_hang = conf_env_count("MORTISE_CONFORMANCE_FORK_HANG", 0);
    int inject_fail = conf_env_count("MORTISE_CONFORMANCE_FORK_FAIL", 0);

    fork_child_slot inflight[FORK_INFLIGHT] = {{0}};
    _Atomic(unsigned) *beats =
        mmap(NULL, FORK_INFLIGHT * sizeof *beats, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(beats != MAP_FAILED);
    int forks = 0, ok = 0, failed = 0, hung = 0, fork_errors = 0, busy = 0;
    double deadline = conf_now() + conf_seconds(FORK_DEADLINE) * stretch;
    while ((forks < fork_count || busy) && conf_now() < deadline) {
        int progress = 0;
        for (int k = 0; k < FORK_INFLIGHT; k++) {
            fork_child_slot *c = &inflight[k];
            if (c->pid) {
                int status;
                pid_t got = waitpid(c->pid, &status, WNOHANG);
                if (got == c->pid) {
                    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
                        ok++;
                    else if (failed++ < 10)
                        fprintf(stderr, "fork child %d: %s %d\n", (int)c->pid,
                                WIFEXITED(status) ? "exit status" : "killed by signal",
                                WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
                    c->pid = 0, busy--, progress = 1;
                } else if (fork_child_hung(c, &beats[k], conf_now())) {
                    kill(c->pid, SIGKILL);
                    waitpid(c->pid, &status, 0);
                    if (hung++ < 10)
                        fprintf(stderr, "fork child %d: no step for %.1f s after %u, killed\n", (int)c->pid,
                                conf_now() - c->stepped, c->beat);
                    c->pid = 0, busy--, progress = 1;
                }
            }
            if (!c->pid && forks < fork_count) {
                uint64_t seed = 0x5EED0000ull + (uint64_t)forks;
                atomic_store(&beats[k], 0);
                pid_t pid = fork();
                if (pid == 0) {
                    while (forks < inject_hang)
                        pause();
                    _exit(forks < inject_hang + inject_fail
                              ? 99
                              : fork_child_work(parent_blocks, seed, &beats[k]));
                }
                forks++;
                if (pid < 0) {
                    fork_errors++;
                    continue;
                }
                *c = (fork_child_slot){pid, 0, conf_now(), -1};
                busy++, progress = 1;
            }
        }
        if (!progress)
            conf_sleep_ms(0.2);
    }
    uint64_t ops = 0, failures = xworkers_join(t, w, started, true, &ops);
    atomic_store(&fork_case_active, false);
    for (int k = 0; k < FORK_INFLIGHT; k++) /* only after the overall deadline */
        if (inflight[k].pid) {
            kill(inflight[k].pid, SIGKILL);
            waitpid(inflight[k].pid, NULL, 0);
            hung++;
        }
    munmap(beats, FORK_INFLIGHT * sizeof *beats);
    size_t bad = xslots_drain();
    for (int i = 0; i < FORK_PARENT_BLOCKS; i++) {
        bad += !parent_blocks[i] || !stamp_ok(parent_blocks[i]);
        free(parent_blocks[i]);
    }
    CHECKF(forks == fork_count && ok == fork_count, "%d forks, %d children ok", forks, ok);
    CHECKF(failed == 0 && hung == 0 && fork_errors == 0, "%d children failed, %d hung, %d fork errors",
           failed, hung, fork_errors);
    CHECKF(failures == 0 && bad == 0, "parent: %llu failed operations, %zu corrupted blocks",
           (unsigned long long)failures, bad);
    /* always the same line, whatever happened: tools/soak.py reads it */
    printf("fork: %d forks, %d children ok, %d failed, %d hung, %d fork errors, "
           "workers did %llu operations\n",
           forks, ok, failed, hung, fork_errors, (unsigned long long)ops);
}

/* ---- trim ---- */
enum { TRIM_THREADS = 4 };
#define TRIM_TOTAL (256 * CONF_MIB)
#define TRIM_SLACK (16 * CONF_MIB)

typedef struct trim_node {
    struct trim_node *next;
    uint64_t tag;
} trim_node;
typedef struct {
    int index;
    trim_node *newer, *older; /* the two halves of this thread's blocks */
    size_t bad;
} trim_list;

static trim_list trim_lists[TRIM_THREADS];
static pthread_barrier_t trim_barrier;

static void trim_free_chain(trim_node *n, trim_node *stop, uint64_t tag, size_t *bad)
{
    while (n != stop) {
        trim_node *next = n->next;
        *bad += n->tag != tag;
        free(n);
        n = next;
    }
}

static void *trim_run(void *arg)
{
    trim_list *l = arg, *neighbour = &trim_lists[(l->index + 1) % TRIM_THREADS];
    conf_rng r = {0x7819ull + (uint64_t)l->index};
    size_t bytes = 0, goal = TRIM_TOTAL / TRIM_THREADS;
    trim_node *head = NULL, *mid = NULL;
    uint64_t tag = 0x7A6000ull + (uint64_t)l->index;
    while (bytes < goal) {
        size_t size = conf_range(&r, 64, 256);
        trim_node *n = malloc(size);
        if (!n) {
            l->bad++;
            break;
        }
        memset(n, 0x3C, size);
        n->next = head, n->tag = tag;
        head = n;
        bytes += malloc_usable_size(n);
        if (!mid && bytes >= goal / 2)
            mid = n;
    }
    l->newer = head, l->older = mid;
    pthread_barrier_wait(&trim_barrier); /* all allocated: main reads the peak RSS */
    pthread_barrier_wait(&trim_barrier);
    /* own older half here; the newer half of the neighbour's blocks */
    trim_free_chain(l->older, NULL, tag, &l->bad);
    trim_free_chain(neighbour->newer, neighbour->older, 0x7A6000ull + (uint64_t)neighbour->index, &l->bad);
    return NULL;
}

void conf_case_trim(void)
{
    pthread_t t[TRIM_THREADS];
    size_t start = conf_rss(), peak;
    pthread_barrier_init(&trim_barrier, NULL, TRIM_THREADS + 1);
    for (int i = 0; i < TRIM_THREADS; i++) {
        trim_lists[i] = (trim_list){.index = i};
        if (pthread_create(&t[i], NULL, trim_run, &trim_lists[i]) != 0) {
            CHECK(!"pthread_create");
            return; /* the barrier would never open */
        }
    }
    pthread_barrier_wait(&trim_barrier); /* everything allocated */
    peak = conf_rss();
    pthread_barrier_wait(&trim_barrier); /* now free it */
    size_t bad = 0;
    for (int i = 0; i < TRIM_THREADS; i++) {
        pthread_join(t[i], NULL);
        bad += trim_lists[i].bad;
    }
    pthread_barrier_destroy(&trim_barrier);
    double t0 = conf_now();
    int trimmed = malloc_trim(0);
    size_t rss = conf_rss();
    /* under qemu-user the RSS is the emulator's, which also grows with the
     * code it has translated and the threads it has run (up to 17 MiB more
     * than start here after 256 MiB went back): an allowance for that, far
     * below the 256 MiB a trim that gives nothing back would leave */
    size_t slack = TRIM_SLACK + (conf_emulated() ? 32 * CONF_MIB : 0);
    while (rss > start + slack && conf_now() - t0 < 1.0) {
        conf_sleep_ms(10);
        rss = conf_rss();
    }
    double took = conf_now() - t0;
    CHECKF(bad == 0, "%zu blocks failed or corrupted", bad);
    CHECKF(peak >= start + TRIM_TOTAL / 2, "RSS only %zu -> %zu KiB with 256 MiB live", start >> 10,
           peak >> 10);
    CHECKF(rss <= start + slack, "RSS %zu KiB at start, %zu KiB at peak, %zu KiB %.2f s after malloc_trim",
           start >> 10, peak >> 10, rss >> 10, took);
    CHECK(trimmed == 0 || trimmed == 1);
    printf("trim: RSS %zu KiB -> %zu KiB -> %zu KiB (%.3f s after malloc_trim)\n", start >> 10, peak >> 10,
           rss >> 10, took);
}

/* The large-block keep of the OS layers (os/large_keep.h), white-box, over
 * mmap_heap or, built with -DKEEP_OVER_BRK, brk_heap, or with -DKEEP_OVER_VA,
 * virtual_alloc_heap, with a 16 MiB bound
 * and a 1 s decay; every t_malloc is one block of the OS layer. Checks
 * that a freed large block is reused (same address, nothing mapped), that
 * calloc still clears it, best fit with split and merge, the byte bound at
 * every step, decay and malloc_trim giving the pages back (RSS falls), the
 * counters, fork children using the keep while a thread churns large
 * blocks, two threads at once, the check operation catching a broken keep,
 * and calloc clearing a fresh block shorter than MT_CALLOC_TRUST_ZERO (its
 * pages resident at once). Over mmap_heap also: calloc leaving a longer
 * fresh block to the OS's zero pages; a request longer than every kept block
 * grows the longest one that is a mapping of its own (its pages stay, only
 * the tail is new), a realloc that grows a block moves it into a kept block
 * that fits rather than remapping it, and the bound scales with the bytes in use up to
 * MT_LARGE_KEEP_CAP and falls back once they are freed. The shortest block
 * kept is 256 KiB here (MT_LARGE_KEEP_MIN). */
#include <mortise/mortise.h>

#define MT_LARGE_KEEP ((size_t)16 << 20)
#define MT_LARGE_KEEP_CAP ((size_t)64 << 20) /* the bound scales (off by default) */
/* The default shortest kept block is one granule, so every block the OS
 * layer frees is long enough; a longer one here keeps the paths for blocks
 * and rests too short to keep under test. */
#define MT_LARGE_KEEP_MIN ((size_t)256 << 10)
#define DECAY_MS 1000
#define MT_LARGE_DECAY_MS DECAY_MS
#if defined(KEEP_OVER_BRK)
#include <mortise/os/brk_heap.h>
#define OS brk_heap
#elif defined(KEEP_OVER_VA)
#include <mortise/os/virtual_alloc_heap.h>
#define OS virtual_alloc_heap
#else
#include <mortise/os/mmap_heap.h>
#define OS mmap_heap
#define KEEP_GROWS /* MT_OS_GROWS: a kept mapping grows with mremap */
#endif

#define MT_PREFIX t_
#include <mortise/sockets/custom_socket.h>

MT_COMPOSE(OS, custom_socket)

#include "../../common/check.h"
#include "os_test.h"
#include <sys/wait.h>
#include <time.h>

#define KEEP MT_CAT(OS, _keep)
#define MIB ((size_t)1 << 20)
#define BOUND ((size_t)16 << 20)
#define CAP MT_CAT(OS, _keep_cap)

static size_t kept(void) { return mt_load_relaxed(&KEEP.bytes); }
static size_t handed_out(void) { return mt_load_relaxed(&mt_os_counters.handed_out); }
static size_t mapped(void) { return mt_load_relaxed(&mt_os_counters.mapped); }

/* the bound a free sets: large_keep, or the bytes still in use up to the cap */
static size_t bound_now(void)
{
    size_t in_use = handed_out() < CAP ? handed_out() : CAP;
    return in_use > BOUND ? in_use : BOUND;
}

static void touch(char *p, size_t len, char v)
{
    for (size_t i = 0; i < len; i += 4096)
        p[i] = v;
}

static bool all(const char *p, size_t len, char v)
{
    for (size_t i = 0; i < len; i += 4096)
        if (p[i] != v)
            return false;
    return true;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void test_reuse(void)
{
    char *p = t_malloc(6 * MIB), *guard = t_malloc(1);
    CHECK(p && guard);
    touch(p, 6 * MIB, 5);
    size_t m = mapped(), out = handed_out(), rss = rss_bytes();
    t_free(p);
    CHECK(kept() == 6 * MIB);
    CHECK(handed_out() == out - 6 * MIB);                    /* kept bytes are not in use */
    CHECK(owner_of(p) == 0 && t_malloc_usable_size(p) == 0); /* no longer a block */
    CHECK(rss_bytes() + MIB > rss);                          /* its pages stay */
    char *q = t_malloc(6 * MIB - 100);
    CHECK(q == p && mapped() == m && kept() == 0); /* the same block, nothing mapped */
    CHECK(t_malloc_usable_size(q) == 6 * MIB && owner_of(q) == MT_CAT(OS, _id));
    CHECK(all(q, 6 * MIB, 5)); /* not cleared: no page fault either */
    t_free(q);
    /* calloc of a reused block is cleared all the same */
    char *z = t_calloc(1, 6 * MIB);
    CHECK(z == p && is_zero(z, 6 * MIB));
    t_free(z);
    t_free(guard);
    CHECK(t_malloc_trim(0) == 1 && kept() == 0);
}

static void test_split_and_merge(void)
{
    char *p = t_malloc(8 * MIB);
    CHECK(p);
    touch(p, 8 * MIB, 1);
    t_free(p);
    char *a = t_malloc(3 * MIB); /* best fit splits: the 5 MiB after it stay */
    CHECK(a == p && KEEP.count == 1 && kept() == 5 * MIB);
    char *b = t_malloc(5 * MIB);
    CHECK(b == p + 3 * MIB && kept() == 0 && all(b, 5 * MIB, 1));
    t_free(a);
    t_free(b); /* merged with a: one 8 MiB block again */
    CHECK(KEEP.count == 1 && kept() == 8 * MIB);
    char *w = t_malloc(7 * MIB + 600 * 1024); /* within 1/8: the whole block */
    CHECK(w == p && t_malloc_usable_size(w) == 8 * MIB && kept() == 0);
    t_free(w);
    char *s = t_malloc(6 * MIB + 768 * 1024); /* a 1280 KiB rest is kept apart */
    CHECK(s == p && t_malloc_usable_size(s) == 6 * MIB + 768 * 1024 && kept() == 1280 * 1024);
    t_free(s);
    CHECK(KEEP.count == 1 && kept() == 8 * MIB);
    char *big = t_malloc(9 * MIB); /* nothing fits */
#ifndef KEEP_GROWS
    CHECK(big && (big + 9 * MIB <= p || big >= p + 8 * MIB) && kept() == 8 * MIB); /* fresh memory */
#else
    CHECK(big && kept() == 0 && all(big, 8 * MIB, 1)); /* the kept mapping grown (test_grow) */
#endif
    t_free(big);
    CHECK(t_check() == NULL);
    CHECK(t_malloc_trim(0) == 1 && kept() == 0);
    /* a rest above 1/8 of the request but too short to keep goes back */
    char *m = t_malloc(MIB);
    CHECK(m != NULL);
    t_free(m);
    char *n = t_malloc(832 * 1024);
    CHECK(n == m && t_malloc_usable_size(n) == 832 * 1024 && kept() == 0);
    t_free(n);
    CHECK(t_malloc_trim(0) == 1 && kept() == 0);
}

static void test_bound(void)
{
    enum { N = 12 };
    char *b[N];
    for (int i = 0; i < N; i++) {
        b[i] = t_malloc(3 * MIB);
        CHECK(b[i] != NULL);
        touch(b[i], 3 * MIB, 2);
    }
    size_t rss = rss_bytes();
    for (int i = 0; i < N; i++) {
        t_free(b[i]);
        CHECK(kept() <= bound_now() && KEEP.count <= MT_LARGE_KEEP_SLOTS);
    }
    size_t k = kept(); /* what stays resident is what is kept */
    CHECK(k > 0 && k <= BOUND);
    CHECK(rss_bytes() + (size_t)N * 3 * MIB <= rss + k + 2 * MIB);
    CHECK(handed_out() < MIB);
    /* too small or larger than the bound: not kept, pages go back at once */
    size_t before = kept();
    char *small = t_malloc(128 * 1024), *huge = t_malloc(20 * MIB);
    CHECK(small && huge);
    touch(huge, 20 * MIB, 3);
    rss = rss_bytes();
    t_free(small);
    t_free(huge);
    CHECK(kept() == before && rss_bytes() + 18 * MIB < rss);
    CHECK(t_check() == NULL);
    CHECK(t_malloc_trim(0) == 1 && kept() == 0);
}

static void test_decay_and_trim(void)
{
    char *p = t_malloc(8 * MIB), *guard = t_malloc(1);
    CHECK(p && guard);
    touch(p, 8 * MIB, 4);
    size_t rss = rss_bytes();
    t_free(p);
    CHECK(kept() == 8 * MIB);
    sleep_ms(DECAY_MS * 3 / 10);
    t_free(t_malloc(1)); /* not due yet: a small request leaves it */
    CHECK(kept() == 8 * MIB);
    sleep_ms(DECAY_MS * 9 / 10);
    t_free(t_malloc(1)); /* any slow path of the OS layer gives back what decayed */
    CHECK(kept() == 0 && rss_bytes() + 7 * MIB < rss);
    /* malloc_trim gives back the rest at once */
    p = t_malloc(8 * MIB);
    touch(p, 8 * MIB, 4);
    rss = rss_bytes();
    t_free(p);
    CHECK(kept() == 8 * MIB && rss_bytes() + MIB > rss);
    CHECK(t_malloc_trim(0) == 1);
    CHECK(kept() == 0 && rss_bytes() + 7 * MIB < rss);
    CHECK(t_malloc_trim(0) == 0 || kept() == 0);
    t_free(guard);
}

/* Blocks in use raise the bound (a program holding big buffers on several
 * threads is served from the keep), never above the cap; once they are
 * freed it is large_keep again. */
static void test_bound_scales(void)
{
    enum { N = 12 };
    char *b[N];
    CHECK(CAP == 4 * BOUND);
    for (int i = 0; i < N; i++) {
        b[i] = t_malloc(8 * MIB);
        CHECK(b[i] != NULL);
        touch(b[i], 8 * MIB, 7);
    }
    size_t most = 0;
    for (int i = 0; i < N; i++) {
        t_free(b[i]);
        CHECK(kept() <= bound_now() && kept() <= CAP && t_check() == NULL);
        most = kept() > most ? kept() : most;
    }
    CHECK(most > BOUND);    /* above large_keep while 48+ MiB were in use */
    CHECK(most <= CAP);     /* never above the cap */
    CHECK(kept() <= BOUND); /* all freed: back to large_keep */
    CHECK(t_malloc_trim(0) == 1 && kept() == 0);
}

#ifdef KEEP_GROWS
/* A request longer than every kept block: the longest one mapped on its own
 * grows to it (mremap), its pages resident, only the tail new. A kept
 * cached-size chunk (4 MiB or less: a range inside a region) is never
 * grown. */
static void test_grow(void)
{
    char *p = t_malloc(6 * MIB), *guard = t_malloc(1);
    CHECK(p && guard);
    touch(p, 6 * MIB, 8);
    t_free(p);
    size_t m = mapped(), rss = rss_bytes();
    char *q = t_malloc(7 * MIB + 100);
    CHECK(q != NULL && kept() == 0);
    CHECK(t_malloc_usable_size(q) == 7 * MIB + MT_GRANULE && owner_of(q) == MT_CAT(OS, _id));
    CHECK(mapped() == m + MIB + MT_GRANULE); /* only the tail is new */
    CHECK(all(q, 6 * MIB, 8));               /* the old pages came along */
    CHECK(rss_bytes() < rss + MIB);          /* and nothing faulted yet */
    touch(q, 7 * MIB + 100, 9);
    CHECK(t_check() == NULL);
    t_free(q);
    /* a grown block is not zero-filled: calloc clears it all the same */
    char *z = t_calloc(1, 8 * MIB);
    CHECK(z != NULL && kept() == 0 && is_zero(z, 8 * MIB));
    t_free(z);
    CHECK(t_malloc_trim(0) == 1 && kept() == 0);
    /* a 3 MiB chunk of the cached sizes stays kept: the 5 MiB request maps afresh */
    char *c = t_malloc(3 * MIB);
    CHECK(c != NULL);
    touch(c, 3 * MIB, 1);
    t_free(c);
    char *d = t_malloc(5 * MIB);
    CHECK(d != NULL && kept() == 3 * MIB && (d + 5 * MIB <= c || d >= c + 3 * MIB));
    t_free(d);
    t_free(guard);
    CHECK(t_check() == NULL);
    CHECK(t_malloc_trim(0) == 1 && kept() == 0);
    /* a block idle past the decay is given back, not grown */
    p = t_malloc(6 * MIB);
    touch(p, 6 * MIB, 2);
    rss = rss_bytes();
    t_free(p);
    sleep_ms(DECAY_MS * 12 / 10);
    q = t_malloc(7 * MIB);
    CHECK(q != NULL && kept() == 0 && rss_bytes() + 5 * MIB < rss && is_zero(q, 7 * MIB));
    t_free(q);
    CHECK(t_malloc_trim(0) == 1 && kept() == 0);
}

/* A realloc that grows a block by an eighth or more moves it into a kept block
 * that fits (the contents copied into pages already resident, nothing
 * mapped); a smaller step, or nothing kept that fits, grows it with mremap. */
static void test_realloc_into_kept(void)
{
    char *k = t_malloc(8 * MIB), *guard = t_malloc(1), *p = t_malloc(5 * MIB);
    CHECK(k && guard && p);
    touch(k, 8 * MIB, 3);
    touch(p, 5 * MIB, 4);
    t_free(k);
    size_t m = mapped();
    char *q = t_realloc(p, 7 * MIB);
    CHECK(q == k && mapped() == m); /* the kept block, nothing mapped */
    CHECK(all(q, 5 * MIB, 4));      /* the contents came along */
    CHECK(kept() == 6 * MIB);       /* the old block and the kept one's rest */
    CHECK(t_check() == NULL);
    touch(q, 7 * MIB, 5);
    char *r = t_realloc(q, 12 * MIB); /* nothing kept is this long: remapped */
    CHECK(r != NULL && kept() == 6 * MIB && mapped() > m && all(r, 7 * MIB, 5));
    CHECK(t_malloc_usable_size(r) == 12 * MIB && t_check() == NULL);
    t_free(r);
    /* a small step is remapped though a kept block would fit: a buffer
     * grown a little at a time must not be copied whole each time */
    CHECK(t_malloc_trim(0) == 1 && kept() == 0);
    k = t_malloc(8 * MIB);
    p = t_malloc(5 * MIB);
    CHECK(k && p);
    touch(p, 5 * MIB, 6);
    t_free(k);
    char *s = t_realloc(p, 5 * MIB + MT_GRANULE);
    CHECK(s != NULL && s != k && kept() == 8 * MIB && all(s, 5 * MIB, 6));
    t_free(s);
    t_free(guard);
    CHECK(t_malloc_trim(0) == 1 && kept() == 0);
}
#endif

/* A fresh block shorter than MT_CALLOC_TRUST_ZERO is cleared by calloc (a
 * page read before it is written would be the zero page, replaced at the
 * write); a longer one is left as the OS gave it, no page touched. */
static void test_calloc_fresh(void)
{
    CHECK(kept() == 0);
    size_t rss = rss_bytes();
    char *a = t_calloc(1, 6 * MIB);
    CHECK(a && rss_bytes() >= rss + 5 * MIB && is_zero(a, 6 * MIB));
#ifdef KEEP_GROWS /* mmap_heap: a block this long is a mapping of its own, fresh */
    rss = rss_bytes();
    char *b = t_calloc(1, MT_CALLOC_TRUST_ZERO);
    CHECK(b && rss_bytes() < rss + MIB && is_zero(b, MT_CALLOC_TRUST_ZERO));
    t_free(b);
#endif
    t_free(a);
    CHECK(t_malloc_trim(0) == 1 && kept() == 0);
}

/* ---- threads and fork ---- */
static atomic_bool stop;

static void *churn(void *arg)
{
    unsigned seed = (unsigned)(uintptr_t)arg;
    long bad = 0;
    for (int round = 0; round < 400 && !atomic_load(&stop); round++) {
        size_t len = (1 + next_random(&seed) % 6) * MIB + next_random(&seed) % 100000;
        char *p = t_malloc(len);
        if (!p) {
            bad++;
            continue;
        }
        char v = (char)(seed | 1);
        touch(p, len, v);
        bad += !all(p, len, v);
        t_free(p);
        bad += kept() > BOUND;
    }
    return (void *)bad;
}

static void test_threads(void)
{
    CHECK(on_two_threads(churn, 11));
    CHECK(kept() <= BOUND && t_check() == NULL);
    CHECK(handed_out() < MIB);
    CHECK(t_malloc_trim(0) == 1 && kept() == 0);
}

static void test_fork(void)
{
    pthread_t t;
    atomic_store(&stop, false);
    CHECK(pthread_create(&t, NULL, churn, (void *)77) == 0);
    int failures = 0;
    for (int i = 0; i < 40; i++) {
        char *p = t_malloc(4 * MIB);
        touch(p, 4 * MIB, 9);
        t_free(p);
        pid_t pid = fork();
        if (pid == 0) {
            /* the child's keep is the parent's at the fork, consistent */
            int bad = t_check() != NULL;
            for (int k = 0; k < 20; k++) {
                char *q = t_malloc((size_t)(2 + k % 5) * MIB);
                bad += q == NULL;
                if (q) {
                    touch(q, 2 * MIB, 6);
                    bad += !all(q, 2 * MIB, 6);
                    t_free(q);
                }
            }
            bad += kept() > BOUND || t_check() != NULL;
            _exit(bad ? 1 : 0);
        }
        int status = 0;
        failures += pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status);
    }
    atomic_store(&stop, true);
    void *bad = (void *)1;
    pthread_join(t, &bad);
    CHECK(failures == 0 && bad == NULL);
    CHECK(t_check() == NULL);
    CHECK(t_malloc_trim(0) == 1 && kept() == 0);
}

/* the check operation sees a broken keep, and nothing once it is repaired */
static void test_check_catches(void)
{
    char *p = t_malloc(2 * MIB);
    t_free(p);
    CHECK(t_check() == NULL);
    atomic_fetch_add(&KEEP.bytes, MT_GRANULE);
    const char *msg = t_check();
    CHECK(msg && strstr(msg, "large_keep"));
    atomic_fetch_sub(&KEEP.bytes, MT_GRANULE);
    KEEP.e[0].granules = 1; /* shorter than any block it keeps */
    msg = t_check();
    CHECK(msg && strstr(msg, "large_keep"));
    KEEP.e[0].granules = (2 * MIB) >> MT_GRANULE_SHIFT;
    mt_pagemap_set(p, MT_GRANULE, mt_entry(MT_CAT(OS, _id), 32)); /* still a block? */
    msg = t_check();
    CHECK(msg && strstr(msg, "large_keep"));
    mt_pagemap_set(p, MT_GRANULE, 0);
    CHECK(t_check() == NULL);
    KEEP.limit = 2 * CAP; /* a bound above the cap */
    msg = t_check();
    CHECK(msg && strstr(msg, "large_keep"));
    KEEP.limit = 0;
    CHECK(t_check() == NULL);
    CHECK(t_malloc_trim(0) == 1 && kept() == 0);
}

int main(void)
{
    test_reuse();
    test_split_and_merge();
    test_bound();
    test_bound_scales();
#ifdef KEEP_GROWS
    test_grow();
    test_realloc_into_kept();
#endif
    test_decay_and_trim();
    test_calloc_fresh();
    test_threads();
    test_fork();
    test_check_catches();
    CHECK(handed_out() < MIB);
    return check_report(MT_STR(OS) "_large_keep_test");
}

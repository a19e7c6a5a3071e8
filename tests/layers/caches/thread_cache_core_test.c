/* thread_cache(coreaware_cachesize=1): the per-thread bound follows the
 * cache size of the core the thread runs on. MORTISE_CORE_CACHE emulates a
 * heterogeneous machine (CPU 0 a quarter of CPU 1's cache); the thread is
 * pinned to CPU 0, then 1, then 0 again (sched_setaffinity) and the bound of
 * a class is checked after the periodic re-check (every 4 slow-path events
 * here); moving to the smaller core gives the blocks above the new bound
 * back below. The socket's CPU hint (cmalloc) is used instead of
 * sched_getcpu() when given; a thread starts with its core's bound. Also:
 * MORTISE_CORE_CACHE's syntax (good and bad values) and the sysfs reader
 * against this machine's files.
 * model: mmap_heap::segfit_lk(sync=spinlock)::thread_cache(size_handle=[0, 4096], cache_size=64KB, coreaware_cachesize=1)::cmalloc_socket(prefix=k_) */
#include <mortise/mortise.h>
#include <mortise/os/mmap_heap.h>

#define MT_SYNC spinlock
#include <mortise/layers/segfit_lk.h>

#define MT_SIZE_HANDLE 0, 4096
#define MT_CACHE_SIZE 65536
#define MT_COREAWARE_CACHESIZE 1
#define MT_COREAWARE_INTERVAL 4
#include <mortise/layers/thread_cache.h>

#define MT_PREFIX k_
#include <mortise/sockets/cmalloc_socket.h>

MT_COMPOSE(mmap_heap, segfit_lk, thread_cache, cmalloc_socket)

#include "../../common/addons.h"
#include <stdio.h>

static const size_t C100 = 6; /* log2b class of 100 bytes: 112 */
static size_t cached(size_t c) { return list_len(thread_cache_tl.head[c]); }
static size_t bound(size_t c) { return cached(c) + thread_cache_tl.room[c]; }
static size_t share(size_t budget, size_t c) { return thread_cache_share(budget, c); }
static bool below_free(void *p) { return list_has(segfit_lk_state.cls[segfit_lk_span_of(p)->cls].free, p); }

/* Enough slow-path events for a re-check, in a class other than C100 (so
 * C100's cached blocks stay as they are): each round misses or overflows. */
static void events(int cpu_hint)
{
    void *p[64];
    for (int round = 0; round < 4; round++) {
        for (int i = 0; i < 64; i++)
            p[i] = k_cmalloc(3000, cpu_hint);
        for (int i = 0; i < 64; i++)
            k_cmalloc_free(p[i], cpu_hint);
    }
}

static void test_syntax(void)
{
    size_t s[8];
    CHECK(mt_cpu_cache_parse("0-3:512K,4-7:2M", s, 8));
    CHECK(s[0] == 512 << 10 && s[3] == 512 << 10 && s[4] == 2 << 20 && s[7] == 2 << 20);
    CHECK(mt_cpu_cache_parse("1:256k", s, 8)); /* unlisted: the largest listed */
    CHECK(s[1] == 256 << 10 && s[0] == 256 << 10 && s[7] == 256 << 10);
    CHECK(mt_cpu_cache_parse("0:1M,2:1048576,3:1G", s, 4));
    CHECK(s[0] == 1 << 20 && s[1] == 1 << 30 && s[2] == 1 << 20 && s[3] == 1 << 30);
    CHECK(mt_cpu_cache_parse("0-7:1M,2:64K", s, 8)); /* later entries win */
    CHECK(s[2] == 64 << 10 && s[3] == 1 << 20);
    CHECK(mt_cpu_cache_parse("6-300:2M", s, 8) && s[7] == 2 << 20 && s[0] == 2 << 20);
    const char *bad[] = {"",
                         "0",
                         "0:",
                         ":1M",
                         "a:1M",
                         "3-1:1K",
                         "0:1K,",
                         "0:1X",
                         "0:0",
                         "0-:1K",
                         "0:1K;1:2K",
                         " 0:1K",
                         "0:99999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK(!mt_cpu_cache_parse(bad[i], s, 8));
}

static void test_sysfs(void)
{
    /* what this machine's sysfs says for CPU 0's level-2 cache */
    size_t want = 0;
    for (int i = 0; i < 8; i++) {
        char path[128], level[8] = "", type[32] = "", size[32] = "";
        FILE *f;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
        if (!(f = fopen(path, "r")))
            break;
        CHECK(fscanf(f, "%7s", level) == 1);
        fclose(f);
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
        if ((f = fopen(path, "r"))) {
            CHECK(fscanf(f, "%31s", type) == 1);
            fclose(f);
        }
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        if ((f = fopen(path, "r"))) {
            CHECK(fscanf(f, "%31s", size) == 1);
            fclose(f);
        }
        if (!strcmp(level, "2") && strcmp(type, "Instruction"))
            want = strtoull(size, NULL, 10) << 10; /* sysfs writes "1024K" */
    }
    if (!want) {
        printf("thread_cache_core_test: no level-2 cache in sysfs, reader unchecked\n");
        return;
    }
    CHECK(mt_cpu_sysfs_size(0) == want);
    CHECK(mt_cpu_sysfs_size(100000) == 0); /* no such CPU */
}

static void *starts_on_cpu1(void *arg)
{
    (void)arg;
    CHECK(pin_to(1));
    k_cmalloc_free(k_cmalloc(100, -1), -1);
    CHECK(thread_cache_tl.cpu == 1 && thread_cache_tl.budget == 65536);
    CHECK(bound(C100) == share(65536, C100));
    return NULL;
}

int main(void)
{
    test_syntax();
    test_sysfs();

    /* CPU 0 has a quarter of CPU 1's cache; read on first use */
    setenv("MORTISE_CORE_CACHE", "0:256K,1:1M", 1);
    CHECK(mt_cpu_cache_size(0) == 256 << 10 && mt_cpu_cache_size(1) == 1 << 20);
    CHECK(mt_cpu_cache_scaled(65536, 0) == 16384 && mt_cpu_cache_scaled(65536, 1) == 65536);
    CHECK(mt_cpu_cache_scaled(65536, 1000) == 65536); /* unknown CPU: whole budget */
    CHECK(share(16384, C100) == 5 && share(65536, C100) == 20);

    if (pin_to(0)) {
        /* starts on CPU 0: a quarter of the budget */
        k_cmalloc_free(k_cmalloc(100, -1), -1);
        CHECK(thread_cache_tl.cpu == 0 && thread_cache_tl.budget == 16384);
        CHECK(bound(C100) == 5);

        /* moved to CPU 1: after the next check the bound is the full one */
        CHECK(pin_to(1));
        events(-1);
        CHECK(thread_cache_tl.cpu == 1 && thread_cache_tl.budget == 65536);
        CHECK(bound(C100) == 20);

        /* fill class C100 up to CPU 1's bound, then move back to CPU 0: the
         * blocks above its bound go below at the re-check */
        void *p[40], *held[20];
        for (int i = 0; i < 40; i++)
            p[i] = k_cmalloc(100, -1);
        for (size_t i = 0, n = 20 - cached(C100); i < n; i++)
            k_cmalloc_free(p[i], -1);
        CHECK(cached(C100) == 20 && thread_cache_tl.room[C100] == 0);
        size_t k = 0;
        for (void *b = thread_cache_tl.head[C100]; b && k < 20; b = *(void **)b)
            held[k++] = b;
        CHECK(pin_to(0));
        events(-1);
        CHECK(thread_cache_tl.cpu == 0 && bound(C100) == 5 && cached(C100) == 5);
        size_t below = 0;
        for (int i = 0; i < 20; i++)
            below += below_free(held[i]);
        CHECK(below == 15);
        for (int i = 0; i < 40; i++)
            if (!list_has(thread_cache_tl.head[C100], p[i]) && !below_free(p[i]))
                k_cmalloc_free(p[i], -1);

        /* a thread that starts on CPU 1 starts with CPU 1's bound */
        in_thread(starts_on_cpu1, NULL);
        unpin();
    } else {
        printf("thread_cache_core_test: cannot pin to CPU 0 and 1, pinned checks skipped\n");
    }

    /* the socket's CPU hint wins over where the thread runs */
    events(1);
    CHECK(thread_cache_tl.cpu == 1 && bound(C100) == 20);
    events(0);
    CHECK(thread_cache_tl.cpu == 0 && bound(C100) == 5 && cached(C100) <= 5);
    events(7); /* a CPU MORTISE_CORE_CACHE does not list: the largest listed */
    CHECK(thread_cache_tl.cpu == 7 && bound(C100) == 20);
    return check_report("thread_cache_core_test");
}

/* conf_windows — the conformance cases that mean something on Windows, for a
 * Mortise allocator linked statically in place of msvcrt's malloc (or, with
 * CONF_PREFIXED, called by name from the DLL: mt_malloc, mt_free, ...).
 *
 *     conf_windows.exe CASE     CASE: pal api threads churn trim order
 *
 * The Linux suite (tests/suites/conformance) needs fork, mmap, dlsym and
 * pthreads; these are the same checks over Win32. Exit 0 when every check
 * holds; each failure prints "FAIL case: what" and the exit is 1.
 */
#include <mortise/core/platform.h> /* the port layer under test (pal case) */
#include <windows.h>
#include <psapi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(CONF_PREFIXED)
void *mt_malloc(size_t);
void mt_free(void *);
void *mt_calloc(size_t, size_t);
void *mt_realloc(void *, size_t);
size_t mt__msize(void *);
void *mt__aligned_malloc(size_t, size_t);
void mt__aligned_free(void *);
int mt_malloc_trim(size_t);
const char *mt_check(void);
#define A_MALLOC mt_malloc
#define A_FREE mt_free
#define A_CALLOC mt_calloc
#define A_REALLOC mt_realloc
#define A_MSIZE mt__msize
#define A_ALIGNED mt__aligned_malloc
#define A_ALIGNED_FREE mt__aligned_free
#define A_TRIM mt_malloc_trim
#define A_CHECK mt_check
#else
int malloc_trim(size_t);
const char *mortise_check(void);
#define A_MALLOC malloc
#define A_FREE free
#define A_CALLOC calloc
#define A_REALLOC realloc
#define A_MSIZE _msize
#define A_ALIGNED _aligned_malloc
#define A_ALIGNED_FREE _aligned_free
#define A_TRIM malloc_trim
#define A_CHECK mortise_check
#endif

static int failures;
#define CHECK(cond, ...)                                \
    do {                                                \
        if (!(cond)) {                                  \
            failures++;                                 \
            printf("FAIL %s:%d: ", __func__, __LINE__); \
            printf(__VA_ARGS__);                        \
            printf("\n");                               \
        }                                               \
    } while (0)

static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint64_t next_random(uint64_t *s)
{
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return *s;
}

static bool all_bytes(const unsigned char *p, size_t n, unsigned char v)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != v)
            return false;
    return true;
}

/* ---- pal: the Windows port's functions against the OS's answers ---- */

static _Atomic(uint32_t) futex_word;
static _Atomic(int) exit_hook_ran;
static mt_pal_key exit_key;
static void on_thread_exit(void *value) { atomic_fetch_add(&exit_hook_ran, value == (void *)&exit_key); }
static DWORD WINAPI key_thread(LPVOID unused)
{
    (void)unused;
    mt_pal_key_set(exit_key, &exit_key);
    return 0;
}
static void *waker(void *unused)
{
    (void)unused;
    Sleep(50);
    atomic_store(&futex_word, 1);
    mt_pal_futex(&futex_word, MT_PAL_FUTEX_WAKE, 1, NULL, 0);
    return NULL;
}

static void case_pal(void)
{
    SYSTEM_INFO si;
    GetSystemInfo(&si);
    CHECK(mt_pal_page_size() == si.dwPageSize, "page size %zu, GetSystemInfo %lu", mt_pal_page_size(),
          (unsigned long)si.dwPageSize);
    CHECK(mt_pal_allocation_granularity() == si.dwAllocationGranularity, "allocation granularity");
    size_t page = mt_pal_page_size(), len = 16 * page;

    unsigned char *p = mt_pal_map(len);
    CHECK(p && ((uintptr_t)p & (page - 1)) == 0, "map: %p", (void *)p);
    if (p) {
        CHECK(all_bytes(p, len, 0), "a fresh map reads zeros");
        memset(p, 0xab, len);
        CHECK(mt_pal_page_mapped(p + 3 * page), "mapped page");
        mt_pal_advise_dontneed(p + page / 2, 3 * page); /* whole pages 1 and 2 only */
        CHECK(all_bytes(p + page, 2 * page, 0), "dontneed: the whole pages read zeros");
        CHECK(all_bytes(p, page, 0xab) && all_bytes(p + 3 * page, page, 0xab),
              "dontneed: the pages partly outside keep their bytes");
        mt_pal_unmap(p, 4 * page); /* a part: decommitted, the rest stays */
        CHECK(!mt_pal_page_mapped(p), "the unmapped part is gone");
        CHECK(all_bytes(p + 4 * page, len - 4 * page, 0xab), "the rest keeps its bytes");
        mt_pal_unmap(p + 4 * page, len - 4 * page);
        MEMORY_BASIC_INFORMATION mi;
        CHECK(VirtualQuery(p, &mi, sizeof mi) && mi.State == MEM_FREE,
              "the reservation is released once nothing of it is left");
    }
    CHECK(!mt_pal_page_mapped((void *)(uintptr_t)0x1000), "page 1 is not mapped");

    /* reserve: address space only; commit makes a part usable and zeroed */
    unsigned char *r = mt_pal_reserve(len);
    CHECK(r && ((uintptr_t)r & (page - 1)) == 0, "reserve: %p", (void *)r);
    if (r) {
        MEMORY_BASIC_INFORMATION mi_reserved;
        CHECK(!mt_pal_page_mapped(r + 2 * page), "a reserved page is not usable yet");
        CHECK(mt_pal_commit(r + 2 * page, 3 * page), "commit");
        CHECK(mt_pal_page_mapped(r + 2 * page) && !mt_pal_page_mapped(r + 5 * page),
              "exactly the committed pages are usable");
        CHECK(all_bytes(r + 2 * page, 3 * page, 0), "committed pages read zeros");
        memset(r + 2 * page, 0x5c, 3 * page);
        /* decommit keeps the reservation; committed again, the pages read zeros */
        mt_pal_decommit(r + 3 * page, page);
        CHECK(!mt_pal_page_mapped(r + 3 * page) && mt_pal_page_mapped(r + 2 * page),
              "decommit: that page only");
        CHECK(VirtualQuery(r, &mi_reserved, sizeof mi_reserved) && mi_reserved.State != MEM_FREE,
              "decommit keeps the reservation");
        CHECK(mt_pal_commit(r + 3 * page, page) && all_bytes(r + 3 * page, page, 0), "recommitted: zeros");
        mt_pal_unmap(r + 2 * page, 3 * page);
        MEMORY_BASIC_INFORMATION mi;
        CHECK(VirtualQuery(r, &mi, sizeof mi) && mi.State == MEM_FREE,
              "the reservation is released once nothing of it is committed");
    }
    CHECK(mt_pal_remap(NULL, 0, 0, NULL) == NULL, "no remap");
    /* the emulated break: up commits, down decommits, back up reads zeros */
    char *brk0 = mt_pal_brk(0);
    CHECK(brk0 != NULL, "brk(0)");
    if (brk0) {
        CHECK(mt_pal_brk(3 * (intptr_t)page) == brk0 && mt_pal_brk(0) == brk0 + 3 * page, "brk up");
        memset(brk0, 0x5a, 3 * page);
        CHECK(mt_pal_brk(-2 * (intptr_t)page) == brk0 + 3 * page, "brk down");
        CHECK(mt_pal_brk(2 * (intptr_t)page) == brk0 + page, "brk up again");
        CHECK(all_bytes((unsigned char *)brk0 + page, 2 * page, 0) &&
                  all_bytes((unsigned char *)brk0, page, 0x5a),
              "the pages given back read zeros, the kept one its bytes");
        CHECK(mt_pal_brk(-(intptr_t)(64 * ((size_t)1 << 30))) == NULL, "brk below its start is refused");
    }
    CHECK(!mt_pal_atfork(NULL, NULL, NULL), "no fork");

    int cpu = mt_pal_cpu();
    CHECK(cpu >= 0 && cpu < (int)si.dwNumberOfProcessors, "cpu %d of %lu", cpu,
          (unsigned long)si.dwNumberOfProcessors);
    mt_pal_cpuset set;
    CHECK(mt_pal_affinity_get(&set) && set.words[0] != 0, "affinity");
    uint64_t t0 = mt_pal_clock_ns();
    Sleep(20);
    CHECK(mt_pal_clock_ns() > t0, "the clock advances");

    CHECK(mt_pal_futex(&futex_word, MT_PAL_FUTEX_WAKE, 1, NULL, 0) == 0, "wake without waiter");
    mt_pal_timeout t = {0, 20000000};
    CHECK(mt_pal_futex(&futex_word, MT_PAL_FUTEX_WAIT, 0, &t, 0) == -MT_PAL_ETIMEDOUT, "wait times out");
    CHECK(mt_pal_futex(&futex_word, MT_PAL_FUTEX_WAIT, 7, &t, 0) == 0, "wait on a changed word returns");
    CHECK(mt_pal_thread_start(waker, NULL, 1 << 16), "thread start");
    while (!atomic_load(&futex_word))
        mt_pal_futex(&futex_word, MT_PAL_FUTEX_WAIT, 0, NULL, 0);

    CHECK(mt_pal_key_create(&exit_key, on_thread_exit), "key");
    HANDLE h = CreateThread(NULL, 0, key_thread, NULL, 0, NULL);
    WaitForSingleObject(h, INFINITE);
    CloseHandle(h);
    CHECK(atomic_load(&exit_hook_ran) == 1, "the exit hook ran once with the thread's value");

    mt_pal_mutex m = SRWLOCK_INIT;
    mt_pal_mutex_lock(&m);
    mt_pal_mutex_unlock(&m);
    mt_pal_spin s;
    mt_pal_spin_init(&s);
    CHECK(mt_pal_spin_trylock(&s) && !mt_pal_spin_trylock(&s), "spin lock");
    mt_pal_spin_unlock(&s);

    errno = 1234;
    CHECK(mt_pal_write_all(1, "pal: write_all\n", 15), "write_all");
    int fd = mt_pal_open_write("conf_windows_pal.txt");
    CHECK(fd >= 0, "open_write");
    int copy = mt_pal_dup_fd(fd, 20);
    CHECK(copy >= 20, "dup_fd at least 20: %d", copy);
    CHECK(mt_pal_write_all(copy, "abc", 3), "write to the copy");
    mt_pal_close(copy);
    mt_pal_close(fd);
    char buf[16];
    CHECK(mt_pal_read_file("conf_windows_pal.txt", buf, sizeof buf) == 3 && !strcmp(buf, "abc"), "read back");
    DeleteFileA("conf_windows_pal.txt");
    CHECK(errno == 1234, "errno kept: %d", errno);
    CHECK(mt_pal_pid() == (long)GetCurrentProcessId(), "pid");
    CHECK(mt_pal_tid() == (long)GetCurrentThreadId(), "tid");
}

/* ---- api: the family's answers ---- */

static void case_api(void)
{
    unsigned char *p = A_MALLOC(100);
    CHECK(p && ((uintptr_t)p & 15) == 0, "malloc(100) 16-aligned");
    CHECK(A_MSIZE(p) >= 100, "_msize %zu", A_MSIZE(p));
    memset(p, 7, 100);
    p = A_REALLOC(p, 100000);
    CHECK(p && all_bytes(p, 100, 7), "realloc keeps the bytes");
    p = A_REALLOC(p, 10);
    CHECK(p && all_bytes(p, 10, 7), "realloc down keeps the bytes");
    A_FREE(p);
    A_FREE(NULL);
    unsigned char *z = A_CALLOC(1000, 33);
    CHECK(z && all_bytes(z, 33000, 0), "calloc zeroed");
    A_FREE(z);
    errno = 0;
    CHECK(A_CALLOC(SIZE_MAX / 2, 3) == NULL && errno == ENOMEM, "calloc overflow: NULL, ENOMEM");
    errno = 0;
    CHECK(A_MALLOC(SIZE_MAX - 100) == NULL && errno == ENOMEM, "huge malloc: NULL, ENOMEM");
    for (size_t align = 16; align <= ((size_t)1 << 20); align <<= 2) {
        void *a = A_ALIGNED(align * 3 + 1, align);
        CHECK(a && ((uintptr_t)a & (align - 1)) == 0, "_aligned_malloc %zu", align);
        A_ALIGNED_FREE(a);
    }
    CHECK(A_ALIGNED(64, 48) == NULL, "_aligned_malloc: alignment not a power of two");
#if !defined(CONF_PREFIXED)
    /* the program's own strdup copies are the allocator's: free takes them */
    char *copy = strdup("mortise");
    CHECK(copy && !strcmp(copy, "mortise") && A_MSIZE(copy) >= 8, "strdup is ours");
    free(copy);
    copy = _strdup("x");
    free(copy);
#endif
    /* every size class and some large blocks, each written whole */
    void *blocks[400];
    for (int i = 0; i < 400; i++) {
        size_t n = (size_t)(next_random(&rng) % (i % 10 == 0 ? 2000000 : 4000)) + 1;
        blocks[i] = A_MALLOC(n);
        CHECK(blocks[i] != NULL, "malloc(%zu)", n);
        if (blocks[i])
            memset(blocks[i], i & 0xff, n);
    }
    for (int i = 0; i < 400; i++)
        A_FREE(blocks[i]);
    const char *broken = A_CHECK();
    CHECK(broken == NULL, "check: %s", broken);
}

/* ---- threads, churn: many threads allocating, some freeing each other's ---- */

#define THREAD_BLOCKS 256
static void *_Atomic handoff[THREAD_BLOCKS];

static DWORD WINAPI worker(LPVOID arg)
{
    uint64_t seed = (uintptr_t)arg * 0x2545f4914f6cdd1du + 1;
    void *mine[64] = {0};
    for (int round = 0; round < 2000; round++) {
        int k = (int)(next_random(&seed) % 64);
        if (mine[k]) {
            void *other = atomic_exchange(&handoff[next_random(&seed) % THREAD_BLOCKS], mine[k]);
            A_FREE(other); /* another thread's block, freed here */
        }
        size_t n = (size_t)(next_random(&seed) % 3000) + 1;
        mine[k] = A_MALLOC(n);
        if (!mine[k])
            return 1;
        memset(mine[k], (int)(n & 0xff), n);
    }
    for (int k = 0; k < 64; k++)
        A_FREE(mine[k]);
    return 0;
}

static void run_threads(int count, int waves)
{
    for (int w = 0; w < waves; w++) {
        HANDLE h[16];
        for (int i = 0; i < count; i++)
            h[i] = CreateThread(NULL, 0, worker, (LPVOID)(uintptr_t)(w * count + i + 1), 0, NULL);
        for (int i = 0; i < count; i++) {
            DWORD code = 1;
            WaitForSingleObject(h[i], INFINITE);
            GetExitCodeThread(h[i], &code);
            CHECK(code == 0, "thread %d of wave %d ran out of memory", i, w);
            CloseHandle(h[i]);
        }
    }
    for (int i = 0; i < THREAD_BLOCKS; i++)
        A_FREE(atomic_exchange(&handoff[i], NULL));
    const char *broken = A_CHECK();
    CHECK(broken == NULL, "check: %s", broken);
}

static void case_threads(void) { run_threads(8, 1); }
static void case_churn(void) { run_threads(4, 50); } /* 200 threads come and go */

/* ---- trim: freed memory goes back to the OS ---- */

/* The working set: the pages the process holds in memory (Linux's RSS;
 * under wine it is the RSS). Committed memory is the wrong measure: giving
 * pages back decommits and commits them again, untouched. */
static size_t resident(void)
{
    PROCESS_MEMORY_COUNTERS pmc;
    return K32GetProcessMemoryInfo(GetCurrentProcess(), &pmc, sizeof pmc) ? pmc.WorkingSetSize : 0;
}

/* Like the Linux case: 128 MiB in 64..256-byte blocks, freed, malloc_trim;
 * the working set returns to within 16 MiB of the start. */
static void case_trim(void)
{
    typedef struct node {
        struct node *next;
    } node;
    const size_t goal = (size_t)128 << 20, slack = (size_t)16 << 20;
    /* the start is measured with the allocator already set up, as on Linux,
     * where it has served the C library's start-up (a DLL's has not) */
    A_FREE(A_MALLOC(64));
    size_t start = resident(), bytes = 0;
    node *head = NULL;
    uint64_t seed = 42;
    while (bytes < goal) {
        size_t size = 64 + (size_t)(next_random(&seed) % 193);
        node *n = A_MALLOC(size);
        CHECK(n != NULL, "malloc %zu", size);
        if (!n)
            break;
        memset(n, 0x3c, size);
        n->next = head, head = n;
        bytes += size;
    }
    size_t peak = resident();
    CHECK(peak >= start + goal / 2, "128 MiB live shows: %zu -> %zu KiB", start >> 10, peak >> 10);
    while (head) {
        node *next = head->next;
        A_FREE(head);
        head = next;
    }
    A_TRIM(0);
    size_t after = resident();
    CHECK(after <= start + slack, "working set %zu KiB at start, %zu KiB at peak, %zu KiB after malloc_trim",
          start >> 10, peak >> 10, after >> 10);
    printf("trim: working set %zu KiB -> %zu KiB -> %zu KiB\n", start >> 10, peak >> 10, after >> 10);
}

/* ---- commit: the commit charge follows what is in use ---- */

/* Private bytes committed in the process (what Windows charges against its
 * commit limit; reserved address space costs none), summed over
 * VirtualQuery's regions: wine's PrivateUsage counter does not move. */
static size_t committed(void)
{
    size_t total = 0;
    MEMORY_BASIC_INFORMATION mi;
    for (char *at = NULL; VirtualQuery(at, &mi, sizeof mi) == sizeof mi;
         at = (char *)mi.BaseAddress + mi.RegionSize) {
        if (mi.State == MEM_COMMIT && mi.Type == MEM_PRIVATE)
            total += mi.RegionSize;
        if ((char *)mi.BaseAddress + mi.RegionSize <= at)
            break; /* the top of the address space */
    }
    return total;
}

/* 64 MiB in blocks of 1 KiB to 1 MiB, touched, freed, malloc_trim: the
 * charge stays within 256 MiB above the start at the peak (an OS layer that
 * commits what it reserves is charged for its whole arena: mmap_heap's 64 GiB
 * with faa_heap_growth=1), and returns to within 16 MiB of the start. Run for
 * the instances whose OS layer commits on demand (port_windows.py). */
static void case_commit(void)
{
    enum { N = 256 };
    static char *block[N];
    const size_t limit = (size_t)256 << 20, slack = (size_t)16 << 20;
    A_FREE(A_MALLOC(64));
    size_t start = committed(), bytes = 0;
    uint64_t seed = 7;
    for (int i = 0; i < N && bytes < ((size_t)64 << 20); i++) {
        size_t size = (size_t)1024 << (next_random(&seed) % 11);
        block[i] = A_MALLOC(size);
        CHECK(block[i] != NULL, "malloc %zu", size);
        if (block[i])
            memset(block[i], 0x6b, size);
        bytes += size;
    }
    size_t peak = committed();
    CHECK(start > 0 && peak >= start + bytes / 2, "the blocks are charged: %zu -> %zu KiB for %zu KiB",
          start >> 10, peak >> 10, bytes >> 10);
    CHECK(peak <= start + limit, "charged %zu KiB at the peak for %zu KiB of blocks", (peak - start) >> 10,
          bytes >> 10);
    for (int i = 0; i < N; i++)
        A_FREE(block[i]);
    A_TRIM(0);
    size_t after = committed();
    CHECK(after <= start + slack,
          "commit charge %zu KiB at start, %zu KiB at peak, %zu KiB after malloc_trim", start >> 10,
          peak >> 10, after >> 10);
    printf("commit: charge %zu KiB -> %zu KiB -> %zu KiB\n", start >> 10, peak >> 10, after >> 10);
}

/* ---- order: a freed block's memory is reused, nothing is handed out twice ---- */

static void case_order(void)
{
    enum { N = 2000 };
    static unsigned char *live[N];
    for (int i = 0; i < N; i++) {
        live[i] = A_MALLOC(48);
        CHECK(live[i] != NULL, "malloc 48");
        if (live[i])
            memset(live[i], i & 0xff, 48);
    }
    for (int i = 0; i < N; i++)
        for (int j = 0; j < 48; j += 16)
            if (live[i] && live[i][j] != (i & 0xff)) {
                CHECK(0, "block %d overwritten: two live blocks overlap", i);
                break;
            }
    for (int i = 0; i < N; i += 2)
        A_FREE(live[i]);
    int reused = 0;
    for (int i = 0; i < N; i += 2) {
        live[i] = A_MALLOC(48);
        for (int j = 1; j < N; j += 2)
            if (live[i] == live[j])
                CHECK(0, "a live block handed out twice");
        reused++;
        memset(live[i], 0xee, 48);
    }
    for (int i = 1; i < N; i += 2)
        CHECK(live[i][0] == (i & 0xff) && live[i][47] == (i & 0xff), "block %d kept its bytes", i);
    for (int i = 0; i < N; i++)
        A_FREE(live[i]);
    CHECK(reused == N / 2, "reallocated");
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        void (*run)(void);
    } cases[] = {
        {"pal", case_pal},   {"api", case_api},     {"threads", case_threads}, {"churn", case_churn},
        {"trim", case_trim}, {"order", case_order}, {"commit", case_commit},
    };
    setvbuf(stdout, NULL, _IONBF, 0);
    if (argc != 2) {
        fprintf(stderr, "usage: conf_windows CASE (pal api threads churn trim order commit)\n");
        return 2;
    }
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (!strcmp(argv[1], cases[i].name)) {
            cases[i].run();
            printf("%s: %s\n", argv[1], failures ? "FAILED" : "ok");
            return failures ? 1 : 0;
        }
    fprintf(stderr, "conf_windows: no case %s\n", argv[1]);
    return 2;
}

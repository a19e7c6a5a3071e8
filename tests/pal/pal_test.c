/* The Linux port layer (include/mortise/pal/pal_linux.h) against the OS's
 * own answers: every mt_pal_* function of the contract is called and its
 * result checked with an independent system call or file. */
#include <mortise/pal/pal.h>

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int failures;
#define CHECK(c)                                                                  \
    do {                                                                          \
        if (!(c)) {                                                               \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c); \
            failures++;                                                           \
        }                                                                         \
    } while (0)

static void test_pages(void)
{
    /* the kernel's page, whatever it is (qemu-aarch64 -p 65536 gives 64 KiB) */
    size_t page = mt_pal_page_size();
    CHECK(page == (size_t)sysconf(_SC_PAGESIZE));
    CHECK(mt_page_size() == page && page % MT_PAGE_SIZE == 0);

    /* reserve then commit: usable zeroed memory (on Linux the reservation
     * already is a mapping) */
    char *r = mt_pal_reserve(8 * page);
    CHECK(r && ((uintptr_t)r & (page - 1)) == 0);
    if (r) {
        CHECK(mt_pal_commit(r + 2 * page, 3 * page));
        CHECK(r[2 * page] == 0 && r[5 * page - 1] == 0);
        memset(r + 2 * page, 0x5c, 3 * page);
        CHECK(mt_pal_page_mapped(r + 4 * page));
        /* decommit, commit again: zeros, and errno kept */
        errno = 4321;
        mt_pal_decommit(r + 2 * page, 3 * page);
        CHECK(errno == 4321);
        CHECK(mt_pal_commit(r + 2 * page, 3 * page));
        CHECK(r[2 * page] == 0 && r[5 * page - 1] == 0);
        mt_pal_unmap(r, 8 * page);
        CHECK(!mt_pal_page_mapped(r + 2 * page));
    }

    errno = 1234;
    char *p = mt_pal_map(4 * page);
    CHECK(p && ((uintptr_t)p & (page - 1)) == 0);
    CHECK(errno == 1234);
    if (!p)
        return;
    for (size_t i = 0; i < 4 * page; i++)
        if (p[i]) {
            CHECK(!"fresh mapping is zeroed");
            break;
        }
    memset(p, 0xab, 4 * page);
    for (int i = 0; i < 4; i++)
        CHECK(mt_pal_page_mapped(p + i * page + 17));

    mt_pal_advise_dontneed(p + 1, page); /* holds no whole page: nothing dropped */
    CHECK((unsigned char)p[1] == 0xab && (unsigned char)p[page] == 0xab);
    mt_pal_advise_dontneed(p, page); /* kept, but reads zeros again */
    CHECK(p[0] == 0 && p[page - 1] == 0 && (unsigned char)p[page] == 0xab);
    mt_pal_advise_hugepage(p, 4 * page); /* a hint: must not fail or change data */
    CHECK((unsigned char)p[page] == 0xab);

    mt_pal_unmap(p + page, page);
    CHECK(errno == 1234);
    CHECK(mt_pal_page_mapped(p));
    CHECK(!mt_pal_page_mapped(p + page));
    CHECK(!mt_pal_page_mapped(p + 2 * page - 1));
    CHECK(mt_pal_page_mapped(p + 2 * page));

    /* remap: page 2-3 moved onto a fresh 3-page reservation, grown to 3 */
    char *dest = mt_pal_map(3 * page);
    CHECK(dest != NULL);
    char *q = mt_pal_remap(p + 2 * page, 2 * page, 3 * page, dest);
    CHECK(!MT_PAL_HAVE_REMAP || q == dest);
    if (q == dest) {
        CHECK((unsigned char)dest[0] == 0xab && (unsigned char)dest[2 * page - 1] == 0xab);
        CHECK(dest[2 * page] == 0);
        CHECK(!mt_pal_page_mapped(p + 2 * page));
        mt_pal_unmap(dest, 3 * page);
        CHECK(!mt_pal_page_mapped(dest));
    }
    mt_pal_unmap(p, page);
    CHECK(!mt_pal_page_mapped(p));
    CHECK(errno == 1234);

    int on_stack = 0;
    CHECK(mt_pal_page_mapped(&on_stack));
    CHECK(!mt_pal_page_mapped(NULL));

    errno = 77; /* refused: NULL, errno untouched */
    CHECK(mt_pal_map((size_t)1 << 62) == NULL);
    CHECK(errno == 77);

    CHECK(mt_pal_brk(0) == sbrk(0));
}

static void test_cpu_time(void)
{
    long cpus = sysconf(_SC_NPROCESSORS_CONF);
    for (int i = 0; i < 100; i++) {
        int c = mt_pal_cpu();
        CHECK(c >= 0 && c < cpus);
    }
    int slow = mt_pal_cpu_slow();
    CHECK(slow >= 0 && slow < cpus);

    uint64_t c0 = mt_pal_cycles(), t0 = mt_pal_clock_ns();
    struct timespec ms = {0, 2000000};
    nanosleep(&ms, NULL);
    uint64_t c1 = mt_pal_cycles(), t1 = mt_pal_clock_ns();
    CHECK(c1 > c0);
    CHECK(t1 - t0 >= 2000000u && t1 - t0 < 10000000000u);

    mt_pal_cpuset allowed;
    cpu_set_t set;
    CHECK(mt_pal_affinity_get(&allowed));
    CHECK(sched_getaffinity(0, sizeof set, &set) == 0);
    int first = -1, count = 0;
    for (int c = 0; c < 1024; c++) {
        int bit = (int)(allowed.words[c / 64] >> (c % 64) & 1);
        CHECK(bit == (CPU_ISSET(c, &set) ? 1 : 0));
        count += bit;
        first = first < 0 && bit ? c : first;
    }
    CHECK(count == CPU_COUNT(&set) && first >= 0);
    CHECK(mt_pal_affinity_pin(first));
    mt_pal_yield();
    CHECK(mt_pal_cpu() == first && sched_getcpu() == first);
    CHECK(!mt_pal_affinity_pin(-1));
    CHECK(sched_setaffinity(0, sizeof set, &set) == 0);
}

static void test_files_env(void)
{
    char buf[256], want[32];
    snprintf(want, sizeof want, "%ld (", (long)getpid());
    long n = mt_pal_read_file("/proc/self/stat", buf, sizeof buf);
    CHECK(n > 0 && (size_t)n < sizeof buf && buf[n] == 0);
    CHECK(strncmp(buf, want, strlen(want)) == 0);
    CHECK(mt_pal_pid() == (long)getpid());
    CHECK(mt_pal_tid() == (long)gettid());

    char tiny[4]; /* cap - 1 bytes at most, NUL terminated */
    CHECK(mt_pal_read_file("/proc/self/stat", tiny, sizeof tiny) == 3 && tiny[3] == 0);
    errno = 5;
    CHECK(mt_pal_read_file("/nonexistent/mortise-pal", buf, sizeof buf) == -1 && buf[0] == 0);
    CHECK(errno == 5);

    char path[] = "/tmp/mortise-pal-XXXXXX";
    int tmp = mkstemp(path);
    CHECK(tmp >= 0);
    close(tmp);
    int fd = mt_pal_open_write(path);
    CHECK(fd >= 0);
    int copy = mt_pal_dup_fd(fd, 100);
    CHECK(copy >= 100);
    CHECK(mt_pal_write_all(fd, "hello ", 6) && mt_pal_write_all(copy, "port", 4));
    mt_pal_close(copy);
    mt_pal_close(fd);
    CHECK(mt_pal_read_file(path, buf, sizeof buf) == 10 && strcmp(buf, "hello port") == 0);
    CHECK(!mt_pal_write_all(fd, "x", 1) && errno == EBADF); /* closed */
    unlink(path);
    errno = 0;
    CHECK(mt_pal_open_write("/nonexistent/dir/file") == -1 && errno == ENOENT);

    setenv("MORTISE_PAL_TEST", "x42", 1);
    const char *v = mt_pal_getenv("MORTISE_PAL_TEST");
    CHECK(v && strcmp(v, "x42") == 0);
    unsetenv("MORTISE_PAL_TEST");
    CHECK(mt_pal_getenv("MORTISE_PAL_TEST") == NULL);

    uint64_t r1 = 0, r2 = 1;
    CHECK(mt_pal_random_seed(&r1) && mt_pal_random_seed(&r2) && r1 == r2 && r1 != 0);

    mt_pal_set_errno(MT_ENOMEM);
    CHECK(errno == ENOMEM && mt_pal_errno() == ENOMEM);
    CHECK(MT_EINVAL == EINVAL && MT_EINTR == EINTR);

    void *next_malloc = mt_pal_next_symbol("malloc"); /* the C library's, after us */
    CHECK(MT_PAL_HAVE_NEXT_SYMBOL && next_malloc != NULL);
    CHECK(mt_pal_next_symbol("mortise_pal_no_such_symbol") == NULL);
}

static _Atomic(uint32_t) word;

static void test_futex(void)
{
    CHECK(MT_PAL_HAVE_FUTEX);
    CHECK(mt_pal_futex(&word, MT_PAL_FUTEX_WAKE, 1, NULL, 0) == 0); /* no waiter */
    CHECK(mt_pal_futex(&word, MT_PAL_FUTEX_WAKE_BITSET, 1, NULL, 1) == 0);
    errno = 9;
    CHECK(mt_pal_futex(&word, MT_PAL_FUTEX_WAIT, 1, NULL, 0) == -EAGAIN); /* word is 0 */
    mt_pal_timeout t = {0, 1000000};
    CHECK(mt_pal_futex(&word, MT_PAL_FUTEX_WAIT, 0, &t, 0) == -MT_PAL_ETIMEDOUT);
    CHECK(errno == 9); /* raw system call */
}

/* ---- threads ---- */

static _Atomic(uint32_t) server_done;
static uintptr_t server_self;
static int server_sigusr1_blocked = -1;

static void *server(void *arg)
{
    sigset_t now;
    pthread_sigmask(SIG_SETMASK, NULL, &now);
    server_sigusr1_blocked = sigismember(&now, SIGUSR1);
    server_self = mt_pal_thread_self();
    *(int *)arg = 1;
    atomic_store(&server_done, 1);
    mt_pal_futex(&server_done, MT_PAL_FUTEX_WAKE, 1, NULL, 0);
    return NULL;
}

static _Atomic(int) key_done;
static void key_destructor(void *v) { atomic_fetch_add(&key_done, v == (void *)7 ? 1 : 100); }
static mt_pal_key key;
static void *key_thread(void *arg)
{
    (void)arg;
    mt_pal_key_set(key, (void *)7);
    return NULL;
}

static int prepared, parented, childed;
static void on_prepare(void) { prepared++; }
static void on_parent(void) { parented++; }
static void on_child(void) { childed++; }

static void test_threads(void)
{
    int ran = 0;
    sigset_t before, after;
    pthread_sigmask(SIG_SETMASK, NULL, &before);
    CHECK(!sigismember(&before, SIGUSR1));
    CHECK(mt_pal_thread_start(server, &ran, (size_t)256 << 10));
    pthread_sigmask(SIG_SETMASK, NULL, &after);
    CHECK(!sigismember(&after, SIGUSR1)); /* the caller's mask is restored */
    while (!atomic_load(&server_done))
        mt_pal_futex(&server_done, MT_PAL_FUTEX_WAIT, 0, NULL, 0);
    CHECK(ran == 1 && server_sigusr1_blocked == 1);
    CHECK(server_self != 0 && server_self != mt_pal_thread_self());
    CHECK(mt_pal_thread_self() == mt_pal_thread_self());

    CHECK(mt_pal_key_create(&key, key_destructor));
    pthread_t t;
    CHECK(pthread_create(&t, NULL, key_thread, NULL) == 0);
    pthread_join(t, NULL);
    CHECK(atomic_load(&key_done) == 1);

    mt_pal_mutex m;
    mt_pal_mutex_init(&m);
    mt_pal_mutex_lock(&m);
    CHECK(pthread_mutex_trylock(&m) != 0);
    mt_pal_mutex_unlock(&m);
    CHECK(pthread_mutex_trylock(&m) == 0);
    pthread_mutex_unlock(&m);

    mt_pal_spin s;
    mt_pal_spin_init(&s);
    CHECK(mt_pal_spin_trylock(&s));
    CHECK(!mt_pal_spin_trylock(&s));
    mt_pal_spin_unlock(&s);
    CHECK(mt_pal_spin_trylock(&s));
    mt_pal_spin_unlock(&s);

    CHECK(mt_pal_atfork(on_prepare, on_parent, on_child));
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0)
        _exit(childed == 1 && prepared == 1 && parented == 0 && mt_pal_pid() == (long)getpid() ? 0 : 1);
    int status = -1;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK(prepared == 1 && parented == 1 && childed == 0);

    pid = fork(); /* abort ends the child with SIGABRT */
    if (pid == 0) {
        signal(SIGABRT, SIG_DFL);
        mt_pal_abort();
    }
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
}

int main(void)
{
    test_pages();
    test_cpu_time();
    test_files_env();
    test_futex();
    test_threads();
    if (failures) {
        fprintf(stderr, "pal_test: %d check(s) failed\n", failures);
        return 1;
    }
    printf("pal_test: all checks passed\n");
    return 0;
}

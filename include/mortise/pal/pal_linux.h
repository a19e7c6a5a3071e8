/* mortise/pal/pal_linux.h — the port layer on Linux with a C library (glibc
 * or musl). The contract, function by function, is pal.h; this header is the
 * only place the hosted build includes OS and POSIX headers. Needs
 * _GNU_SOURCE before the first C library header (mremap, mincore,
 * sched_getcpu, RTLD_NEXT), which the build and the pkg-config file define.
 */
#ifndef MORTISE_PAL_PAL_LINUX_H
#define MORTISE_PAL_PAL_LINUX_H

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#if defined(__GLIBC__)
#include <sys/auxv.h>
#endif
#if (defined(__x86_64__) || defined(__aarch64__)) && defined(__GLIBC__) && \
    (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 35))
#include <sys/rseq.h>
#define MT_PAL_CPU_RSEQ 1
#else
#define MT_PAL_CPU_RSEQ 0
#endif

#ifndef MAP_NORESERVE
#define MAP_NORESERVE 0
#endif

/* ---- C library state ---- */

#define MT_ENOMEM ENOMEM
#define MT_EINVAL EINVAL
#define MT_EINTR EINTR

MT_INLINE int mt_pal_errno(void) { return errno; }
MT_INLINE void mt_pal_set_errno(int e) { errno = e; }

static inline const char *mt_pal_getenv(const char *name) { return getenv(name); }

static inline bool mt_pal_random_seed(uint64_t *out)
{
#if defined(__GLIBC__) && defined(AT_RANDOM)
    const unsigned char *r = (const unsigned char *)(uintptr_t)getauxval(AT_RANDOM);
    if (r) {
        __builtin_memcpy(out, r + 8, sizeof *out); /* glibc's canary is the first 8 */
        return true;
    }
#endif
    (void)out;
    return false;
}

__attribute__((noreturn)) static inline void mt_pal_abort(void) { abort(); }

#if defined(RTLD_NEXT)
#define MT_PAL_HAVE_NEXT_SYMBOL 1
static inline void *mt_pal_next_symbol(const char *name) { return dlsym(RTLD_NEXT, name); }
#else
#define MT_PAL_HAVE_NEXT_SYMBOL 0
static inline void *mt_pal_next_symbol(const char *name)
{
    (void)name;
    return NULL;
}
#endif

/* ---- pages ---- */

/* Read once: arm64 kernels run with 4, 16 or 64 KiB pages, so the size is
 * the kernel's, never a constant. Racing first callers store the same value. */
static inline size_t mt_pal_page_size(void)
{
    static _Atomic(size_t) cached;
    size_t n = atomic_load_explicit(&cached, memory_order_relaxed);
    if (MT_LIKELY(n))
        return n;
    int saved = errno;
    long k = sysconf(_SC_PAGESIZE);
    errno = saved;
    n = k > 0 ? (size_t)k : 0;
    atomic_store_explicit(&cached, n, memory_order_relaxed);
    return n;
}

static inline void *mt_pal_map(size_t len)
{
    int saved = errno;
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    errno = saved;
    return p == MAP_FAILED ? NULL : p;
}

/* A private MAP_NORESERVE mapping is already address space whose pages
 * cost nothing until touched: reserving is mapping, committing is nothing. */
static inline void *mt_pal_reserve(size_t len) { return mt_pal_map(len); }
static inline bool mt_pal_commit(void *p, size_t len)
{
    (void)p, (void)len;
    return true;
}

static inline void mt_pal_unmap(void *p, size_t len)
{
    int saved = errno;
    munmap(p, len);
    errno = saved;
}

/* Only the whole pages inside the range: the kernel would round the length
 * up and zero the rest of a larger page (16 or 64 KiB) that still holds data. */
static inline void mt_pal_advise_dontneed(void *p, size_t len)
{
    size_t page = mt_pal_page_size();
    if (!page)
        return;
    uintptr_t start = ((uintptr_t)p + page - 1) & ~(uintptr_t)(page - 1);
    uintptr_t end = ((uintptr_t)p + len) & ~(uintptr_t)(page - 1);
    if (end <= start)
        return;
    int saved = errno;
    madvise((void *)start, end - start, MADV_DONTNEED);
    errno = saved;
}

/* Commit is nothing here, so decommit only gives the pages back. */
static inline void mt_pal_decommit(void *p, size_t len) { mt_pal_advise_dontneed(p, len); }

static inline void mt_pal_advise_hugepage(void *p, size_t len)
{
#ifdef MADV_HUGEPAGE
    int saved = errno;
    madvise(p, len, MADV_HUGEPAGE);
    errno = saved;
#else
    (void)p, (void)len;
#endif
}

#if defined(MREMAP_MAYMOVE) && defined(MREMAP_FIXED)
#define MT_PAL_HAVE_REMAP 1
static inline void *mt_pal_remap(void *p, size_t old_len, size_t new_len, void *dest)
{
    int saved = errno;
    void *q = dest ? mremap(p, old_len, new_len, MREMAP_MAYMOVE | MREMAP_FIXED, dest)
                   : mremap(p, old_len, new_len, 0);
    errno = saved;
    return q == MAP_FAILED ? NULL : q;
}
#else
#define MT_PAL_HAVE_REMAP 0
static inline void *mt_pal_remap(void *p, size_t old_len, size_t new_len, void *dest)
{
    (void)p, (void)old_len, (void)new_len, (void)dest;
    return NULL;
}
#endif

/* mincore fails with ENOMEM on a hole: its answer is all we want. */
static inline bool mt_pal_page_mapped(const void *a)
{
    unsigned char vec;
    int saved = errno;
    size_t page = mt_pal_page_size();
    bool mapped = page && mincore((void *)((uintptr_t)a & ~(uintptr_t)(page - 1)), 1, &vec) == 0;
    errno = saved;
    return mapped;
}

static inline void *mt_pal_brk(intptr_t increment)
{
    int saved = errno;
    void *old = sbrk(increment);
    errno = saved;
    return old == (void *)-1 ? NULL : old;
}

/* ---- CPU and time ---- */

MT_SLOW MT_UNUSED int mt_pal_cpu_slow(void) { return sched_getcpu(); }

MT_INLINE int mt_pal_cpu(void)
{
#if MT_PAL_CPU_RSEQ && defined(__x86_64__)
    /* rseq's cpu_id at thread pointer + __rseq_offset: %fs-relative */
    int cpu;
    __asm__ __volatile__("movl %%fs:(%1), %0"
                         : "=r"(cpu)
                         : "r"(__rseq_offset + offsetof(struct rseq, cpu_id)));
    if (MT_LIKELY(cpu >= 0))
        return cpu;
#elif MT_PAL_CPU_RSEQ
    /* the same word from tpidr_el0; the kernel rewrites it on migration, so
     * the load must not be cached or torn (a relaxed atomic load) */
    const char *area = (const char *)__builtin_thread_pointer() + __rseq_offset;
    int cpu =
        __atomic_load_n((const int *)(const void *)(area + offsetof(struct rseq, cpu_id)), __ATOMIC_RELAXED);
    if (MT_LIKELY(cpu >= 0))
        return cpu;
#endif
    return mt_pal_cpu_slow();
}

static inline uint64_t mt_pal_clock_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

MT_INLINE void mt_pal_yield(void) { sched_yield(); }

_Static_assert(sizeof(cpu_set_t) == sizeof(mt_pal_cpuset), "mt_pal_cpuset is a cpu_set_t");

static inline bool mt_pal_affinity_get(mt_pal_cpuset *s)
{
    cpu_set_t set;
    int saved = errno;
    bool ok = sched_getaffinity(0, sizeof set, &set) == 0;
    errno = saved;
    if (ok)
        __builtin_memcpy(s->words, &set, sizeof set);
    return ok;
}

static inline bool mt_pal_affinity_pin(int cpu)
{
    if (cpu < 0 || cpu >= CPU_SETSIZE)
        return false;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    int saved = errno;
    bool ok = sched_setaffinity(0, sizeof one, &one) == 0;
    errno = saved;
    return ok;
}

static inline long mt_pal_read_file(const char *path, char *buf, size_t cap)
{
    int saved = errno;
    long n = -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        n = (long)read(fd, buf, cap - 1);
        close(fd);
    }
    buf[n > 0 ? n : 0] = 0;
    errno = saved;
    return n;
}

/* ---- futex ---- */

#if defined(__linux__) && !defined(MT_NO_THREADS) && (defined(__x86_64__) || defined(__aarch64__))
#define MT_PAL_HAVE_FUTEX 1
#else
#define MT_PAL_HAVE_FUTEX 0
#endif

/* The system call without the C library: no errno is written (free() must
 * keep errno, POSIX) and nothing links against libc's syscall(). */
MT_INLINE long mt_pal_futex(_Atomic(uint32_t) *addr, int op, uint32_t val, const mt_pal_timeout *timeout,
                            uint32_t bits)
{
#if MT_PAL_HAVE_FUTEX && defined(__x86_64__)
    register long r10 __asm__("r10") = (long)timeout;
    register long r8 __asm__("r8") = 0;
    register long r9 __asm__("r9") = (long)bits;
    long r = 202; /* SYS_futex */
    __asm__ __volatile__("syscall"
                         : "+a"(r)
                         : "D"(addr), "S"((long)(op | MT_PAL_FUTEX_PRIVATE)), "d"((long)val), "r"(r10),
                           "r"(r8), "r"(r9)
                         : "rcx", "r11", "memory");
    return r;
#elif MT_PAL_HAVE_FUTEX && defined(__aarch64__)
    register long x8 __asm__("x8") = 98; /* SYS_futex */
    register long x0 __asm__("x0") = (long)addr;
    register long x1 __asm__("x1") = op | MT_PAL_FUTEX_PRIVATE;
    register long x2 __asm__("x2") = (long)val;
    register long x3 __asm__("x3") = (long)timeout;
    register long x4 __asm__("x4") = 0;
    register long x5 __asm__("x5") = (long)bits;
    __asm__ __volatile__("svc 0"
                         : "+r"(x0)
                         : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
                         : "memory");
    return x0;
#else
    (void)addr, (void)val, (void)timeout, (void)bits;
    if (op != MT_PAL_FUTEX_WAKE && op != MT_PAL_FUTEX_WAKE_BITSET)
        mt_pal_yield(); /* the caller re-checks: a polling wait */
    return 0;
#endif
}

/* ---- threads ---- */

static inline uintptr_t mt_pal_thread_self(void) { return (uintptr_t)pthread_self(); }

typedef pthread_key_t mt_pal_key;

static inline bool mt_pal_key_create(mt_pal_key *k, void (*done)(void *))
{
    return pthread_key_create(k, done) == 0;
}
static inline void mt_pal_key_set(mt_pal_key k, void *value) { pthread_setspecific(k, value); }

static inline bool mt_pal_atfork(void (*prepare)(void), void (*parent)(void), void (*child)(void))
{
    return pthread_atfork(prepare, parent, child) == 0;
}

static inline bool mt_pal_thread_start(void *(*fn)(void *), void *arg, size_t stack)
{
    int saved = errno;
    bool started = false;
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) == 0) {
        sigset_t all, old;
        sigfillset(&all);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        pthread_attr_setstacksize(&attr, stack);
        pthread_sigmask(SIG_SETMASK, &all, &old); /* the new thread inherits the mask */
        pthread_t t;
        started = pthread_create(&t, &attr, fn, arg) == 0;
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        pthread_attr_destroy(&attr);
    }
    errno = saved;
    return started;
}

typedef pthread_mutex_t mt_pal_mutex;
MT_INLINE void mt_pal_mutex_init(mt_pal_mutex *m) { pthread_mutex_init(m, NULL); }
MT_INLINE void mt_pal_mutex_lock(mt_pal_mutex *m) { pthread_mutex_lock(m); }
MT_INLINE void mt_pal_mutex_unlock(mt_pal_mutex *m) { pthread_mutex_unlock(m); }

typedef pthread_spinlock_t mt_pal_spin;
MT_INLINE void mt_pal_spin_init(mt_pal_spin *s) { pthread_spin_init(s, PTHREAD_PROCESS_PRIVATE); }
MT_INLINE bool mt_pal_spin_trylock(mt_pal_spin *s) { return pthread_spin_trylock(s) == 0; }
MT_INLINE void mt_pal_spin_unlock(mt_pal_spin *s) { pthread_spin_unlock(s); }

/* ---- output ---- */

static inline bool mt_pal_write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        p += n;
        len -= (size_t)n;
    }
    return true;
}

static inline int mt_pal_open_write(const char *path)
{
    return open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}

static inline int mt_pal_dup_fd(int fd, int lowest)
{
    int saved = errno;
    int copy = fcntl(fd, F_DUPFD_CLOEXEC, lowest);
    errno = saved;
    return copy;
}

static inline void mt_pal_close(int fd)
{
    int saved = errno;
    close(fd);
    errno = saved;
}

static inline long mt_pal_pid(void) { return (long)getpid(); }
static inline long mt_pal_tid(void) { return (long)gettid(); }

#endif

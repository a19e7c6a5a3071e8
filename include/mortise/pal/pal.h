/* mortise/pal/pal.h — the port layer: every service Mortise asks of the
 * operating system, the C library or the CPU's privileged state, behind one
 * set of mt_pal_* functions. Nothing outside include/mortise/pal/ includes an
 * OS or POSIX header (tests/pal checks it), so a new platform is ported by
 * writing one pal_<os>.h that provides everything listed here (docs/port.md).
 *
 * Ports: pal_linux.h (Linux with glibc or another C library; needs
 * _GNU_SOURCE, which the build defines), pal_windows.h (64-bit Windows with
 * mingw-w64: _WIN32) and pal_freestanding.h (no C library, no OS:
 * MT_FREESTANDING). Selected below; nothing else chooses.
 *
 * Rules every port keeps:
 *   - no function here calls malloc or anything that may (they run inside
 *     the allocator, often with a layer's lock held);
 *   - errno is left as it was found, except where a function says it sets it
 *     (free() must not change errno, POSIX);
 *   - a service the platform lacks fails the way its entry says (NULL, -1,
 *     false, 0) rather than not compiling: callers always have a fallback;
 *   - the hot ones (cpu, cycles, futex, yield, errno) are MT_INLINE and
 *     compile to what the callers had inline before the port layer existed.
 * "AS-safe" below means async-signal-safe: callable from a signal handler.
 *
 * ---- C library state ----
 * int  mt_pal_errno(void)              the calling thread's errno. AS-safe.
 * void mt_pal_set_errno(int e)         set it (sockets report ENOMEM, EINVAL).
 *                                      AS-safe. Freestanding: a static word.
 * MT_ENOMEM, MT_EINVAL, MT_EINTR       the platform's numbers for them.
 * const char *mt_pal_getenv(const char *name)
 *                                      the value of an environment variable,
 *                                      NULL if unset or there is no
 *                                      environment. Not AS-safe (reads
 *                                      environ); never allocates.
 * bool mt_pal_random_seed(uint64_t *out)
 *                                      8 bytes the kernel chose at random
 *                                      when the process started (Linux:
 *                                      AT_RANDOM, the half the C library does
 *                                      not use for its stack canary); false
 *                                      and *out untouched when unknown.
 *                                      AS-safe, no allocation.
 * noreturn void mt_pal_abort(void)     end the process abnormally (SIGABRT;
 *                                      freestanding: a trap instruction).
 *                                      AS-safe.
 * void *mt_pal_next_symbol(const char *name)
 *                                      the next definition of the function
 *                                      `name` after this object (dlsym
 *                                      RTLD_NEXT): how a layer reaches the C
 *                                      library's malloc underneath it. NULL
 *                                      when there is none (a static program)
 *                                      or no dynamic linker. MAY ALLOCATE on
 *                                      old C libraries (dlerror state): call
 *                                      it only where an allocating call is
 *                                      safe (load time, no lock held).
 *                                      MT_PAL_HAVE_NEXT_SYMBOL is 0 where it
 *                                      always returns NULL.
 *
 * ---- pages ----
 * size_t mt_pal_page_size(void)        the OS's base page size at run time
 *                                      (4, 16 or 64 KiB on arm64 kernels); 0
 *                                      if it cannot say. Layers call
 *                                      mt_page_size() (core/platform.h), never
 *                                      a constant; MT_PAGE_SIZE is only the
 *                                      smallest page a build supports. AS-safe.
 * void *mt_pal_map(size_t len)         len bytes (a page multiple) of fresh,
 *                                      zeroed, read-write, private memory at a
 *                                      page-aligned address, reserved without
 *                                      a commit charge where the OS allows;
 *                                      NULL when refused. AS-safe (a system
 *                                      call). Freestanding: NULL.
 * void *mt_pal_reserve(size_t len)     address space for len bytes (a page
 *                                      multiple) at a page-aligned address,
 *                                      made usable piece by piece with
 *                                      mt_pal_commit and released with
 *                                      mt_pal_unmap; NULL when refused.
 *                                      Linux: mt_pal_map (MAP_NORESERVE
 *                                      charges nothing already); Windows:
 *                                      MEM_RESERVE, no commit charge.
 *                                      AS-safe. Freestanding: NULL.
 * bool mt_pal_commit(void *p, size_t len)
 *                                      make [p, p + len) (page-aligned,
 *                                      inside a reservation) usable: zeroed
 *                                      read-write memory where nothing was
 *                                      committed; false when refused (the
 *                                      commit limit). Linux: true, nothing
 *                                      to do. AS-safe. Freestanding: false.
 * void mt_pal_decommit(void *p, size_t len)
 *                                      the inverse of mt_pal_commit: give
 *                                      back the pages of [p, p + len)
 *                                      (page-aligned, inside a reservation)
 *                                      and their commit charge, keeping the
 *                                      address space reserved; the range must
 *                                      be committed again before it is
 *                                      touched, and then reads zeros.
 *                                      Linux: madvise(MADV_DONTNEED), the
 *                                      range stays accessible; Windows:
 *                                      MEM_DECOMMIT. AS-safe, errno kept.
 *                                      Freestanding: nothing.
 * void mt_pal_unmap(void *p, size_t len)
 *                                      release [p, p + len) (page-aligned);
 *                                      errors are ignored. AS-safe.
 * void mt_pal_advise_dontneed(void *p, size_t len)
 *                                      give back the whole pages inside
 *                                      [p, p + len) but keep the range: their
 *                                      next touch reads zeros; bytes of a page
 *                                      partly outside are kept. AS-safe.
 * void mt_pal_advise_hugepage(void *p, size_t len)
 *                                      ask for transparent huge pages on the
 *                                      range; a no-op where unknown. AS-safe.
 * void *mt_pal_remap(void *p, size_t old_len, size_t new_len, void *dest)
 *                                      move or resize a mapping made by
 *                                      mt_pal_map: dest NULL resizes in place
 *                                      (p or NULL); otherwise the pages move
 *                                      to dest, replacing what was mapped
 *                                      there (dest or NULL). AS-safe.
 *                                      MT_PAL_HAVE_REMAP is 0 where it always
 *                                      returns NULL (callers copy instead).
 * bool mt_pal_page_mapped(const void *a)
 *                                      is the page holding a mapped (Linux:
 *                                      mincore)? false for a hole. AS-safe.
 *                                      Freestanding: false (the caller's page
 *                                      map is all it knows).
 * void *mt_pal_brk(intptr_t increment) move the program break (sbrk):
 *                                      returns the previous break, NULL when
 *                                      refused; increment 0 asks where it is.
 *                                      Not thread-safe (callers lock); AS-safe
 *                                      otherwise. Freestanding: NULL.
 *
 * ---- CPU and time ----
 * int mt_pal_cpu(void)                 the CPU the caller runs on, -1 if
 *                                      unknown; may be stale at once (use for
 *                                      placement, never for safety). Linux
 *                                      x86-64 and aarch64 with glibc >= 2.35:
 *                                      one load from the thread's rseq area,
 *                                      else sched_getcpu (vDSO). MT_INLINE,
 *                                      AS-safe.
 * uint64_t mt_pal_cycles(void)         a cycle counter, monotonic per core;
 *                                      0 where the CPU has none we know.
 *                                      MT_INLINE, AS-safe.
 * uint64_t mt_pal_clock_ns(void)       a monotonic clock in nanoseconds (0 if
 *                                      none). AS-safe.
 * void mt_pal_yield(void)              give the processor to another thread
 *                                      (freestanding: a pause instruction).
 *                                      MT_INLINE, AS-safe.
 * mt_pal_cpuset                        a set of up to 1024 CPU numbers, one bit
 *                                      each in words[]: bit c % 64 of word
 *                                      c / 64.
 * bool mt_pal_affinity_get(mt_pal_cpuset *s)
 *                                      the CPUs the calling thread may run on;
 *                                      false if unknown. AS-safe.
 * bool mt_pal_affinity_pin(int cpu)    restrict the calling thread to cpu;
 *                                      false if refused. AS-safe.
 * long mt_pal_read_file(const char *path, char *buf, size_t cap)
 *                                      the first cap - 1 bytes of a small
 *                                      file (sysfs, /proc) into buf, NUL
 *                                      terminated; the byte count, or -1 if it
 *                                      cannot be read (cap >= 1). AS-safe
 *                                      (open, read, close). Freestanding: -1.
 *
 * ---- futex ----
 * long mt_pal_futex(_Atomic(uint32_t) *addr, int op, uint32_t val,
 *                   const mt_pal_timeout *timeout, uint32_t bits)
 *                                      the Linux futex operations on a
 *                                      process-private word, op one of
 *                                      MT_PAL_FUTEX_{WAIT, WAKE, WAIT_BITSET,
 *                                      WAKE_BITSET}: returns the kernel's
 *                                      answer (>= 0, or -errno, e.g.
 *                                      -MT_PAL_ETIMEDOUT; wake returns the
 *                                      number woken). Raw system call: errno
 *                                      untouched, no C library. Where
 *                                      MT_PAL_HAVE_FUTEX is 0 a wait yields
 *                                      once and returns 0 and a wake returns
 *                                      0: every caller re-checks its
 *                                      condition in a loop, so that is a
 *                                      polling wait. MT_INLINE, AS-safe.
 *
 * ---- threads ----
 * uintptr_t mt_pal_thread_self(void)   an identity of the calling thread,
 *                                      distinct between live threads.
 *                                      AS-safe. Freestanding: 1.
 * mt_pal_key                           a thread-exit key.
 * bool mt_pal_key_create(mt_pal_key *k, void (*done)(void *))
 *                                      make a key whose done(value) runs when
 *                                      a thread that set a non-NULL value
 *                                      ends; false if none is left. Does not
 *                                      allocate for the first 32 keys of a
 *                                      process (glibc's static keys).
 * void mt_pal_key_set(mt_pal_key k, void *value)
 *                                      the calling thread's value for k; no
 *                                      allocation for those first 32 keys.
 * bool mt_pal_atfork(void (*prepare)(void), void (*parent)(void),
 *                    void (*child)(void))
 *                                      run the three around every fork();
 *                                      false if refused. Freestanding: false.
 * bool mt_pal_thread_start(void *(*fn)(void *), void *arg, size_t stack)
 *                                      start a detached thread running fn(arg)
 *                                      with `stack` bytes of stack and every
 *                                      signal blocked (no handler of the
 *                                      program ever runs on it); false if it
 *                                      could not start. The C library maps
 *                                      the stack itself, it does not call
 *                                      malloc for it. Freestanding: false.
 * mt_pal_mutex, mt_pal_mutex_init / _lock / _unlock
 *                                      the platform's sleeping mutex (pthread:
 *                                      zero-filled is unlocked on glibc and
 *                                      musl). Freestanding (single thread): a
 *                                      flag.
 * mt_pal_spin, mt_pal_spin_init / _trylock / _unlock
 *                                      the platform's spin lock word (pthread
 *                                      spinlock; zero-filled is NOT valid on
 *                                      glibc x86-64: init first). trylock
 *                                      returns true when it took the lock.
 *
 * ---- output ----
 * bool mt_pal_write_all(int fd, const void *buf, size_t len)
 *                                      write all of buf, retrying after
 *                                      signals and short writes; false on an
 *                                      error, with errno set. AS-safe.
 *                                      Freestanding: does nothing, true (the
 *                                      line goes nowhere: MT_REPORT_WRITE
 *                                      sends reports somewhere).
 * int mt_pal_open_write(const char *path)
 *                                      create or truncate a file for writing
 *                                      (mode 0644, close-on-exec): a file
 *                                      descriptor, or -1 with errno set.
 *                                      AS-safe. Freestanding: -1.
 * int mt_pal_dup_fd(int fd, int lowest)
 *                                      a close-on-exec copy of fd numbered at
 *                                      least `lowest`, or -1. AS-safe.
 * void mt_pal_close(int fd)            close it. AS-safe.
 * long mt_pal_pid(void)                the process id (changes in a fork
 *                                      child). AS-safe. Freestanding: 1.
 * long mt_pal_tid(void)                the calling thread's id as the OS
 *                                      tools show it (Linux: gettid, the
 *                                      LWP column of ps -L, top -H).
 *                                      AS-safe. Freestanding: 1.
 *
 * The malloc(3) interface a hosted socket implements (struct mallinfo, FILE,
 * fprintf for malloc_stats) is the C library's own: pal/libc.h is the one
 * header that includes <stdio.h> and <malloc.h> for it.
 */
#include "../core/platform.h" /* attributes; platform.h includes this header back */

#ifndef MORTISE_PAL_PAL_H
#define MORTISE_PAL_PAL_H

typedef struct {
    long sec, nsec;
} mt_pal_timeout; /* the kernel's 64-bit timespec */
typedef struct {
    uint64_t words[16];
} mt_pal_cpuset;

enum {
    MT_PAL_FUTEX_WAIT = 0,
    MT_PAL_FUTEX_WAKE = 1,
    MT_PAL_FUTEX_WAIT_BITSET = 9,
    MT_PAL_FUTEX_WAKE_BITSET = 10,
    MT_PAL_FUTEX_PRIVATE = 128,
    MT_PAL_ETIMEDOUT = 110, /* Linux's number, returned negated by mt_pal_futex */
};

#if defined(MT_FREESTANDING)
#include "pal_freestanding.h"
#elif defined(_WIN32)
#include "pal_windows.h"
#else
#include "pal_linux.h"
#endif

/* The cycle counter depends on the CPU alone, so every port shares it. */
MT_INLINE uint64_t mt_pal_cycles(void)
{
#if defined(__x86_64__) || defined(__i386__)
    return __builtin_ia32_rdtsc();
#elif defined(__aarch64__)
    uint64_t v;
    __asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(v));
    return v;
#else
    return 0;
#endif
}

#endif

/* mortise/pal/pal_windows.h — the port layer on 64-bit Windows, built with
 * mingw-w64 over msvcrt and run under Windows or wine (docs/portability.md).
 * The contract, function by function, is pal.h; this header is the only
 * place a Windows build includes <windows.h> and the CRT's headers.
 *
 * What differs from Linux, and why:
 *   - memory: mt_pal_map reserves and commits in one VirtualAlloc (Windows
 *     has no commit-free private mapping: a large map is charged against
 *     the commit limit). Windows releases only whole reservations, so
 *     mt_pal_unmap decommits a part and releases the reservation once no
 *     page of it is committed any more (os_mmap.h trims an aligned map's
 *     ends that way). advise_dontneed decommits and commits again: the
 *     pages read zeros afterwards, as the contract wants. reserve, commit
 *     and decommit are MEM_RESERVE, MEM_COMMIT and MEM_DECOMMIT: the OS
 *     layer that wants the charge to follow its use (virtual_alloc_heap)
 *     is built on them.
 *   - the program break is emulated in a reservation of its own (brk_heap
 *     runs over it); no remap, no fork, no dlsym(RTLD_NEXT): those
 *     functions fail as pal.h says and the layers fall back (mmap_heap
 *     copies; malloc_heap is not ported).
 *   - the futex is WaitOnAddress / WakeByAddress{Single,All} (link
 *     -lsynchronization); the bitset forms wake every waiter, which every
 *     caller tolerates (each re-checks its condition).
 *   - thread-exit keys are fiber-local slots (FlsAlloc with a callback), which
 *     Windows runs when a thread that set a value ends.
 *   - thread-local variables (MT_TLS) are gcc's emulated TLS on mingw-w64,
 *     which allocates each variable's copy with malloc the first time a
 *     thread touches it: a library that replaces malloc must keep that from
 *     re-entering it (sockets/family.h, the boot arena below).
 */
#ifndef MORTISE_PAL_PAL_WINDOWS_H
#define MORTISE_PAL_PAL_WINDOWS_H

#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>
#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <stdlib.h>
#include <sys/stat.h>

/* ---- C library state ---- */

#define MT_ENOMEM ENOMEM
#define MT_EINVAL EINVAL
#define MT_EINTR EINTR

MT_INLINE int mt_pal_errno(void) { return errno; }
MT_INLINE void mt_pal_set_errno(int e) { errno = e; }

static inline const char *mt_pal_getenv(const char *name) { return getenv(name); }

/* Windows hands a process no random bytes at start (no AT_RANDOM). */
static inline bool mt_pal_random_seed(uint64_t *out)
{
    (void)out;
    return false;
}

__attribute__((noreturn)) static inline void mt_pal_abort(void) { abort(); }

/* GetProcAddress needs a module to ask: there is no "the next one after me". */
#define MT_PAL_HAVE_NEXT_SYMBOL 0
static inline void *mt_pal_next_symbol(const char *name)
{
    (void)name;
    return NULL;
}

/* ---- pages ---- */

/* GetSystemInfo's page size (granularity false) or allocation granularity
 * (true), read once. */
static inline size_t mt_pal_system_unit(bool granularity)
{
    static _Atomic(size_t) cached[2];
    size_t n = atomic_load_explicit(&cached[granularity], memory_order_relaxed);
    if (MT_LIKELY(n))
        return n;
    SYSTEM_INFO si;
    GetSystemInfo(&si);
    n = granularity ? si.dwAllocationGranularity : si.dwPageSize;
    atomic_store_explicit(&cached[granularity], n, memory_order_relaxed);
    return n;
}

static inline size_t mt_pal_page_size(void) { return mt_pal_system_unit(false); }

/* The unit VirtualAlloc reserves in (64 KiB): every reservation starts on
 * it. Windows only; os_mmap.h's alignment needs no more than a page. */
static inline size_t mt_pal_allocation_granularity(void) { return mt_pal_system_unit(true); }

static inline void *mt_pal_map(size_t len)
{
    DWORD saved = GetLastError();
    void *p = VirtualAlloc(NULL, len, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
    SetLastError(saved);
    return p;
}

static inline void *mt_pal_reserve(size_t len)
{
    DWORD saved = GetLastError();
    void *p = VirtualAlloc(NULL, len, MEM_RESERVE, PAGE_READWRITE);
    SetLastError(saved);
    return p;
}

static inline bool mt_pal_commit(void *p, size_t len)
{
    DWORD saved = GetLastError();
    bool ok = VirtualAlloc(p, len, MEM_COMMIT, PAGE_READWRITE) != NULL;
    SetLastError(saved);
    return ok;
}

/* A reservation none of whose pages is committed any more is released. */
static inline void mt_pal_release_if_empty(void *base)
{
    MEMORY_BASIC_INFORMATION mi;
    char *at = base;
    for (;;) {
        if (!VirtualQuery(at, &mi, sizeof mi) || mi.AllocationBase != base)
            break; /* past the reservation: every region of it was reserved only */
        if (mi.State == MEM_COMMIT)
            return;
        at = (char *)mi.BaseAddress + mi.RegionSize;
    }
    VirtualFree(base, 0, MEM_RELEASE);
}

/* Decommit [p, p + len) region by region (a range may cross reservations:
 * VirtualFree refuses one call across them); release each reservation it
 * leaves empty when `release`. */
static inline void mt_pal_decommit_range(char *p, size_t len, bool release)
{
    char *end = p + len;
    while (p < end) {
        MEMORY_BASIC_INFORMATION mi;
        if (!VirtualQuery(p, &mi, sizeof mi) || mi.State == MEM_FREE)
            return;
        char *region_end = (char *)mi.BaseAddress + mi.RegionSize;
        char *stop = region_end < end ? region_end : end;
        if (mi.State == MEM_COMMIT)
            VirtualFree(p, (size_t)(stop - p), MEM_DECOMMIT);
        if (release && (stop == region_end || stop == end))
            mt_pal_release_if_empty(mi.AllocationBase);
        p = stop;
    }
}

static inline void mt_pal_unmap(void *p, size_t len)
{
    DWORD saved = GetLastError();
    mt_pal_decommit_range(p, len, true);
    SetLastError(saved);
}

/* Decommit without release: the reservation stays for the next commit. */
static inline void mt_pal_decommit(void *p, size_t len)
{
    DWORD saved = GetLastError();
    mt_pal_decommit_range(p, len, false);
    SetLastError(saved);
}

static inline void mt_pal_advise_dontneed(void *p, size_t len)
{
    size_t page = mt_pal_page_size();
    uintptr_t start = ((uintptr_t)p + page - 1) & ~(uintptr_t)(page - 1);
    uintptr_t end = ((uintptr_t)p + len) & ~(uintptr_t)(page - 1);
    if (end <= start)
        return;
    DWORD saved = GetLastError();
    mt_pal_decommit_range((char *)start, end - start, false);
    /* committed again at once: the range stays usable and reads zeros */
    for (char *at = (char *)start; at < (char *)end;) {
        MEMORY_BASIC_INFORMATION mi;
        if (!VirtualQuery(at, &mi, sizeof mi) || mi.State == MEM_FREE)
            break;
        char *region_end = (char *)mi.BaseAddress + mi.RegionSize;
        char *stop = region_end < (char *)end ? region_end : (char *)end;
        VirtualAlloc(at, (size_t)(stop - at), MEM_COMMIT, PAGE_READWRITE);
        at = stop;
    }
    SetLastError(saved);
}

static inline void mt_pal_advise_hugepage(void *p, size_t len) { (void)p, (void)len; }

#define MT_PAL_HAVE_REMAP 0
static inline void *mt_pal_remap(void *p, size_t old_len, size_t new_len, void *dest)
{
    (void)p, (void)old_len, (void)new_len, (void)dest;
    return NULL;
}

/* Committed: what a touch may read (a reserved-only page faults). */
static inline bool mt_pal_page_mapped(const void *a)
{
    MEMORY_BASIC_INFORMATION mi;
    DWORD saved = GetLastError();
    bool mapped = VirtualQuery(a, &mi, sizeof mi) && mi.State == MEM_COMMIT;
    SetLastError(saved);
    return mapped;
}

/* Windows has no program break: one emulated. A 64 GiB reservation made at
 * the first call (address space only) is the break's range; moving the break
 * up commits the pages it covers, moving it down decommits the whole pages
 * it leaves (they read zeros when the break comes back over them, as fresh
 * brk memory does). Not thread-safe, like sbrk: brk_heap locks around it. */
#define MT_PAL_BRK_RANGE ((size_t)64 << 30)
static struct {
    char *base, *at;
} mt_pal_break MT_UNUSED;

static inline void *mt_pal_brk(intptr_t increment)
{
    DWORD saved = GetLastError();
    void *old = NULL;
    if (!mt_pal_break.base)
        mt_pal_break.base = mt_pal_break.at =
            VirtualAlloc(NULL, MT_PAL_BRK_RANGE, MEM_RESERVE, PAGE_READWRITE);
    char *base = mt_pal_break.base, *at = mt_pal_break.at;
    size_t page = mt_pal_page_size();
    if (!base) {
    } else if (increment >= 0) {
        if ((size_t)increment <= MT_PAL_BRK_RANGE - (size_t)(at - base)) {
            char *from = (char *)mt_align_up((uintptr_t)at, page);
            char *to = (char *)mt_align_up((uintptr_t)(at + increment), page);
            if (to <= from || VirtualAlloc(from, (size_t)(to - from), MEM_COMMIT, PAGE_READWRITE)) {
                old = at;
                mt_pal_break.at = at + increment;
            }
        }
    } else if ((size_t)-increment <= (size_t)(at - base)) {
        char *to = at + increment;
        char *from = (char *)mt_align_up((uintptr_t)to, page);
        char *end = (char *)mt_align_up((uintptr_t)at, page);
        if (end > from)
            VirtualFree(from, (size_t)(end - from), MEM_DECOMMIT);
        old = at;
        mt_pal_break.at = to;
    }
    SetLastError(saved);
    return old;
}

/* ---- CPU and time ---- */

/* The processor number within the thread's group (at most 64 each): the
 * machines this port runs on have one group. */
MT_INLINE int mt_pal_cpu(void) { return (int)GetCurrentProcessorNumber(); }

static inline uint64_t mt_pal_clock_ns(void)
{
    LARGE_INTEGER count, freq;
    if (!QueryPerformanceCounter(&count) || !QueryPerformanceFrequency(&freq) || freq.QuadPart <= 0)
        return 0;
    return mt_muldiv_u64((uint64_t)count.QuadPart, 1000000000u, (uint64_t)freq.QuadPart, false);
}

MT_INLINE void mt_pal_yield(void) { SwitchToThread(); }

static inline bool mt_pal_affinity_get(mt_pal_cpuset *s)
{
    DWORD_PTR process_mask, system_mask;
    if (!GetProcessAffinityMask(GetCurrentProcess(), &process_mask, &system_mask))
        return false;
    /* a thread's own mask is only readable by setting it: set the
     * process's and put the old one back */
    HANDLE self = GetCurrentThread();
    DWORD_PTR mine = SetThreadAffinityMask(self, process_mask);
    if (mine)
        SetThreadAffinityMask(self, mine);
    else
        mine = process_mask;
    __builtin_memset(s, 0, sizeof *s);
    s->words[0] = (uint64_t)mine;
    return true;
}

static inline bool mt_pal_affinity_pin(int cpu)
{
    if (cpu < 0 || cpu >= 64)
        return false;
    return SetThreadAffinityMask(GetCurrentThread(), (DWORD_PTR)1 << cpu) != 0;
}

static inline long mt_pal_read_file(const char *path, char *buf, size_t cap)
{
    DWORD saved = GetLastError();
    long n = -1;
    HANDLE h = CreateFileA(path, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL, OPEN_EXISTING,
                           FILE_ATTRIBUTE_NORMAL, NULL);
    if (h != INVALID_HANDLE_VALUE) {
        DWORD got;
        if (ReadFile(h, buf, (DWORD)(cap - 1 > 0x7fffffff ? 0x7fffffff : cap - 1), &got, NULL))
            n = (long)got;
        CloseHandle(h);
    }
    buf[n > 0 ? n : 0] = 0;
    SetLastError(saved);
    return n;
}

/* ---- futex: WaitOnAddress ---- */

#if !defined(MT_NO_THREADS)
#define MT_PAL_HAVE_FUTEX 1
#else
#define MT_PAL_HAVE_FUTEX 0
#endif

MT_INLINE long mt_pal_futex(_Atomic(uint32_t) *addr, int op, uint32_t val, const mt_pal_timeout *timeout,
                            uint32_t bits)
{
    (void)bits; /* no bitset on Windows: a bitset wake wakes everyone */
#if MT_PAL_HAVE_FUTEX
    op &= ~MT_PAL_FUTEX_PRIVATE;
    if (op == MT_PAL_FUTEX_WAKE || op == MT_PAL_FUTEX_WAKE_BITSET) {
        if (op == MT_PAL_FUTEX_WAKE && val == 1)
            WakeByAddressSingle((void *)addr);
        else
            WakeByAddressAll((void *)addr);
        return 0; /* Windows does not count the threads it woke */
    }
    DWORD ms = INFINITE;
    if (timeout) {
        uint64_t t = (uint64_t)timeout->sec * 1000u + (uint64_t)(timeout->nsec + 999999) / 1000000u;
        ms = t >= INFINITE ? INFINITE - 1 : (DWORD)t;
    }
    DWORD saved = GetLastError();
    long r = 0;
    if (!WaitOnAddress((volatile void *)addr, &val, sizeof val, ms) && GetLastError() == ERROR_TIMEOUT)
        r = -MT_PAL_ETIMEDOUT;
    SetLastError(saved);
    return r;
#else
    (void)addr, (void)val, (void)timeout;
    if (op != MT_PAL_FUTEX_WAKE && op != MT_PAL_FUTEX_WAKE_BITSET)
        mt_pal_yield();
    return 0;
#endif
}

/* ---- threads ---- */

static inline uintptr_t mt_pal_thread_self(void) { return (uintptr_t)GetCurrentThreadId(); }

typedef DWORD mt_pal_key;

/* Windows declares the callback WINAPI, the same convention as C's on
 * x86-64: the cast changes the type's spelling only. */
static inline bool mt_pal_key_create(mt_pal_key *k, void (*done)(void *))
{
    DWORD slot = FlsAlloc((PFLS_CALLBACK_FUNCTION)(void (*)(void))done);
    if (slot == FLS_OUT_OF_INDEXES)
        return false;
    *k = slot;
    return true;
}
static inline void mt_pal_key_set(mt_pal_key k, void *value) { FlsSetValue(k, value); }

static inline bool mt_pal_atfork(void (*prepare)(void), void (*parent)(void), void (*child)(void))
{
    (void)prepare, (void)parent, (void)child;
    return false; /* no fork */
}

/* fn and arg cross to the new thread on the starter's stack: it waits until
 * the thread has copied them (nothing is allocated for them). */
struct mt_pal_thread_start_args {
    void *(*fn)(void *);
    void *arg;
    _Atomic(int) taken;
};

static DWORD WINAPI MT_UNUSED mt_pal_thread_trampoline(LPVOID raw)
{
    struct mt_pal_thread_start_args *start = raw;
    void *(*fn)(void *) = start->fn;
    void *arg = start->arg;
    atomic_store_explicit(&start->taken, 1, memory_order_release);
    fn(arg);
    return 0;
}

static inline bool mt_pal_thread_start(void *(*fn)(void *), void *arg, size_t stack)
{
    struct mt_pal_thread_start_args start = {fn, arg, 0};
    DWORD saved = GetLastError();
    HANDLE h =
        CreateThread(NULL, stack, mt_pal_thread_trampoline, &start, STACK_SIZE_PARAM_IS_A_RESERVATION, NULL);
    SetLastError(saved);
    if (!h)
        return false;
    CloseHandle(h); /* detached */
    while (!atomic_load_explicit(&start.taken, memory_order_acquire))
        SwitchToThread();
    return true;
}

/* A slim reader/writer lock: zero-filled is unlocked, no allocation. */
typedef SRWLOCK mt_pal_mutex;
MT_INLINE void mt_pal_mutex_init(mt_pal_mutex *m) { InitializeSRWLock(m); }
MT_INLINE void mt_pal_mutex_lock(mt_pal_mutex *m) { AcquireSRWLockExclusive(m); }
MT_INLINE void mt_pal_mutex_unlock(mt_pal_mutex *m) { ReleaseSRWLockExclusive(m); }

/* Windows has no spin lock object: a word, 0 free, 1 held. */
typedef _Atomic(int) mt_pal_spin;
MT_INLINE void mt_pal_spin_init(mt_pal_spin *s) { atomic_store_explicit(s, 0, memory_order_relaxed); }
MT_INLINE bool mt_pal_spin_trylock(mt_pal_spin *s)
{
    return !atomic_exchange_explicit(s, 1, memory_order_acquire);
}
MT_INLINE void mt_pal_spin_unlock(mt_pal_spin *s) { atomic_store_explicit(s, 0, memory_order_release); }

/* ---- output ---- */

/* WriteFile on the descriptor's handle: binary (no "\r\n" for "\n") and
 * without the CRT's per-descriptor lock. */
static inline bool mt_pal_write_all(int fd, const void *buf, size_t len)
{
    intptr_t raw = _get_osfhandle(fd);
    if (raw == -1 || raw == -2) {
        errno = EBADF;
        return false;
    }
    const char *p = buf;
    while (len) {
        DWORD chunk = len > 0x40000000u ? 0x40000000u : (DWORD)len, wrote = 0;
        if (!WriteFile((HANDLE)raw, p, chunk, &wrote, NULL) || wrote == 0) {
            errno = EIO;
            return false;
        }
        p += wrote;
        len -= wrote;
    }
    return true;
}

static inline int mt_pal_open_write(const char *path)
{
    return _open(path, _O_WRONLY | _O_CREAT | _O_TRUNC | _O_BINARY | _O_NOINHERIT, _S_IREAD | _S_IWRITE);
}

/* _dup takes the lowest free number: duplicate until one is high enough,
 * then close the low ones taken on the way. */
static inline int mt_pal_dup_fd(int fd, int lowest)
{
    int saved = errno, low[64], nlow = 0, copy = -1;
    while (nlow < 64) {
        copy = _dup(fd);
        if (copy < 0 || copy >= lowest)
            break;
        low[nlow++] = copy;
        copy = -1;
    }
    while (nlow)
        _close(low[--nlow]);
    errno = saved;
    return copy;
}

static inline void mt_pal_close(int fd)
{
    int saved = errno;
    _close(fd);
    errno = saved;
}

static inline long mt_pal_pid(void) { return (long)GetCurrentProcessId(); }
static inline long mt_pal_tid(void)
{
    return (long)GetCurrentThreadId();
} /* Task Manager's, Process Explorer's */

/* ---- Windows only: the boot arena ----
 * gcc's emulated TLS (mingw-w64 has no native TLS) allocates a thread's copy
 * of each thread-local variable with malloc the first time the thread
 * touches it. In a library that replaces malloc that first touch happens
 * inside malloc, and the copy's malloc would enter the allocator again. The
 * socket marks the thread while it is inside (a TlsAlloc slot: not emulated
 * TLS) and serves a nested call from this arena: power-of-two blocks from 16
 * bytes to 1 MiB, a free list per size, one reserved region (so ownership
 * is a range check), one lock. Only the emulated-TLS copies (a few hundred
 * bytes per thread) come from it. */
#define MT_PAL_BOOT_ARENA ((size_t)256 << 20)
#define MT_PAL_BOOT_CLASSES 17 /* 16 B .. 1 MiB */
#define MT_PAL_BOOT_HEADER ((size_t)16)

static struct {
    _Atomic(uintptr_t) base;   /* the reserved region, 0 before the first use */
    _Atomic(DWORD) slot_plus1; /* the "inside" TLS slot + 1, 0 before the first use */
    SRWLOCK lock;
    size_t used; /* bytes handed out from the region's start */
    size_t committed;
    void *free_list[MT_PAL_BOOT_CLASSES];
} mt_pal_boot MT_UNUSED;

static inline DWORD mt_pal_boot_slot(void)
{
    DWORD s = atomic_load_explicit(&mt_pal_boot.slot_plus1, memory_order_acquire);
    if (MT_LIKELY(s))
        return s - 1;
    DWORD fresh = TlsAlloc(), expect = 0;
    if (fresh == TLS_OUT_OF_INDEXES)
        mt_pal_abort();
    if (!atomic_compare_exchange_strong(&mt_pal_boot.slot_plus1, &expect, fresh + 1)) {
        TlsFree(fresh); /* another thread's slot won */
        return expect - 1;
    }
    return fresh;
}

/* Marks the calling thread inside the allocator: false when it already was
 * (the caller is nested and must use the boot arena). */
static inline bool mt_pal_boot_enter(void)
{
    DWORD saved = GetLastError(), slot = mt_pal_boot_slot();
    bool outer = TlsGetValue(slot) == NULL;
    if (outer)
        TlsSetValue(slot, (void *)1);
    SetLastError(saved);
    return outer;
}

static inline void mt_pal_boot_leave(void)
{
    DWORD saved = GetLastError();
    TlsSetValue(mt_pal_boot_slot(), NULL);
    SetLastError(saved);
}

static inline bool mt_pal_boot_owns(const void *p)
{
    uintptr_t base = atomic_load_explicit(&mt_pal_boot.base, memory_order_acquire);
    return base && (uintptr_t)p - base < MT_PAL_BOOT_ARENA;
}

static inline size_t mt_pal_boot_size(const void *p) { return ((const size_t *)p)[-2]; }

static inline void *mt_pal_boot_alloc(size_t size)
{
    unsigned cls = 0;
    while (((size_t)16 << cls) < size)
        if (++cls == MT_PAL_BOOT_CLASSES)
            return NULL;
    size_t block = ((size_t)16 << cls) + MT_PAL_BOOT_HEADER;
    DWORD saved = GetLastError();
    if (!atomic_load_explicit(&mt_pal_boot.base, memory_order_acquire)) {
        void *region = VirtualAlloc(NULL, MT_PAL_BOOT_ARENA, MEM_RESERVE, PAGE_READWRITE);
        uintptr_t expect = 0;
        if (region && !atomic_compare_exchange_strong(&mt_pal_boot.base, &expect, (uintptr_t)region))
            VirtualFree(region, 0, MEM_RELEASE);
    }
    char *base = (char *)atomic_load_explicit(&mt_pal_boot.base, memory_order_acquire);
    char *p = NULL;
    if (base) {
        AcquireSRWLockExclusive(&mt_pal_boot.lock);
        if ((p = mt_pal_boot.free_list[cls]) != NULL) {
            mt_pal_boot.free_list[cls] = *(void **)p;
        } else if (mt_pal_boot.used + block <= MT_PAL_BOOT_ARENA) {
            size_t end = mt_pal_boot.used + block;
            if (end > mt_pal_boot.committed) {
                size_t grow = mt_align_up(end - mt_pal_boot.committed, (size_t)1 << 20);
                if (mt_pal_boot.committed + grow > MT_PAL_BOOT_ARENA)
                    grow = MT_PAL_BOOT_ARENA - mt_pal_boot.committed;
                if (VirtualAlloc(base + mt_pal_boot.committed, grow, MEM_COMMIT, PAGE_READWRITE))
                    mt_pal_boot.committed += grow;
            }
            if (end <= mt_pal_boot.committed) {
                p = base + mt_pal_boot.used + MT_PAL_BOOT_HEADER;
                mt_pal_boot.used = end;
            }
        }
        ReleaseSRWLockExclusive(&mt_pal_boot.lock);
    }
    SetLastError(saved);
    if (p) {
        ((size_t *)p)[-2] = (size_t)16 << cls;
        ((size_t *)p)[-1] = cls;
        __builtin_memset(p, 0, (size_t)16 << cls); /* calloc's callers rely on it */
    }
    return p;
}

static inline void mt_pal_boot_free(void *p)
{
    size_t cls = ((size_t *)p)[-1];
    AcquireSRWLockExclusive(&mt_pal_boot.lock);
    *(void **)p = mt_pal_boot.free_list[cls];
    mt_pal_boot.free_list[cls] = p;
    ReleaseSRWLockExclusive(&mt_pal_boot.lock);
}

#endif

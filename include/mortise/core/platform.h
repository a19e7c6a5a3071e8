/* mortise/core/platform.h — what every layer needs from the compiler and
 * the CPU: attributes, atomics, thread-local storage, the page and granule
 * constants, alignment arithmetic and the spin-wait hint.
 *
 * Everything that needs the operating system or the C library (mapping
 * memory, futexes, the current CPU, clocks, threads, files, the environment,
 * errno) is the port layer's: include/mortise/pal/pal.h, which this header
 * includes, so any header that includes platform.h has the mt_pal_*
 * functions too. Porting Mortise to another compiler means editing this
 * header; to another OS, writing a pal_<os>.h (docs/port.md).
 *
 * Preconditions stated once: C11 with <stdatomic.h>; a compiler understanding
 * GNU attributes (gcc, clang); a flat address space of at most 48 significant bits
 * for user pointers on 64-bit targets (the page map relies on it).
 */
#ifndef MORTISE_CORE_PLATFORM_H
#define MORTISE_CORE_PLATFORM_H

#include <stddef.h>
#include <stdint.h>
#include <stdatomic.h>
#include <stdbool.h>

#define MT_CAT_(a, b) a##b
#define MT_CAT(a, b) MT_CAT_(a, b)
#define MT_STR_(a) #a
#define MT_STR(a) MT_STR_(a)

/* Fast path is always inlined; slow paths are kept out of line and cold so the
 * fast path stays short enough to count. */
#define MT_INLINE static inline __attribute__((always_inline))
#define MT_SLOW static __attribute__((noinline, cold))
/* Out of line but not cold: the batch paths a cache's refill and flush run
 * once per run of blocks (alloc_batch, free_batch and their loops). They
 * are rare per call but their loops are the steady state of a program that
 * allocates or frees a large population at once, so they are optimised for
 * speed (a cold function is optimised for size: its helpers stay calls). */
#define MT_NOINLINE_HOT static __attribute__((noinline, hot))
#define MT_UNUSED __attribute__((unused))
#define MT_LIKELY(x) __builtin_expect(!!(x), 1)
#define MT_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define MT_EXPORT __attribute__((visibility("default")))
#define MT_CACHELINE 64
#define MT_CACHE_ALIGNED __attribute__((aligned(MT_CACHELINE)))

/* Thread-local storage. The initial-exec model turns a TLS access into one
 * %fs-relative load even inside a shared library; it requires the library to be
 * loaded at start-up (linked or LD_PRELOAD), which is how allocators are used. */
#if defined(MT_NO_THREADS)
#define MT_TLS
#else
#define MT_TLS _Thread_local __attribute__((tls_model("initial-exec")))
#endif

/* Atomics: thin names over C11 so layer code reads as the algorithm. */
#define mt_load_relaxed(p) atomic_load_explicit((p), memory_order_relaxed)
#define mt_load_acquire(p) atomic_load_explicit((p), memory_order_acquire)
#define mt_store_relaxed(p, v) atomic_store_explicit((p), (v), memory_order_relaxed)
#define mt_store_release(p, v) atomic_store_explicit((p), (v), memory_order_release)
#define mt_faa(p, v) atomic_fetch_add_explicit((p), (v), memory_order_acq_rel)
#define mt_fas(p, v) atomic_exchange_explicit((p), (v), memory_order_acq_rel)
/* Strong: a failed mt_cas means another thread changed *p (callers treat a
 * failure as "someone else won"); loops that retry anyway may use the weak form. */
#define mt_cas(p, expected, desired)                                                          \
    atomic_compare_exchange_strong_explicit((p), (expected), (desired), memory_order_acq_rel, \
                                            memory_order_acquire)

MT_INLINE void mt_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* Ask for the cache line holding `a` ahead of a read that would otherwise
 * stall on it; a hint that never faults, so any address will do. */
MT_INLINE void mt_prefetch(const void *a) { __builtin_prefetch(a, 0, 3); }

/* The smallest base page a build supports: a size that needs no agreement
 * with the OS (a carve batch, the alignment of page-map leaves). What the OS
 * uses is mt_page_size(), read at run time: arm64 kernels use 4, 16 or
 * 64 KiB. A freestanding embedder with larger pages raises it. */
#ifndef MT_PAGE_SIZE
#define MT_PAGE_SIZE ((size_t)4096)
#endif

/* Granule of ownership: every block the OS layer hands out is aligned to and a
 * multiple of this, and the page map records one owner per granule. */
#ifndef MT_GRANULE_SHIFT
#define MT_GRANULE_SHIFT 16
#endif
#define MT_GRANULE ((size_t)1 << MT_GRANULE_SHIFT)

/* Smallest alignment every allocation has (max_align_t on x86-64 and aarch64). */
#define MT_MIN_ALIGN ((size_t)16)

/* Largest request any layer accepts; larger ones fail with ENOMEM before they
 * reach a layer, so no layer has to think about overflow when rounding up. */
#define MT_MAX_REQUEST ((size_t)PTRDIFF_MAX - 2 * MT_GRANULE)

MT_INLINE size_t mt_align_up(size_t n, size_t a) { return (n + a - 1) & ~(a - 1); }
MT_INLINE uintptr_t mt_align_down_ptr(uintptr_t p, size_t a) { return p & ~(uintptr_t)(a - 1); }
#define mt_is_pow2_const(n) ((n) > 0 && ((n) & ((n)-1)) == 0)
MT_INLINE bool mt_is_pow2(size_t n) { return n && !(n & (n - 1)); }
MT_INLINE unsigned mt_log2_floor(size_t n) { return (unsigned)(63 - __builtin_clzll(n)); }
MT_INLINE unsigned mt_log2_ceil(size_t n) { return n <= 1 ? 0 : mt_log2_floor(n - 1) + 1; }

/* floor(a * b / c), or its ceiling when up, for a quotient that fits 64
 * bits (statistics: cycles to ns, percentile ranks, scaled budgets). The
 * product is exact: __int128 where the compiler has it, else (32-bit
 * targets) two words and a long division one bit at a time — 128 steps,
 * which is why nothing on a request path calls it. */
static inline uint64_t mt_muldiv_u64(uint64_t a, uint64_t b, uint64_t c, bool up)
{
#if defined(__SIZEOF_INT128__) && !defined(MT_MULDIV_PORTABLE)
    __extension__ typedef unsigned __int128 wide;
    return (uint64_t)(((wide)a * b + (up ? c - 1 : 0)) / c);
#else
    uint64_t al = (uint32_t)a, ah = a >> 32, bl = (uint32_t)b, bh = b >> 32;
    uint64_t ll = al * bl, lh = al * bh, hl = ah * bl;
    uint64_t mid = (ll >> 32) + (uint32_t)lh + (uint32_t)hl;
    uint64_t lo = mid << 32 | (uint32_t)ll, hi = ah * bh + (lh >> 32) + (hl >> 32) + (mid >> 32);
    if (up) {
        lo += c - 1;
        hi += lo < c - 1;
    }
    uint64_t q = 0, r = 0;
    for (int i = 127; i >= 0; i--) {
        bool carry = r >> 63;
        r = r << 1 | ((i >= 64 ? hi >> (i - 64) : lo >> i) & 1);
        q <<= 1;
        if (carry || r >= c) {
            r -= c;
            q |= 1;
        }
    }
    return q;
#endif
}

/* The OS and C library services (and MT_ENOMEM, the errno value layers
 * report in ctx->err). Included here, after the attributes it uses. */
#include "../pal/pal.h"

/* The OS's base page (valloc, pvalloc, anything given back to the OS by the
 * page): the port's answer, MT_PAGE_SIZE where the port cannot say. */
static inline size_t mt_page_size(void)
{
    size_t n = mt_pal_page_size();
    return n ? n : MT_PAGE_SIZE;
}

/* Cycle counter for latency statistics (wcet_stat); monotonic per core. */
MT_INLINE uint64_t mt_cycles(void) { return mt_pal_cycles(); }

/* Give the processor away while waiting: on a machine with fewer cores than
 * threads a spinning waiter would otherwise burn the holder's time slice. */
MT_INLINE void mt_yield(void) { mt_pal_yield(); }

/* A one-time lazy initialisation that a fork cannot leave half done
 * (docs/fork.md). The word is 0 before the run, a final value of the
 * caller's choice after it (any value v != 0 with (v & 3) != 1: 2 and 3
 * serve "ready" and "failed"), and while the run is under way the runner's
 * process id times 4 plus 1. A fork child inherits a run under way with no
 * thread to finish it; the first caller in the child sees another process's
 * id there and takes the run over instead of waiting for ever.
 *     uintptr_t v = mt_load_acquire(&w);
 *     if (v == 0 || (v & 3) == 1)            // not done yet: the slow path
 *         if ((v = mt_once_enter(&w)) == 0)  // ours to run
 *             mt_once_leave(&w, v = run() ? 2 : 3);
 * mt_once_enter answers 0 to the one caller that is to run the
 * initialisation (the first, or one taking over a copied run), else the
 * final value, waiting (yielding) while another thread of this process runs
 * it. An initialisation must not wait for anything its caller may hold. A
 * taken-over run starts again from the beginning: it must cope with what a
 * run cut short left (they all only fill in or overwrite). Tests hold a
 * runner between enter and leave with MT_ONCE_HOOK(). */
typedef _Atomic(uintptr_t) mt_once;
#define MT_ONCE_DONE 2u
#define MT_ONCE_FAILED 3u
#ifndef MT_ONCE_HOOK
#define MT_ONCE_HOOK() ((void)0)
#endif
MT_INLINE bool mt_once_final(uintptr_t v) { return v != 0 && (v & 3) != 1; }
static __attribute__((noinline, cold, unused)) uintptr_t mt_once_enter(mt_once *w)
{
    uintptr_t v = mt_load_acquire(w);
    if (mt_once_final(v))
        return v;
    uintptr_t me = (uintptr_t)mt_pal_pid() << 2 | 1;
    for (;;) {
        if (mt_once_final(v))
            return v;
        if (v != me) { /* not run yet, or a run of another process (copied by fork) */
            if (mt_cas(w, &v, me)) {
                MT_ONCE_HOOK();
                return 0;
            }
            continue; /* v reloaded */
        }
        mt_yield(); /* another thread of this process runs it */
        v = mt_load_acquire(w);
    }
}
MT_INLINE void mt_once_leave(mt_once *w, uintptr_t final) { mt_store_release(w, final); }

/* The events of the lock statistics' hook (mt_chain_lock_stat_event,
 * core/ctx.h; mt_lockstat_event, policy/sync/lockstat.h): here, where both
 * the socket's thread and fork handlers and the statistics see them. */
enum {
    MT_LOCK_STAT_FORK_PREPARE,
    MT_LOCK_STAT_FORK_PARENT,
    MT_LOCK_STAT_FORK_CHILD,
    MT_LOCK_STAT_EXIT_BEGIN,
    MT_LOCK_STAT_EXIT_END
};

#endif

/* mortise/pal/pal_freestanding.h — the port layer with no C library and no
 * OS (MT_FREESTANDING, -ffreestanding): what sheap_glk and the kernel socket
 * compile against in a kernel, a boot loader or a bare-metal program. The
 * contract is pal.h; here every service that needs an OS is a stub that
 * fails cleanly (map NULL, cpu -1, getenv NULL, write nothing), so the
 * layers' fallbacks run. Compiles with only the compiler's own headers and
 * references no external symbol (tests/layers/os checks the objects).
 * Single-threaded unless the embedder brings threads: the locks are flags.
 */
#ifndef MORTISE_PAL_PAL_FREESTANDING_H
#define MORTISE_PAL_PAL_FREESTANDING_H

/* ---- C library state ---- */

/* No <errno.h>: the Linux numbers, which the embedder's socket passes on. */
#define MT_ENOMEM 12
#define MT_EINVAL 22
#define MT_EINTR 4

static int mt_pal_errno_word MT_UNUSED; /* one per translation unit: no threads */
MT_INLINE int mt_pal_errno(void) { return mt_pal_errno_word; }
MT_INLINE void mt_pal_set_errno(int e) { mt_pal_errno_word = e; }

static inline const char *mt_pal_getenv(const char *name)
{
    (void)name;
    return NULL;
}

static inline bool mt_pal_random_seed(uint64_t *out)
{
    (void)out;
    return false;
}

__attribute__((noreturn)) static inline void mt_pal_abort(void) { __builtin_trap(); }

#define MT_PAL_HAVE_NEXT_SYMBOL 0
static inline void *mt_pal_next_symbol(const char *name)
{
    (void)name;
    return NULL;
}

/* ---- pages: the embedder hands memory to sheap_glk itself ---- */

static inline size_t mt_pal_page_size(void) { return 0; }

static inline void *mt_pal_map(size_t len)
{
    (void)len;
    return NULL;
}
static inline void *mt_pal_reserve(size_t len)
{
    (void)len;
    return NULL;
}
static inline bool mt_pal_commit(void *p, size_t len)
{
    (void)p, (void)len;
    return false;
}
static inline void mt_pal_unmap(void *p, size_t len) { (void)p, (void)len; }
static inline void mt_pal_advise_dontneed(void *p, size_t len) { (void)p, (void)len; }
static inline void mt_pal_decommit(void *p, size_t len) { (void)p, (void)len; }
static inline void mt_pal_advise_hugepage(void *p, size_t len) { (void)p, (void)len; }

#define MT_PAL_HAVE_REMAP 0
static inline void *mt_pal_remap(void *p, size_t old_len, size_t new_len, void *dest)
{
    (void)p, (void)old_len, (void)new_len, (void)dest;
    return NULL;
}

static inline bool mt_pal_page_mapped(const void *a)
{
    (void)a;
    return false;
}

static inline void *mt_pal_brk(intptr_t increment)
{
    (void)increment;
    return NULL;
}

/* ---- CPU and time ---- */

MT_INLINE int mt_pal_cpu(void) { return -1; }
static inline uint64_t mt_pal_clock_ns(void) { return 0; }
MT_INLINE void mt_pal_yield(void) { mt_cpu_relax(); }

static inline bool mt_pal_affinity_get(mt_pal_cpuset *s)
{
    (void)s;
    return false;
}
static inline bool mt_pal_affinity_pin(int cpu)
{
    (void)cpu;
    return false;
}

static inline long mt_pal_read_file(const char *path, char *buf, size_t cap)
{
    (void)path, (void)cap;
    buf[0] = 0;
    return -1;
}

/* ---- futex: none; waits poll ---- */

#define MT_PAL_HAVE_FUTEX 0
MT_INLINE long mt_pal_futex(_Atomic(uint32_t) *addr, int op, uint32_t val, const mt_pal_timeout *timeout,
                            uint32_t bits)
{
    (void)addr, (void)val, (void)timeout, (void)bits;
    if (op != MT_PAL_FUTEX_WAKE && op != MT_PAL_FUTEX_WAKE_BITSET)
        mt_pal_yield(); /* the caller re-checks: a polling wait */
    return 0;
}

/* ---- threads: one ---- */

static inline uintptr_t mt_pal_thread_self(void) { return 1; }

typedef unsigned mt_pal_key;
static inline bool mt_pal_key_create(mt_pal_key *k, void (*done)(void *))
{
    (void)k, (void)done;
    return false;
}
static inline void mt_pal_key_set(mt_pal_key k, void *value) { (void)k, (void)value; }

static inline bool mt_pal_atfork(void (*prepare)(void), void (*parent)(void), void (*child)(void))
{
    (void)prepare, (void)parent, (void)child;
    return false;
}

static inline bool mt_pal_thread_start(void *(*fn)(void *), void *arg, size_t stack)
{
    (void)fn, (void)arg, (void)stack;
    return false;
}

typedef struct {
    _Atomic(int) held;
} mt_pal_mutex;
MT_INLINE void mt_pal_mutex_init(mt_pal_mutex *m) { mt_store_relaxed(&m->held, 0); }
MT_INLINE void mt_pal_mutex_lock(mt_pal_mutex *m)
{
    while (mt_fas(&m->held, 1))
        mt_pal_yield();
}
MT_INLINE void mt_pal_mutex_unlock(mt_pal_mutex *m) { mt_store_release(&m->held, 0); }

typedef struct {
    _Atomic(int) held;
} mt_pal_spin;
MT_INLINE void mt_pal_spin_init(mt_pal_spin *s) { mt_store_relaxed(&s->held, 0); }
MT_INLINE bool mt_pal_spin_trylock(mt_pal_spin *s) { return !mt_fas(&s->held, 1); }
MT_INLINE void mt_pal_spin_unlock(mt_pal_spin *s) { mt_store_release(&s->held, 0); }

/* ---- output: nowhere ---- */

static inline bool mt_pal_write_all(int fd, const void *buf, size_t len)
{
    (void)fd, (void)buf, (void)len;
    return true;
}
static inline int mt_pal_open_write(const char *path)
{
    (void)path;
    return -1;
}
static inline int mt_pal_dup_fd(int fd, int lowest)
{
    (void)fd, (void)lowest;
    return -1;
}
static inline void mt_pal_close(int fd) { (void)fd; }
static inline long mt_pal_pid(void) { return 1; }
static inline long mt_pal_tid(void) { return 1; }

#endif

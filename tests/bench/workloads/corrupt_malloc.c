/* A deliberately broken malloc for the workloads' negative tests: glibc's
 * allocator (through its __libc_* entry points) that, after
 * BENCH_CORRUPT_AFTER calls (default 200), flips the first 16 bytes of one
 * block while the program still holds it, the way a faulty allocator
 * writing its metadata into a live block would. The block is one the
 * current thread allocated and has not freed or reallocated, called for by
 * the program itself (a block the C library or the loader asks for, a
 * stdio buffer or a new thread's TLS vector, is not the workload's to
 * check); the damage is done at that thread's next call, so the program
 * has already written the block. A workload that prints `ok` under this
 * library does not check its blocks.
 */
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/auxv.h>
#include <stdlib.h>
#include <string.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

#define EXPORT __attribute__((visibility("default")))

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic unsigned long calls;
static _Atomic int done;
static unsigned long after;
static unsigned char *victim;
static size_t victim_size;
static pthread_t victim_owner;
static unsigned long victim_since;

/* At entry of every allocating call: damage the pending victim if this
 * thread owns it (or it has waited too long for its owner). */
static void before_alloc(void)
{
    if (atomic_load_explicit(&done, memory_order_relaxed))
        return;
    unsigned long n = atomic_fetch_add_explicit(&calls, 1, memory_order_relaxed);
    if (!after) {
        const char *env = getenv("BENCH_CORRUPT_AFTER");
        after = env ? strtoul(env, NULL, 10) : 200;
    }
    if (n < after)
        return;
    pthread_mutex_lock(&lock);
    /* n was counted before this thread took the lock, perhaps before the
     * victim was chosen: another thread waits for an owner that has gone
     * quiet, never for one still writing its block (a damage its
     * unlocked write could undo) */
    if (victim && !done &&
        (pthread_equal(victim_owner, pthread_self()) || (n > victim_since && n - victim_since > 100000))) {
        size_t k = victim_size < 16 ? victim_size : 16;
        for (size_t i = 0; i < k; i++)
            victim[i] ^= 0xff;
        victim = NULL;
        atomic_store(&done, 1);
    }
    pthread_mutex_unlock(&lock);
}

/* Is the return address in the program's own code (its loaded segments,
 * found from its program headers: no loader lock, no allocation)? */
static int from_program(const void *ra)
{
    const ElfW(Phdr) *ph = (const ElfW(Phdr) *)getauxval(AT_PHDR);
    size_t n = getauxval(AT_PHNUM);
    uintptr_t base = 0, a = (uintptr_t)ra;
    for (size_t i = 0; ph && i < n; i++)
        if (ph[i].p_type == PT_PHDR)
            base = (uintptr_t)ph - ph[i].p_vaddr;
    for (size_t i = 0; ph && i < n; i++)
        if (ph[i].p_type == PT_LOAD && a - base - ph[i].p_vaddr < ph[i].p_memsz)
            return 1;
    return 0;
}

static void *after_alloc(void *p, size_t size, const void *ra)
{
    if (!p || atomic_load_explicit(&done, memory_order_relaxed) ||
        atomic_load_explicit(&calls, memory_order_relaxed) <= after || size == 0 || !from_program(ra))
        return p;
    pthread_mutex_lock(&lock);
    if (!victim && !done) {
        victim = p;
        victim_size = size;
        victim_owner = pthread_self();
        victim_since = atomic_load(&calls);
    }
    pthread_mutex_unlock(&lock);
    return p;
}

static void forget(void *p)
{
    if (!p || atomic_load_explicit(&done, memory_order_relaxed))
        return;
    pthread_mutex_lock(&lock);
    if (p == victim)
        victim = NULL;
    pthread_mutex_unlock(&lock);
}

EXPORT void *malloc(size_t size)
{
    before_alloc();
    return after_alloc(__libc_malloc(size), size, __builtin_return_address(0));
}

EXPORT void *calloc(size_t n, size_t size)
{
    before_alloc();
    return after_alloc(__libc_calloc(n, size), n * size, __builtin_return_address(0));
}

EXPORT void *realloc(void *p, size_t size)
{
    /* first: a block being moved is a victim no more, even when this is
     * its owner's next call (the program may write its head again after
     * the move, as large_loop reseals it, and undo the damage) */
    forget(p);
    before_alloc();
    return after_alloc(__libc_realloc(p, size), size, __builtin_return_address(0));
}

EXPORT void free(void *p)
{
    forget(p);
    __libc_free(p);
}

EXPORT int posix_memalign(void **out, size_t align, size_t size)
{
    before_alloc();
    void *p = __libc_memalign(align, size);
    if (!p)
        return 12; /* ENOMEM */
    *out = after_alloc(p, size, __builtin_return_address(0));
    return 0;
}

EXPORT void *aligned_alloc(size_t align, size_t size)
{
    before_alloc();
    return after_alloc(__libc_memalign(align, size), size, __builtin_return_address(0));
}

EXPORT void *memalign(size_t align, size_t size)
{
    before_alloc();
    return after_alloc(__libc_memalign(align, size), size, __builtin_return_address(0));
}

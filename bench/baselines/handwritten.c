/* handwritten — the tcache instance's algorithm written by hand, without the
 * framework: the yardstick for the framework's fast-path floor
 * (docs/fastpath.md). A complete, LD_PRELOAD-able malloc.
 *
 *   per-thread cache: a LIFO list per size class (log2b classes, requests
 *     below 32 KiB), each bounded by 2 MiB / classes bytes; a miss takes up
 *     to 32 blocks (at most half the bound) from the segregated fit below, a
 *     free into a full list gives half of it back; a thread's blocks go back
 *     when it exits (pthread key destructor).
 *   segregated fit: a mutex and a LIFO free list per class, bump-allocated
 *     spans of max(64 KiB, 8 blocks) from mmap, described by out-of-line
 *     records; blocks below 256 KiB.
 *   large blocks: mmap'ed in 64 KiB granules.
 *   page map: a two-level radix over 48-bit addresses, one word per 64 KiB
 *     granule (owner in the low 16 bits, span record or granule count above),
 *     so free() finds a block's class without touching the block.
 *
 * What a person writing it directly would do differently from the framework:
 * the class of a freed block is read from its span record (no usable-size
 * round trip), and every slow path is an out-of-line function the fast path
 * tail-calls, so a hit needs no stack frame. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))
#define COLD __attribute__((noinline, cold))
#define TLS _Thread_local __attribute__((tls_model("initial-exec")))
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

#define GRANULE_SHIFT 16
#define GRANULE ((size_t)1 << GRANULE_SHIFT)
#define SMALL_LIMIT ((size_t)262144) /* segregated fit below this */
#define CACHE_LIMIT ((size_t)32768)  /* thread cache below this */
#define CACHE_BYTES ((size_t)2 << 20)
#define BATCH 32
#define CLASSES 52        /* log2b classes up to 256 KiB */
#define CACHED_CLASSES 40 /* classes of sizes below 32 KiB */
#define MAX_REQUEST ((size_t)PTRDIFF_MAX - 2 * GRANULE)

enum { OWNER_NONE, OWNER_SMALL, OWNER_LARGE };

/* ---- size classes: 16..128 by 16, then four per power of two ---- */
static inline size_t class_of(size_t size)
{
    if (size <= 128)
        return size <= 16 ? 0 : (size - 1) >> 4;
    unsigned k = 63 - (unsigned)__builtin_clzll(size - 1);
    return 8 + (size_t)(k - 7) * 4 + (((size - 1) >> (k - 2)) & 3);
}
static inline size_t class_size(size_t c)
{
    if (c < 8)
        return (c + 1) << 4;
    unsigned k = 7 + (unsigned)((c - 8) >> 2);
    return ((size_t)1 << k) + (((c - 8) & 3) + 1) * ((size_t)1 << (k - 2));
}

/* ---- page map ---- */
typedef struct {
    _Atomic(uintptr_t) e[1 << 16];
} leaf_t;
static _Atomic(leaf_t *) pagemap[1 << 16];

static void *os_map(size_t len, size_t align)
{
    size_t span = len + (align > 4096 ? align : 0);
    char *raw = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (raw == MAP_FAILED)
        return NULL;
    char *p = (char *)(((uintptr_t)raw + align - 1) & ~(uintptr_t)(align - 1));
    if (p > raw)
        munmap(raw, (size_t)(p - raw));
    if (raw + span > p + len)
        munmap(p + len, (size_t)(raw + span - (p + len)));
    return p;
}

static inline uintptr_t map_get(const void *p)
{
    uintptr_t a = (uintptr_t)p;
    if (UNLIKELY(a >> 48))
        return 0;
    leaf_t *leaf = atomic_load_explicit(&pagemap[a >> 32], memory_order_relaxed);
    if (UNLIKELY(!leaf))
        return 0;
    return atomic_load_explicit(&leaf->e[(a >> GRANULE_SHIFT) & 0xffff], memory_order_relaxed);
}

static bool map_set(const void *p, size_t len, uintptr_t entry)
{
    for (uintptr_t a = (uintptr_t)p; a < (uintptr_t)p + len; a += GRANULE) {
        leaf_t *leaf = atomic_load_explicit(&pagemap[a >> 32], memory_order_acquire), *none = NULL;
        if (!leaf) {
            leaf_t *fresh = os_map(sizeof(leaf_t), 4096);
            if (!fresh)
                return false;
            leaf = atomic_compare_exchange_strong(&pagemap[a >> 32], &none, fresh) ? fresh : none;
        }
        atomic_store_explicit(&leaf->e[(a >> GRANULE_SHIFT) & 0xffff], entry, memory_order_release);
    }
    return true;
}

/* ---- segregated fit ---- */
typedef struct span {
    struct span *link;
    unsigned cls;
} span_t;

typedef struct __attribute__((aligned(64))) {
    pthread_mutex_t lock;
    void *free;
    char *bump, *bump_end;
} sclass_t;

static sclass_t sclass[CLASSES] = {[0 ... CLASSES - 1] = {.lock = PTHREAD_MUTEX_INITIALIZER}};
static pthread_mutex_t records_lock = PTHREAD_MUTEX_INITIALIZER;
static char *records_cur, *records_end;

static span_t *new_record(void)
{
    pthread_mutex_lock(&records_lock);
    if (records_cur + sizeof(span_t) > records_end) {
        records_cur = os_map(GRANULE, GRANULE);
        records_end = records_cur ? records_cur + GRANULE : NULL;
    }
    span_t *s = records_cur ? (span_t *)records_cur : NULL;
    if (s)
        records_cur += sizeof(span_t);
    pthread_mutex_unlock(&records_lock);
    return s;
}

/* Class lock held. */
static COLD void *carve(sclass_t *k, size_t c)
{
    size_t csize = class_size(c);
    if (k->bump + csize > k->bump_end) {
        size_t len = csize * 8 > GRANULE ? (csize * 8 + GRANULE - 1) & ~(GRANULE - 1) : GRANULE;
        span_t *s = new_record();
        char *base = s ? os_map(len, GRANULE) : NULL;
        if (!base || !map_set(base, len, (uintptr_t)s << 16 | OWNER_SMALL))
            return NULL;
        s->cls = (unsigned)c;
        k->bump = base;
        k->bump_end = base + len / csize * csize;
    }
    void *p = k->bump;
    k->bump += csize;
    return p;
}

static void *small_alloc(size_t c)
{
    sclass_t *k = &sclass[c];
    pthread_mutex_lock(&k->lock);
    void *p = k->free;
    if (p)
        k->free = *(void **)p;
    else
        p = carve(k, c);
    pthread_mutex_unlock(&k->lock);
    return p;
}

static __attribute__((noinline)) void small_free(void *p, size_t c)
{
    sclass_t *k = &sclass[c];
    pthread_mutex_lock(&k->lock);
    *(void **)p = k->free;
    k->free = p;
    pthread_mutex_unlock(&k->lock);
}

/* ---- large blocks ---- */
static COLD void *large_alloc(size_t size, size_t align)
{
    size_t len = (size + GRANULE - 1) & ~(GRANULE - 1);
    void *p = os_map(len ? len : GRANULE, align > GRANULE ? align : GRANULE);
    if (p && !map_set(p, GRANULE, (len >> GRANULE_SHIFT) << 16 | OWNER_LARGE)) {
        munmap(p, len);
        p = NULL;
    }
    return p;
}

static COLD void large_free(void *p, uintptr_t granules)
{
    if ((uintptr_t)p & (GRANULE - 1))
        return;
    map_set(p, GRANULE, 0);
    munmap(p, granules << GRANULE_SHIFT);
}

/* ---- thread cache ---- */
typedef struct {
    void *head;
    size_t room;
} bin_t;
enum { FRESH, CACHING, EXITED };
static TLS struct {
    bin_t bin[CACHED_CLASSES];
    int state;
} tc;
static pthread_key_t tc_key;

static size_t capacity(size_t c)
{
    size_t n = CACHE_BYTES / CACHED_CLASSES / class_size(c);
    return n ? n : 1;
}

static void flush(size_t c, size_t n)
{
    bin_t *b = &tc.bin[c];
    for (; n && b->head; n--, b->room++) {
        void *p = b->head;
        b->head = *(void **)p;
        small_free(p, c);
    }
}

static void thread_gone(void *unused)
{
    (void)unused;
    for (size_t c = 0; c < CACHED_CLASSES; c++) {
        flush(c, SIZE_MAX);
        tc.bin[c].room = 0;
    }
    tc.state = EXITED;
}

static COLD bool tc_ready(void)
{
    if (tc.state == FRESH) {
        for (size_t c = 0; c < CACHED_CLASSES; c++)
            tc.bin[c].room = capacity(c);
        tc.state = CACHING;
        pthread_setspecific(tc_key, (void *)1);
    }
    return tc.state == CACHING;
}

static COLD void *tc_refill(size_t c)
{
    void *first = small_alloc(c);
    if (!first)
        errno = ENOMEM;
    if (!first || !tc_ready())
        return first;
    bin_t *b = &tc.bin[c];
    size_t half = capacity(c) / 2, want = half < BATCH ? half : BATCH;
    for (size_t i = 1; i < want && b->room; i++) {
        void *p = small_alloc(c);
        if (!p)
            break;
        *(void **)p = b->head;
        b->head = p;
        b->room--;
    }
    return first;
}

static COLD void tc_overflow(void *p, size_t c)
{
    if (!tc_ready()) {
        small_free(p, c);
        return;
    }
    bin_t *b = &tc.bin[c];
    if (!b->room)
        flush(c, (capacity(c) + 1) / 2);
    *(void **)p = b->head;
    b->head = p;
    b->room--;
}

/* ---- the malloc family ---- */
static COLD void *alloc_slow(size_t size, size_t align)
{
    if (size > MAX_REQUEST) {
        errno = ENOMEM;
        return NULL;
    }
    void *p = NULL;
    size_t c = class_of(size);
    while (align > 16 && align <= GRANULE && c < CLASSES && (class_size(c) & (align - 1)))
        c++;
    if (size < SMALL_LIMIT && align <= GRANULE && c < CLASSES)
        p = small_alloc(c);
    else
        p = large_alloc(size, align);
    if (!p)
        errno = ENOMEM;
    return p;
}

EXPORT void *malloc(size_t size)
{
    if (UNLIKELY(size >= CACHE_LIMIT))
        return alloc_slow(size, 1);
    size_t c = class_of(size);
    bin_t *b = &tc.bin[c];
    void *p = b->head;
    if (UNLIKELY(!p))
        return tc_refill(c);
    b->head = *(void **)p;
    b->room++;
    return p;
}

EXPORT void free(void *p)
{
    uintptr_t e = map_get(p);
    if ((e & 0xffff) == OWNER_SMALL) {
        size_t c = ((span_t *)(e >> 16))->cls;
        if (c < CACHED_CLASSES) {
            bin_t *b = &tc.bin[c];
            if (UNLIKELY(!b->room)) {
                tc_overflow(p, c);
                return;
            }
            *(void **)p = b->head;
            b->head = p;
            b->room--;
            return;
        }
        small_free(p, c);
        return;
    }
    if ((e & 0xffff) == OWNER_LARGE)
        large_free(p, e >> 16);
}

EXPORT size_t malloc_usable_size(void *p)
{
    uintptr_t e = map_get(p);
    if ((e & 0xffff) == OWNER_SMALL)
        return class_size(((span_t *)(e >> 16))->cls);
    if ((e & 0xffff) == OWNER_LARGE && !((uintptr_t)p & (GRANULE - 1)))
        return (e >> 16) << GRANULE_SHIFT;
    return 0;
}

EXPORT void *calloc(size_t n, size_t each)
{
    size_t size;
    if (__builtin_mul_overflow(n, each, &size)) {
        errno = ENOMEM;
        return NULL;
    }
    void *p = malloc(size);
    if (p)
        memset(p, 0, size);
    return p;
}

EXPORT void *realloc(void *p, size_t size)
{
    if (!p)
        return malloc(size);
    if (!size) {
        free(p);
        return NULL;
    }
    size_t usable = malloc_usable_size(p);
    if (size <= usable && size >= usable / 2)
        return p;
    void *q = malloc(size);
    if (q) {
        memcpy(q, p, size < usable ? size : usable);
        free(p);
    }
    return q;
}

EXPORT void *memalign(size_t align, size_t size)
{
    if (align & (align - 1)) {
        errno = EINVAL;
        return NULL;
    }
    return align <= 16 ? malloc(size) : alloc_slow(size, align);
}
EXPORT void *aligned_alloc(size_t align, size_t size) { return memalign(align, size); }
EXPORT void *valloc(size_t size) { return memalign(4096, size); }
EXPORT void *pvalloc(size_t size) { return memalign(4096, (size + 4095) & ~(size_t)4095); }
EXPORT int posix_memalign(void **out, size_t align, size_t size)
{
    if (!align || (align & (align - 1)) || align % sizeof(void *))
        return EINVAL;
    int saved = errno;
    void *p = memalign(align, size);
    errno = saved;
    if (!p)
        return ENOMEM;
    *out = p;
    return 0;
}

/* ---- process set-up: the exit key and fork safety ---- */
static void fork_prepare(void)
{
    for (size_t c = 0; c < CLASSES; c++)
        pthread_mutex_lock(&sclass[c].lock);
    pthread_mutex_lock(&records_lock);
}
static void fork_parent(void)
{
    pthread_mutex_unlock(&records_lock);
    for (size_t c = 0; c < CLASSES; c++)
        pthread_mutex_unlock(&sclass[c].lock);
}
static void fork_child(void)
{
    pthread_mutex_init(&records_lock, NULL);
    for (size_t c = 0; c < CLASSES; c++)
        pthread_mutex_init(&sclass[c].lock, NULL);
}

__attribute__((constructor)) static void init(void)
{
    pthread_key_create(&tc_key, thread_gone);
    pthread_atfork(fork_prepare, fork_parent, fork_child);
}

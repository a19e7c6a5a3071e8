/* tests/suites/conformance/conf_common.c — the helpers of conformance.h. */
#include "conformance.h"

#include <malloc.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#if !defined(CONF_STATIC)
#include <dlfcn.h>
#endif

/* ---- checks ---- */
static atomic_int conf_passed, conf_failed;

void conf_pass(void) { atomic_fetch_add_explicit(&conf_passed, 1, memory_order_relaxed); }

void conf_fail(const char *file, int line, const char *what)
{
    atomic_fetch_add(&conf_failed, 1);
    fprintf(stderr, "%s:%d: CHECK failed: %s\n", file, line, what);
}

void conf_failf(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    atomic_fetch_add(&conf_failed, 1);
    fprintf(stderr, "%s:%d: CHECK failed: ", file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

int conf_failures(void) { return atomic_load(&conf_failed); }

int conf_report(void)
{
    int passed = atomic_load(&conf_passed), failed = atomic_load(&conf_failed);
    fflush(stderr);
    printf("conformance: %d passed, %d failed\n", passed, failed);
    fflush(stdout);
    return failed ? 1 : 0;
}

/* ---- symbols ---- */
#if defined(CONF_STATIC)
/* Names glibc's headers do not declare; the static archive defines them. */
extern void cfree(void *) __attribute__((weak));
extern void free_sized(void *, size_t) __attribute__((weak));
extern void free_aligned_sized(void *, size_t, size_t) __attribute__((weak));
extern const char *mortise_check(void) __attribute__((weak));

void *conf_symbol(const char *name)
{
    static const struct {
        const char *name;
        void *addr;
    } table[] = {
        {"free", (void *)free},
        {"cfree", (void *)cfree},
        {"free_sized", (void *)free_sized},
        {"free_aligned_sized", (void *)free_aligned_sized},
        {"mortise_check", (void *)mortise_check},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (!strcmp(table[i].name, name))
            return table[i].addr;
    return NULL;
}

const char *conf_object_of(const void *addr)
{
    (void)addr;
    return "";
}
#else
void *conf_symbol(const char *name) { return dlsym(RTLD_DEFAULT, name); }

const char *conf_object_of(const void *addr)
{
    Dl_info info;
    if (!addr || !dladdr(addr, &info) || !info.dli_fname)
        return "";
    return info.dli_fname;
}
#endif

/* ---- is this Mortise? ---- */
static const char *const conf_family[] = {
    "malloc",
    "free",
    "calloc",
    "realloc",
    "reallocarray",
    "memalign",
    "posix_memalign",
    "aligned_alloc",
    "valloc",
    "pvalloc",
    "malloc_usable_size",
    "cfree",
    "free_sized",
    "free_aligned_sized",
    "malloc_trim",
    "mallinfo",
    "mallinfo2",
    "malloc_stats",
    "malloc_info",
    "mallopt",
};
static const char *const conf_cxx_family[] = {
    "_Znwm",
    "_Znam",
    "_ZnwmRKSt9nothrow_t",
    "_ZnamRKSt9nothrow_t",
    "_ZnwmSt11align_val_t",
    "_ZnamSt11align_val_t",
    "_ZnwmSt11align_val_tRKSt9nothrow_t",
    "_ZnamSt11align_val_tRKSt9nothrow_t",
    "_ZdlPv",
    "_ZdaPv",
    "_ZdlPvm",
    "_ZdaPvm",
    "_ZdlPvSt11align_val_t",
    "_ZdaPvSt11align_val_t",
    "_ZdlPvmSt11align_val_t",
    "_ZdaPvmSt11align_val_t",
};

int conf_in_mortise(const char *what, const void *addr)
{
    const char *want = getenv("MORTISE_CONFORMANCE_LIB");
    const char *object = conf_object_of(addr);
    if (!want || !*want)
        want = "libmortise";
    if (addr && strstr(object, want))
        return 1;
    fprintf(stderr, "conformance: %s is %p in '%s', not in %s\n", what, addr, object, want);
    return 0;
}

static int conf_in_library(const char *name) { return conf_in_mortise(name, conf_symbol(name)); }

int conf_malloc_info(char *buf, size_t size)
{
    memset(buf, 0, size);
    FILE *f = fmemopen(buf, size - 1, "w");
    if (!f)
        return -2;
    int r = malloc_info(0, f);
    fclose(f);
    return r;
}

int conf_require_mortise(int cxx)
{
    int before = conf_failures();
    char info[512];
    CHECK(conf_malloc_info(info, sizeof info) == 0);
    CHECKF(strstr(info, "<malloc version=\"mortise") != NULL, "malloc_info does not report Mortise: %.80s",
           info);
#if !defined(CONF_STATIC)
    for (size_t i = 0; i < sizeof conf_family / sizeof conf_family[0]; i++)
        CHECKF(conf_in_library(conf_family[i]), "%s is not Mortise's", conf_family[i]);
    for (size_t i = 0; cxx && i < sizeof conf_cxx_family / sizeof conf_cxx_family[0]; i++)
        CHECKF(conf_in_library(conf_cxx_family[i]), "%s is not Mortise's", conf_cxx_family[i]);
#else
    (void)cxx;
    (void)conf_in_library;
    (void)conf_family;
    (void)conf_cxx_family;
#endif
    /* Mortise reports 0 for blocks it does not own: so a nonzero size proves
     * the C library's internal allocations reach Mortise too. */
    char *dup = strdup("mortise");
    CHECKF(dup && malloc_usable_size(dup) >= 8, "strdup's block is not a Mortise block (usable %zu)",
           dup ? malloc_usable_size(dup) : 0);
    free(dup);
    if (conf_failures() != before) {
        fprintf(stderr, "conformance: this process does not run on Mortise; stopping\n");
        return 0;
    }
    return 1;
}

/* ---- randomness ---- */
uint64_t conf_next(conf_rng *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

size_t conf_range(conf_rng *r, size_t lo, size_t hi)
{
    return lo + (size_t)(conf_next(r) % ((uint64_t)(hi - lo) + 1));
}

size_t conf_size(conf_rng *r, size_t max)
{
    size_t roll = conf_range(r, 0, 999), hi;
    if (roll < 600)
        hi = 128;
    else if (roll < 850)
        hi = 4096;
    else if (roll < 980)
        hi = 256 * CONF_KIB;
    else if (roll < 997)
        hi = 2 * CONF_MIB;
    else
        hi = 8 * CONF_MIB;
    return conf_range(r, 0, hi < max ? hi : max);
}

/* ---- patterns ---- */
/* Word k of block id's pattern is base(id) ^ k * STEP, so a run of words is
 * an xor with a counter that grows by STEP: no multiply per word, and two
 * words at a time in one vector (the pattern checks are most of the `random`
 * case's CPU time, which this cuts about fourfold; what is written and
 * compared is unchanged). */
#define CONF_PATTERN_STEP 0xD6E8FEB86659FD93ull
static inline uint64_t conf_base(uint64_t id) { return id * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull; }
static inline uint64_t conf_word(uint64_t id, size_t k)
{
    return conf_base(id) ^ ((uint64_t)k * CONF_PATTERN_STEP);
}
static inline unsigned char conf_byte(uint64_t id, size_t i)
{
    return (unsigned char)(conf_word(id, i >> 3) >> ((i & 7) * 8));
}

typedef uint64_t conf_pair __attribute__((vector_size(16)));
enum { CONF_CHUNK = 512 }; /* bytes compared before a mismatch is looked for */

static inline conf_pair conf_pair_at(uint64_t id, size_t k)
{
    return (conf_pair){conf_word(id, k), conf_word(id, k + 1)};
}

void conf_fill(void *p, size_t from, size_t to, uint64_t id)
{
    unsigned char *b = p;
    size_t i = from;
    for (; i < to && (i & 7); i++)
        b[i] = conf_byte(id, i);
    if (i + 16 <= to) {
        conf_pair w = conf_pair_at(id, i >> 3);
        const conf_pair step = {2 * CONF_PATTERN_STEP, 2 * CONF_PATTERN_STEP},
                        base = {conf_base(id), conf_base(id)};
        w ^= base; /* the counters alone, advanced by step */
        for (; i + 16 <= to; i += 16, w += step) {
            conf_pair v = w ^ base;
            memcpy(b + i, &v, 16); /* little-endian byte order is conf_byte's */
        }
    }
    for (; i + 8 <= to; i += 8) {
        uint64_t w = conf_word(id, i >> 3);
        memcpy(b + i, &w, 8);
    }
    for (; i < to; i++)
        b[i] = conf_byte(id, i);
}

size_t conf_verify(const void *p, size_t from, size_t to, uint64_t id)
{
    const unsigned char *b = p;
    size_t i = from;
    for (; i < to && (i & 7); i++)
        if (b[i] != conf_byte(id, i))
            return i;
    const conf_pair step = {2 * CONF_PATTERN_STEP, 2 * CONF_PATTERN_STEP},
                    base = {conf_base(id), conf_base(id)};
    /* whole chunks compared without a branch per word; the first chunk that
     * differs is left to the word and byte loops below, which find the offset */
    for (; i + CONF_CHUNK <= to; i += CONF_CHUNK) {
        conf_pair m = conf_pair_at(id, i >> 3) ^ base, diff = {0, 0};
        for (size_t k = 0; k < CONF_CHUNK; k += 16, m += step) {
            conf_pair v;
            memcpy(&v, b + i + k, 16);
            diff |= v ^ base ^ m;
        }
        if (diff[0] | diff[1])
            break;
    }
    for (; i + 8 <= to; i += 8) {
        uint64_t w;
        memcpy(&w, b + i, 8);
        if (w != conf_word(id, i >> 3))
            break;
    }
    for (; i < to; i++)
        if (b[i] != conf_byte(id, i))
            return i;
    return SIZE_MAX;
}

size_t conf_first_nonzero(const void *p, size_t len)
{
    const unsigned char *b = p;
    size_t i = 0;
    for (; i + CONF_CHUNK <= len; i += CONF_CHUNK) {
        conf_pair any = {0, 0};
        for (size_t k = 0; k < CONF_CHUNK; k += 16) {
            conf_pair v;
            memcpy(&v, b + i + k, 16);
            any |= v;
        }
        if (any[0] | any[1])
            break;
    }
    for (; i < len; i++)
        if (b[i])
            return i;
    return SIZE_MAX;
}

/* ---- process state ---- */
size_t conf_rss(void)
{
    unsigned long total = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f)
        return 0;
    if (fscanf(f, "%lu %lu", &total, &resident) != 2)
        resident = 0;
    fclose(f);
    return (size_t)resident * (size_t)sysconf(_SC_PAGESIZE);
}

double conf_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double conf_seconds(double seconds)
{
    const char *scale = getenv("MORTISE_CONFORMANCE_SCALE");
    double s = scale ? atof(scale) : 1.0;
    return seconds * (s > 0 ? s : 1.0);
}

int conf_env_count(const char *name, int fallback)
{
    const char *v = getenv(name);
    char *end = NULL;
    long n = v && *v ? strtol(v, &end, 10) : -1;
    return n >= 0 && n <= 1000000000L && !*end ? (int)n : fallback;
}

bool conf_emulated(void)
{
    const char *e = getenv("MORTISE_CONFORMANCE_EMULATED");
    return e && strcmp(e, "0") != 0;
}

int conf_count(int n)
{
    int divisor = conf_emulated() ? atoi(getenv("MORTISE_CONFORMANCE_EMULATED")) : 1;
    return divisor > 1 && n >= divisor ? n / divisor : n;
}

void *conf_foreign_page(void)
{
    void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

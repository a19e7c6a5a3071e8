/* tests/suites/conformance/conf_api.c — single-threaded cases: the semantics of every
 * entry point (api), every power-of-two alignment (align), the errno contract
 * (errno) and requests with pointers that are not Mortise blocks (bad).
 * The behaviour checked is the one sockets/family.h documents. */
#include "conformance.h"
#include "../../common/family_calls.h"

#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

typedef void conf_free1_fn(void *);
typedef void conf_free2_fn(void *, size_t);
typedef void conf_free3_fn(void *, size_t, size_t);

/* Sizes crossing every class boundary of the ready instances: tiny, slab,
 * segregated fit, the OS layer's cached chunks and its unmapped large blocks. */
static const size_t conf_sizes[] = {
    0,      1,      7,      8,       15,      16,      17,      24,      31,      32,       33,    48,
    63,     64,     65,     100,     127,     128,     129,     255,     256,     257,      511,   512,
    1000,   1024,   4095,   4096,    4097,    8191,    10000,   32768,   65535,   65536,    65537, 100000,
    262143, 262144, 262145, 1048575, 1048576, 1048577, 3145733, 4194304, 5242880, 34603008,
};
#define CONF_NSIZES (sizeof conf_sizes / sizeof conf_sizes[0])

/* Sizes and calls the compiler cannot see through: no -Walloc-size-larger-than,
 * no use-after-free warning for a block whose realloc is meant to fail, and
 * no assumption about errno across a call it takes for a known allocation
 * function (clang keeps `errno = 0` across valloc even with -fno-builtin);
 * the calls go through test_family (tests/common/family_calls.h). */
static volatile size_t conf_size_max = SIZE_MAX;
static volatile size_t conf_ptrdiff_max = PTRDIFF_MAX;
static volatile size_t conf_bad_align[] = {3, 48, 96};
static uint64_t conf_api_ids = 1;

/* A fresh block of `size` bytes from an entry point: not NULL, aligned, at
 * least `size` usable bytes, all of them writable (filled with the pattern of
 * a new id, returned in *id). Returns the usable size (0 if p is NULL). */
static size_t conf_take(void *p, size_t size, size_t align, uint64_t *id, const char *what)
{
    *id = conf_api_ids++;
    CHECKF(p != NULL, "%s(%zu) returned NULL", what, size);
    if (!p)
        return 0;
    size_t usable = malloc_usable_size(p);
    CHECKF(((uintptr_t)p & (align - 1)) == 0, "%s(%zu) = %p not aligned to %zu", what, size, p, align);
    CHECKF(usable >= size, "%s(%zu): usable %zu", what, size, usable);
    conf_fill(p, 0, usable, *id);
    return usable;
}

static void conf_intact(const void *p, size_t len, uint64_t id, const char *what)
{
    size_t bad = conf_verify(p, 0, len, id);
    CHECKF(bad == SIZE_MAX, "%s block %p: byte %zu of %zu overwritten", what, p, bad, len);
}

/* ---- api ---- */

static void conf_api_malloc(void)
{
    void *blocks[CONF_NSIZES];
    size_t usable[CONF_NSIZES];
    uint64_t ids[CONF_NSIZES];
    for (size_t i = 0; i < CONF_NSIZES; i++) {
        blocks[i] = malloc(conf_sizes[i]);
        usable[i] = conf_take(blocks[i], conf_sizes[i], 16, &ids[i], "malloc");
    }
    for (size_t i = 0; i < CONF_NSIZES; i++) /* all live at once: no overlap */
        conf_intact(blocks[i], usable[i], ids[i], "malloc");
    for (size_t i = 0; i < CONF_NSIZES; i++)
        free(blocks[i]);
    free(NULL);
    CHECK(malloc_usable_size(NULL) == 0);
}

static void conf_api_calloc(void)
{
    enum { N = 64 };
    void *dirty[N];
    for (size_t i = 0; i < CONF_NSIZES; i++) {
        size_t size = conf_sizes[i], count = size > 65536 ? 2 : N;
        /* dirty blocks of this size, free them, then calloc their successors */
        for (size_t k = 0; k < count; k++) {
            dirty[k] = malloc(size);
            if (dirty[k])
                memset(dirty[k], 0xA5, malloc_usable_size(dirty[k]));
        }
        for (size_t k = 0; k < count; k++)
            free(dirty[k]);
        for (size_t k = 0; k < count; k++) {
            dirty[k] = k & 1 ? calloc(size, 1) : calloc(1, size);
            CHECKF(dirty[k] != NULL, "calloc(%zu)", size);
            size_t nz = dirty[k] ? conf_first_nonzero(dirty[k], size) : SIZE_MAX;
            CHECKF(nz == SIZE_MAX, "calloc(%zu) after reuse: byte %zu not zero", size, nz);
            if (dirty[k])
                memset(dirty[k], 0x5A, malloc_usable_size(dirty[k]));
        }
        for (size_t k = 0; k < count; k++)
            free(dirty[k]);
    }
    void *p = calloc(1000, 24); /* n * each */
    CHECK(p && conf_first_nonzero(p, 24000) == SIZE_MAX && malloc_usable_size(p) >= 24000);
    free(p);
    p = calloc(0, 0);
    CHECK(p != NULL);
    free(p);
}

/* realloc through every size range and back, keeping min(old, new) bytes. */
static void conf_api_realloc(void)
{
    static const size_t path[] = {
        10,     20,   100, 1000, 5000, 70000, 300000, 2097152, 9437184, 41943040, 9437184,
        300000, 1000, 20,  1,    4000, 3900,  2000,   1500,    600000,  500000,   64,
    };
    uint64_t id = conf_api_ids++;
    size_t old = 10;
    char *p = realloc(NULL, old); /* realloc(NULL, n) is malloc(n) */
    CHECK(p != NULL);
    if (!p)
        return;
    conf_fill(p, 0, malloc_usable_size(p), id);
    for (size_t i = 1; i < sizeof path / sizeof path[0]; i++) {
        size_t size = path[i], keep = old < size ? old : size;
        char *q = realloc(p, size);
        CHECKF(q != NULL, "realloc(%zu -> %zu)", old, size);
        if (!q)
            break;
        size_t bad = conf_verify(q, 0, keep, id), usable = malloc_usable_size(q);
        CHECKF(bad == SIZE_MAX, "realloc(%zu -> %zu): byte %zu of %zu lost", old, size, bad, keep);
        CHECKF(usable >= size, "realloc(%zu -> %zu): usable %zu", old, size, usable);
        CHECK(((uintptr_t)q & 15) == 0);
        conf_fill(q, keep, usable, id);
        p = q, old = size;
    }
    /* realloc(p, 0) frees p: it returns NULL (glibc's and Mortise's choice)
     * or a block that free accepts */
    void *z = realloc(p, 0);
    CHECK(z == NULL || malloc_usable_size(z) < 64);
    free(z);

    /* an aligned block may be reallocated; its contents move with it */
    uint64_t aid;
    void *a = aligned_alloc(4096, 1000);
    size_t ausable = conf_take(a, 1000, 4096, &aid, "aligned_alloc");
    void *b = a ? realloc(a, 100000) : NULL;
    CHECK(b != NULL);
    if (b) {
        conf_intact(b, ausable < 1000 ? ausable : 1000, aid, "realloc of aligned");
        free(b);
    }

    /* reallocarray: n * each bytes, contents kept; NULL acts as malloc */
    char *r = reallocarray(NULL, 3, 5);
    uint64_t rid;
    conf_take(r, 15, 16, &rid, "reallocarray");
    char *s = r ? reallocarray(r, 1000, 100) : NULL;
    CHECK(s != NULL && malloc_usable_size(s) >= 100000);
    if (s) {
        conf_intact(s, 15, rid, "reallocarray");
        free(s);
    }
}

static void conf_api_aligned_family(void)
{
    uint64_t id;
    void *p = memalign(64, 100);
    conf_take(p, 100, 64, &id, "memalign");
    free(p);
    p = aligned_alloc(128, 256);
    conf_take(p, 256, 128, &id, "aligned_alloc");
    free(p);
    p = (void *)0x1;
    CHECK(posix_memalign(&p, 256, 1000) == 0);
    conf_take(p, 1000, 256, &id, "posix_memalign");
    free(p);

    long page = sysconf(_SC_PAGESIZE);
    static const size_t sizes[] = {0, 1, 100, 4095, 4096, 4097, 70000, 1048577};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        size_t n = sizes[i],
               rounded = n ? (n + (size_t)page - 1) / (size_t)page * (size_t)page : (size_t)page;
        p = valloc(n);
        conf_take(p, n, (size_t)page, &id, "valloc");
        free(p);
        p = pvalloc(n); /* whole pages: usable >= size rounded up to a page */
        conf_take(p, rounded, (size_t)page, &id, "pvalloc");
        free(p);
    }
}

/* Each free variant really frees: 64 rounds of 8 MiB would otherwise add
 * 512 MiB to what mallinfo2 says the allocator holds. */
static void conf_api_free_variant(const char *name, int kind)
{
    void *sym = conf_symbol(name);
    CHECKF(sym != NULL, "%s is not exported", name);
    if (!sym)
        return;
    struct mallinfo2 before = mallinfo2();
    for (int i = 0; i < 64; i++) {
        size_t size = 8 * CONF_MIB + (size_t)i * 4096;
        void *p = kind == 3 ? aligned_alloc(65536, size) : malloc(size);
        CHECK(p != NULL);
        ((volatile char *)p)[size - 1] = 1;
        if (kind == 1)
            ((conf_free1_fn *)sym)(p);
        else if (kind == 2)
            ((conf_free2_fn *)sym)(p, size);
        else
            ((conf_free3_fn *)sym)(p, 65536, size);
    }
    /* and small blocks go back for reuse (no growth over 100000 rounds) */
    for (int i = 0; i < 100000; i++) {
        void *p = kind == 3 ? aligned_alloc(64, 64) : malloc(48);
        CHECK(p != NULL);
        if (kind == 1)
            ((conf_free1_fn *)sym)(p);
        else if (kind == 2)
            ((conf_free2_fn *)sym)(p, 48);
        else
            ((conf_free3_fn *)sym)(p, 64, 64);
    }
    struct mallinfo2 after = mallinfo2();
    CHECKF(after.uordblks < before.uordblks + 64 * CONF_MIB, "%s does not free: in use %zu -> %zu", name,
           before.uordblks, after.uordblks);
}

static void conf_api_info(void)
{
    /* mallinfo2 is honest: a 32 MiB block shows, and leaves after free + trim */
    const size_t big = 32 * CONF_MIB;
    /* memory kept for reuse (the OS layers' large-block keep) would serve
     * the block without a new mapping: give it back first */
    malloc_trim(0);
    struct mallinfo2 m0 = mallinfo2();
    char *p = malloc(big);
    CHECK(p != NULL);
    if (p)
        memset(p, 1, big);
    struct mallinfo2 m1 = mallinfo2();
    CHECKF(m1.arena + m1.hblkhd >= m0.arena + m0.hblkhd + big,
           "mallinfo2 arena+hblkhd %zu -> %zu after a 32 MiB malloc", m0.arena + m0.hblkhd,
           m1.arena + m1.hblkhd);
    CHECKF(m1.uordblks >= m0.uordblks + big, "mallinfo2 uordblks %zu -> %zu", m0.uordblks, m1.uordblks);
    free(p);
    int trimmed = malloc_trim(0);
    CHECK(trimmed == 0 || trimmed == 1);
    struct mallinfo2 m2 = mallinfo2();
    CHECKF(m2.uordblks + big <= m1.uordblks, "mallinfo2 uordblks %zu -> %zu after free", m1.uordblks,
           m2.uordblks);
    CHECKF(m2.arena + m2.hblkhd + big <= m1.arena + m1.hblkhd, "mallinfo2 arena+hblkhd %zu -> %zu after free",
           m1.arena + m1.hblkhd, m2.arena + m2.hblkhd);

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    struct mallinfo o0 = mallinfo();
    p = malloc(big);
    CHECK(p != NULL);
    struct mallinfo o1 = mallinfo();
#pragma GCC diagnostic pop
    CHECKF((size_t)o1.arena + (size_t)o1.hblkhd >= (size_t)o0.arena + (size_t)o0.hblkhd + big,
           "mallinfo arena+hblkhd %d+%d -> %d+%d", o0.arena, o0.hblkhd, o1.arena, o1.hblkhd);
    CHECK(o1.uordblks > o0.uordblks);
    free(p);

    /* malloc_stats: a report on stderr that names Mortise */
    char text[4096] = "";
    FILE *tmp = tmpfile();
    CHECK(tmp != NULL);
    if (tmp) {
        fflush(stderr);
        int saved = dup(2);
        dup2(fileno(tmp), 2);
        malloc_stats();
        fflush(stderr);
        dup2(saved, 2);
        close(saved);
        rewind(tmp);
        size_t n = fread(text, 1, sizeof text - 1, tmp);
        text[n] = 0;
        fclose(tmp);
    }
    CHECKF(!strncmp(text, "Mortise:", 8) && strchr(text, '\n'), "malloc_stats printed '%.60s'", text);

    /* malloc_info: one <malloc> element; options other than 0 refused */
    char xml[4096];
    CHECK(conf_malloc_info(xml, sizeof xml) == 0);
    size_t len = strlen(xml), open = 0, close_ = 0;
    for (size_t i = 0; i < len; i++)
        open += xml[i] == '<', close_ += xml[i] == '>';
    CHECKF(!strncmp(xml, "<malloc version=", 16) && len > 10 && !strcmp(xml + len - 10, "</malloc>\n") &&
               open == close_,
           "malloc_info wrote '%.200s'", xml);
    char none[64] = "";
    FILE *f = fmemopen(none, sizeof none - 1, "w");
    if (f) {
        errno = 0;
        int r = malloc_info(1, f);
        CHECKF(r == -1 && errno == EINVAL, "malloc_info(1) = %d, errno %d", r, errno);
        fclose(f);
        CHECK(none[0] == 0);
    }

    /* mallopt: no tunables, every parameter refused */
    CHECK(mallopt(M_MMAP_THRESHOLD, 1 << 20) == 0);
    CHECK(mallopt(M_TRIM_THRESHOLD, 1 << 20) == 0);
    CHECK(mallopt(M_ARENA_MAX, 1) == 0);
    CHECK(mallopt(12345, 1) == 0);
}

void conf_case_api(void)
{
    conf_api_malloc();
    conf_api_calloc();
    conf_api_realloc();
    conf_api_aligned_family();
    conf_api_free_variant("free", 1);
    conf_api_free_variant("cfree", 1);
    conf_api_free_variant("free_sized", 2);
    conf_api_free_variant("free_aligned_sized", 3);
    conf_api_info();
}

/* ---- order: fresh blocks of one size come out in ascending addresses ---- */

/* A program that builds a list and walks it in allocation order walks
 * memory upward only if consecutive mallocs of one size from fresh memory
 * ascend (hardware prefetchers follow ascending streams). At the start of
 * a process every class is fresh; a new slab or span may lie below the
 * last one, so a few steps down are allowed: at least 90 % up. */
void conf_case_order(void)
{
    static const size_t sizes[] = {24, 48, 96, 200, 480};
    enum { N = 128 };
    void *blocks[N];
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t up = 0;
        for (size_t i = 0; i < N; i++) {
            blocks[i] = test_family.malloc(sizes[k]);
            CHECK(blocks[i] != NULL);
            up += i && (uintptr_t)blocks[i] > (uintptr_t)blocks[i - 1];
        }
        CHECKF(up * 10 >= (N - 1) * 9, "%zu-byte blocks: %zu of %d steps up", sizes[k], up, N - 1);
        for (size_t i = 0; i < N; i++)
            test_family.free(blocks[i]);
    }
}

/* ---- align: 1 B to 64 KiB through each aligned entry point ---- */

enum { CONF_ALIGN_SIZES = 8, CONF_ALIGN_WAYS = 3 };

static void *conf_aligned_by(int way, size_t align, size_t size)
{
    void *p = NULL;
    switch (way) {
    case 0: return memalign(align, size);
    case 1: return aligned_alloc(align, size);
    default:
        if (align < sizeof(void *)) /* posix_memalign's smallest */
            align = sizeof(void *);
        return posix_memalign(&p, align, size) == 0 ? p : NULL;
    }
}

void conf_case_align(void)
{
    static const char *const ways[CONF_ALIGN_WAYS] = {"memalign", "aligned_alloc", "posix_memalign"};
    void *p[CONF_ALIGN_WAYS][CONF_ALIGN_SIZES];
    size_t usable[CONF_ALIGN_WAYS][CONF_ALIGN_SIZES];
    uint64_t ids[CONF_ALIGN_WAYS][CONF_ALIGN_SIZES];
    for (size_t align = 1; align <= 65536; align *= 2) {
        const size_t sizes[CONF_ALIGN_SIZES] = {
            1, 24, align > 1 ? align - 1 : 2, align, align + 1, 2 * align + 48, 100000, 300000,
        };
        for (int w = 0; w < CONF_ALIGN_WAYS; w++)
            for (int s = 0; s < CONF_ALIGN_SIZES; s++) {
                p[w][s] = conf_aligned_by(w, align, sizes[s]);
                usable[w][s] = conf_take(p[w][s], sizes[s], align, &ids[w][s], ways[w]);
            }
        for (int w = 0; w < CONF_ALIGN_WAYS; w++)
            for (int s = 0; s < CONF_ALIGN_SIZES; s++) {
                if (p[w][s])
                    conf_intact(p[w][s], usable[w][s], ids[w][s], ways[w]);
                free(p[w][s]);
            }
    }
    /* beyond the granule: 1 MiB alignment, small and large */
    for (int w = 0; w < CONF_ALIGN_WAYS; w++) {
        uint64_t id[2];
        void *big[2] = {conf_aligned_by(w, CONF_MIB, 100), conf_aligned_by(w, CONF_MIB, 5 * CONF_MIB)};
        size_t u0 = conf_take(big[0], 100, CONF_MIB, &id[0], ways[w]);
        conf_take(big[1], 5 * CONF_MIB, CONF_MIB, &id[1], ways[w]);
        if (big[0])
            conf_intact(big[0], u0, id[0], ways[w]);
        free(big[0]);
        free(big[1]);
    }
}

/* ---- errno ---- */

static void conf_expect_null(void *p, int err, const char *what)
{
    int got = errno;
    CHECKF(p == NULL && got == err, "%s: %p, errno %d (want NULL, %d)", what, p, got, err);
    free(p);
}

#define CONF_EXPECT(call, err) (errno = 0, conf_expect_null((call), (err), #call))

void conf_case_errno(void)
{
    size_t huge = conf_size_max, half = conf_size_max / 2, pd = conf_ptrdiff_max;
    const unsigned half_bits = sizeof(size_t) * 4; /* 32, or 16 on 32-bit targets */
    CONF_EXPECT(test_family.malloc(huge), ENOMEM);
    CONF_EXPECT(test_family.malloc(half + 1), ENOMEM);
    CONF_EXPECT(test_family.malloc(pd), ENOMEM);
    CONF_EXPECT(test_family.calloc(half, 3), ENOMEM); /* overflows */
    CONF_EXPECT(test_family.calloc((size_t)1 << (half_bits + 1), (size_t)1 << (half_bits - 1)),
                ENOMEM); /* overflows */
    CONF_EXPECT(test_family.calloc(1, huge), ENOMEM);
    size_t three = conf_bad_align[0], a48 = conf_bad_align[1], a96 = conf_bad_align[2];
    CONF_EXPECT(test_family.memalign(three, 16), EINVAL);
    CONF_EXPECT(test_family.memalign(a48, 16), EINVAL);
    CONF_EXPECT(test_family.aligned_alloc(three, 16), EINVAL);
    CONF_EXPECT(test_family.aligned_alloc(a96, 192), EINVAL);
    CONF_EXPECT(test_family.aligned_alloc(64, huge), ENOMEM);
    CONF_EXPECT(test_family.memalign(4096, huge - 4096), ENOMEM);
    CONF_EXPECT(test_family.valloc(huge), ENOMEM);
    CONF_EXPECT(test_family.pvalloc(huge), ENOMEM);
    CONF_EXPECT(test_family.pvalloc(huge - 100), ENOMEM);

    /* failed realloc / reallocarray leave the block intact */
    static const size_t sizes[] = {64, 100000, 5 * CONF_MIB};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        uint64_t id;
        char *p = malloc(sizes[i]);
        size_t usable = conf_take(p, sizes[i], 16, &id, "malloc");
        if (!p)
            continue;
        CONF_EXPECT(test_family.realloc(p, huge), ENOMEM);
        CONF_EXPECT(test_family.realloc(p, pd), ENOMEM);
        CONF_EXPECT(test_family.reallocarray(p, half, 3), ENOMEM);
        CONF_EXPECT(test_family.reallocarray(p, (size_t)1 << (half_bits + 8), (size_t)1 << (half_bits + 8)),
                    ENOMEM);
        conf_intact(p, usable, id, "after failed realloc");
        free(p);
    }
    CONF_EXPECT(test_family.reallocarray(NULL, half, 3), ENOMEM);

    /* posix_memalign: the error is the result, errno and *out untouched */
    void *const sentinel = (void *)&conf_api_ids;
    static const struct {
        size_t align, size;
        int err;
    } pm[] = {
        {3, 16, EINVAL},
        {sizeof(void *) / 2, 16, EINVAL}, /* a power of two, not a multiple of a pointer */
        {24, 16, EINVAL},
        {0, 16, EINVAL},
        {64, SIZE_MAX, ENOMEM},
        {64, PTRDIFF_MAX, ENOMEM},
        {4096, SIZE_MAX - 4096, ENOMEM},
    };
    for (size_t i = 0; i < sizeof pm / sizeof pm[0]; i++) {
        void *out = sentinel;
        errno = 4321;
        size_t size = pm[i].size + (conf_size_max - SIZE_MAX); /* hidden from the compiler */
        int r = test_family.posix_memalign(&out, pm[i].align, size);
        CHECKF(r == pm[i].err && out == sentinel && errno == 4321,
               "posix_memalign(align %zu, size %zu) = %d, out %s, errno %d", pm[i].align, pm[i].size, r,
               out == sentinel ? "untouched" : "changed", errno);
    }

    /* free and its variants never change errno, whatever they release */
    static const size_t fsizes[] = {16, 1000, 100000, 300000, 32 * CONF_MIB};
    conf_free1_fn *cfree_fn = (conf_free1_fn *)conf_symbol("cfree");
    conf_free2_fn *sized_fn = (conf_free2_fn *)conf_symbol("free_sized");
    conf_free3_fn *aligned_fn = (conf_free3_fn *)conf_symbol("free_aligned_sized");
    for (size_t i = 0; i < sizeof fsizes / sizeof fsizes[0]; i++) {
        for (int how = 0; how < 4; how++) {
            void *p = how == 3 ? aligned_alloc(4096, fsizes[i]) : malloc(fsizes[i]);
            CHECK(p != NULL);
            if (p)
                memset(p, 7, fsizes[i]);
            errno = 1234;
            if (how == 0)
                test_family.free(p);
            else if (how == 1 && cfree_fn)
                cfree_fn(p);
            else if (how == 2 && sized_fn)
                sized_fn(p, fsizes[i]);
            else if (how == 3 && aligned_fn)
                aligned_fn(p, 4096, fsizes[i]);
            else
                free(p);
            CHECKF(errno == 1234, "free #%d of %zu bytes set errno to %d", how, fsizes[i], errno);
        }
    }
    errno = 1234;
    test_family.free(NULL);
    malloc_trim(0); /* returns pages with system calls */
    CHECK(errno == 1234);
}

/* ---- bad: pointers Mortise never handed out ---- */
static char conf_static_block[256];

void conf_case_bad(void)
{
    char local[256];
    char *page = conf_foreign_page();
    CHECK(page != NULL);
    void *foreign[] = {
        local,
        local + 16,
        conf_static_block,
        conf_static_block + 64,
        page,
        page ? page + 2048 : NULL,
        (void *)(uintptr_t)16,
        (void *)(uintptr_t)0x10000,
        (void *)(uintptr_t)0xffff800000000000ull,
        (void *)(uintptr_t)0x00007ffffffff000ull,
    };
    memset(local, 0x11, sizeof local);
    if (page)
        memset(page, 0x22, 4096);
    for (size_t i = 0; i < sizeof foreign / sizeof foreign[0]; i++) {
        void *p = foreign[i];
        if (!p)
            continue;
        CHECKF(malloc_usable_size(p) == 0, "malloc_usable_size(%p) = %zu", p, malloc_usable_size(p));
        errno = 1234;
        test_family.free(p);
        CHECK(errno == 1234);
        errno = 0;
        void *q = test_family.realloc(p, 100);
        CHECKF(q == NULL && errno == EINVAL, "realloc(foreign %p) = %p, errno %d", p, q, errno);
    }
    /* nothing was touched and the allocator still works */
    size_t changed = 0;
    for (size_t i = 0; i < sizeof local; i++)
        changed += local[i] != 0x11;
    CHECK(changed == 0);
    if (page) {
        CHECK(page[0] == 0x22 && page[4095] == 0x22);
        munmap(page, 4096);
    }
    for (size_t i = 0; i < CONF_NSIZES; i++) {
        uint64_t id;
        void *p = malloc(conf_sizes[i]);
        size_t usable = conf_take(p, conf_sizes[i], 16, &id, "malloc after bad frees");
        if (p)
            conf_intact(p, usable, id, "malloc after bad frees");
        free(p);
    }
}

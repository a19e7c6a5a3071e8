/* tests/layers/safety/safety_check.h — what the safety tests share: a recording
 * error handler (err_handle=callback) and helpers. Include after the
 * composition; the socket's prefix is t_. */
#ifndef SAFETY_CHECK_H
#define SAFETY_CHECK_H
#include "../../common/check.h"
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#define CHECKF CHECK_MSG /* the message names the bug; the condition comes first */

static struct {
    int count;
    mortise_error last;
} seen;

static void record(const mortise_error *e, void *arg)
{
    (void)arg;
    seen.count++;
    seen.last = *e;
}

MT_UNUSED static void expect_none(const char *what)
{
    CHECKF(seen.count == 0, "%s: unexpected report %s at %p (%s, %s)", what,
           mt_bug_class_name(seen.last.kind), seen.last.ptr, seen.last.layer, seen.last.operation);
    seen.count = 0;
}

/* Exactly one report since the last look, of this kind, for this block. */
MT_UNUSED static void expect_one(int kind, const void *p, const char *what)
{
    CHECKF(seen.count == 1, "%s: %d reports, wanted 1 %s", what, seen.count, mt_bug_class_name(kind));
    if (seen.count)
        CHECKF(seen.last.kind == kind && seen.last.ptr == p, "%s: got %s at %p (%s, %s), wanted %s at %p",
               what, mt_bug_class_name(seen.last.kind), seen.last.ptr, seen.last.layer, seen.last.operation,
               mt_bug_class_name(kind), p);
    seen.count = 0;
}
static char global_block[256] __attribute__((aligned(64)));

/* Invalid frees (stack, global, foreign mapping, wild, interior pointers of
 * a small and a large block) through free, malloc_usable_size and realloc:
 * each reported once as invalid-free, nothing touched, nothing crashes. */
MT_UNUSED static void invalid_frees(void)
{
    char local[128];
    unsigned char *page = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(page != MAP_FAILED);
    memset(local, 7, sizeof local);
    unsigned char *live = t_malloc(1000);
    unsigned char *big = t_malloc(300000);
    void *bad[] = {local,
                   local + 16,
                   global_block,
                   global_block + 64,
                   page,
                   page + 4096 + 16,
                   (void *)(uintptr_t)16,
                   (void *)(uintptr_t)0x10000,
                   (void *)(uintptr_t)0xffff800000000000ull,
                   live + 1,
                   live + 8,
                   live + 16,
                   live + 512,
                   big + 16,
                   big + 4096,
                   big + 200000};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        t_free(bad[i]);
        expect_one(MORTISE_BUG_INVALID_FREE, bad[i], "invalid free");
        CHECK(t_malloc_usable_size(bad[i]) == 0);
        expect_one(MORTISE_BUG_INVALID_FREE, bad[i], "invalid usable size");
        errno = 0;
        CHECK(t_realloc(bad[i], 10) == NULL && errno == EINVAL);
        expect_one(MORTISE_BUG_INVALID_FREE, bad[i], "invalid realloc");
    }
    size_t changed = 0;
    for (size_t i = 0; i < sizeof local; i++)
        changed += local[i] != 7;
    CHECK(changed == 0);
    t_free(live);
    t_free(big);
    expect_none("the live blocks after the invalid frees");
    munmap(page, 8192);
}

#endif

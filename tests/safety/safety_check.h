/* tests/safety/safety_check.h — what the safety tests share: a recording
 * error handler (err_handle=callback) and helpers. Include after the
 * composition; the socket's prefix is t_. */
#ifndef SAFETY_CHECK_H
#define SAFETY_CHECK_H
#include "../common/check.h"
#include <string.h>

#define CHECKF(cond, ...)                                                          \
    do {                                                                           \
        if (cond) {                                                                \
            check_passed++;                                                        \
        } else {                                                                   \
            check_failed++;                                                        \
            fprintf(stderr, "%s:%d: CHECK failed: ", __FILE__, __LINE__);          \
            fprintf(stderr, __VA_ARGS__);                                          \
            fputc('\n', stderr);                                                   \
        }                                                                          \
    } while (0)

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

static void expect_none(const char *what)
{
    CHECKF(seen.count == 0, "%s: unexpected report %s at %p (%s, %s)", what,
           mt_bug_class_name(seen.last.kind), seen.last.ptr, seen.last.layer, seen.last.operation);
    seen.count = 0;
}

/* Exactly one report since the last look, of this kind, for this block. */
static void expect_one(int kind, const void *p, const char *what)
{
    CHECKF(seen.count == 1, "%s: %d reports, wanted 1 %s", what, seen.count, mt_bug_class_name(kind));
    if (seen.count)
        CHECKF(seen.last.kind == kind && seen.last.ptr == p, "%s: got %s at %p (%s, %s), wanted %s at %p", what,
               mt_bug_class_name(seen.last.kind), seen.last.ptr, seen.last.layer, seen.last.operation,
               mt_bug_class_name(kind), p);
    seen.count = 0;
}
#endif

/* tests/common/check.h — the smallest test harness: CHECK records a failure
 * with its location and goes on; check_report() prints "N passed, N failed"
 * and returns the exit status. */
#ifndef MORTISE_TEST_CHECK_H
#define MORTISE_TEST_CHECK_H
#include <stdio.h>

static int check_passed, check_failed;

#define CHECK(cond)                                                                \
    do {                                                                           \
        if (cond) {                                                                \
            check_passed++;                                                        \
        } else {                                                                   \
            check_failed++;                                                        \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                          \
    } while (0)

static inline int check_report(const char *name)
{
    printf("%s: %d passed, %d failed\n", name, check_passed, check_failed);
    return check_failed ? 1 : 0;
}
#endif

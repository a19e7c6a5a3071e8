/* tests/common/check.h — the smallest test harness: CHECK records a failure
 * with its location and goes on (CHECK_MSG with a message of the values);
 * check_report() prints "N passed, N failed" and returns the exit status. */
#ifndef MORTISE_TEST_CHECK_H
#define MORTISE_TEST_CHECK_H
#include <stdbool.h>
#include <stdio.h>

static int check_passed, check_failed;

/* Counts one check; on a failure starts its line on stderr (the caller ends
 * it) and returns false. */
static inline bool check_record(bool ok, const char *file, int line, const char *cond)
{
    if (ok) {
        check_passed++;
        return true;
    }
    check_failed++;
    fprintf(stderr, "%s:%d: CHECK failed: %s", file, line, cond);
    return false;
}

#define CHECK(cond)                                           \
    do {                                                      \
        if (!check_record((cond), __FILE__, __LINE__, #cond)) \
            fputc('\n', stderr);                              \
    } while (0)

/* CHECK that also prints a message (the values that failed) after the
 * condition; cond is evaluated once. */
#define CHECK_MSG(cond, ...)                                    \
    do {                                                        \
        if (!check_record((cond), __FILE__, __LINE__, #cond)) { \
            fputs(": ", stderr);                                \
            fprintf(stderr, __VA_ARGS__);                       \
            fputc('\n', stderr);                                \
        }                                                       \
    } while (0)

static inline int check_report(const char *name)
{
    printf("%s: %d passed, %d failed\n", name, check_passed, check_failed);
    return check_failed ? 1 : 0;
}
#endif

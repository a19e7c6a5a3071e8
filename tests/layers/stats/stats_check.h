/* tests/layers/stats: CHECK of tests/common/check.h, also printing the values
 * that failed (cond is evaluated once). */
#include "../../common/check.h"

#define CHECK_MSG(cond, ...)                                                       \
    do {                                                                           \
        if (cond) {                                                                \
            check_passed++;                                                        \
        } else {                                                                   \
            check_failed++;                                                        \
            fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                          \
            fputc('\n', stderr);                                                   \
        }                                                                          \
    } while (0)
#define ULL(x) ((unsigned long long)(x))

/* tests/suites/debug/check_catch.h — what the checker tests share: the chain's
 * check (t_check, custom_socket(prefix=t_)) must answer NULL on a sound
 * heap and name the broken invariant, layer first, once a test breaks one.
 * Included after the composition. */
#ifndef CHECK_CATCH_H
#define CHECK_CATCH_H
#include "../../common/check.h"
#include <string.h>

/* Every layer's invariants hold. */
#define EXPECT_HOLDS() expect_answer(t_check(), NULL, __LINE__)
/* The check fails with a message containing `layer` + ": " + `what`. */
#define EXPECT_BROKEN(layer, what) expect_answer(t_check(), layer ": " what, __LINE__)

static void expect_answer(const char *got, const char *want, int line)
{
    int ok = want ? got && strstr(got, want) != NULL : got == NULL;
    if (!ok)
        fprintf(stderr, "line %d: t_check() = \"%s\", want %s%s%s\n", line, got ? got : "(null)",
                want ? "\"" : "", want ? want : "NULL", want ? "\"" : "");
    CHECK(ok);
}
#endif

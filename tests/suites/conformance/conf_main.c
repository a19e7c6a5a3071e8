/* tests/suites/conformance/conf_main.c — the conformance program: runs the cases
 * named by its arguments (or `all`) against whatever allocator serves this
 * process, and ends with "conformance: N passed, N failed". After each case
 * it runs the allocator's invariant check (mortise_check(), the chain's
 * check operation) when the allocator exports one: every layer's
 * invariants must hold once the case's threads are gone.
 *
 *     conformance CASE...|all          (docs/conformance.md)
 */
#include "conformance.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct {
    const char *name;
    conf_case_fn *run;
    unsigned watchdog; /* seconds before SIGALRM ends a hung case */
} conf_cases[] = {
    {"api", conf_case_api, 60},      {"align", conf_case_align, 60},    {"errno", conf_case_errno, 60},
    {"bad", conf_case_bad, 60},      {"random", conf_case_random, 120}, {"threads", conf_case_threads, 120},
    {"churn", conf_case_churn, 120}, {"fork", conf_case_fork, 120},     {"trim", conf_case_trim, 120},
    {"order", conf_case_order, 60},
};
#define CONF_NCASES (sizeof conf_cases / sizeof conf_cases[0])

static void conf_usage(const char *argv0)
{
    fprintf(stderr, "usage: %s CASE...|all\ncases:", argv0);
    for (size_t i = 0; i < CONF_NCASES; i++)
        fprintf(stderr, " %s", conf_cases[i].name);
    fprintf(stderr, "\n");
}

static int conf_named(int argc, char **argv, const char *name)
{
    for (int a = 1; a < argc; a++)
        if (!strcmp(argv[a], "all") || !strcmp(argv[a], name))
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    int ran = 0;
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 2) {
        conf_usage(argv[0]);
        return 2;
    }
    if (!conf_require_mortise(0))
        return conf_report();
    const char *(*check)(void) = (const char *(*)(void))conf_symbol("mortise_check");
    for (size_t i = 0; i < CONF_NCASES; i++) {
        if (!conf_named(argc, argv, conf_cases[i].name))
            continue;
        int before = conf_failures();
        double t0 = conf_now();
        alarm((unsigned)conf_seconds(conf_cases[i].watchdog));
        conf_cases[i].run();
        const char *broken = check ? check() : NULL;
        CHECKF(!broken, "after case %s: mortise_check(): %s", conf_cases[i].name, broken);
        alarm(0);
        printf("case %s: %s (%.2f s)\n", conf_cases[i].name, conf_failures() == before ? "ok" : "FAILED",
               conf_now() - t0);
        ran++;
    }
    if (!ran) {
        conf_usage(argv[0]);
        return 2;
    }
    return conf_report();
}

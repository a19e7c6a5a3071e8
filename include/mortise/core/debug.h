/* mortise/core/debug.h — debug levels: assertions on the layers' invariants.
 *
 * MORTISE_DEBUG, fixed at build time (CMake: -DMORTISE_DEBUG=N, which adds
 * -DMORTISE_DEBUG=N to every target; default 0):
 *   0  release: MT_ASSERT and MT_ASSERT_EXPENSIVE compile to nothing (the
 *      condition is not evaluated; the machine code is that of a build
 *      without them — tests/suites/zero_cost and tools/fastpath.sh hold it to that).
 *   1  MT_ASSERT(cond): cheap checks of a layer's local assumptions where
 *      they are relied on (a popped free-list link inside its slab, a class
 *      index in range, a count that cannot go negative, a lock held).
 *   2  also MT_ASSERT_EXPENSIVE(cond) and MT_ASSERT_HOLDS(message): a
 *      layer's whole invariant check (its check operation's own part) after
 *      a slow-path operation.
 * A failed assertion writes one line through the report machinery
 * (core/report.h: write(2) or MT_REPORT_WRITE, never allocating)
 *     mortise: assertion failed: <condition> (<layer>, <file>:<line>)
 * and aborts. <layer> is the instance whose header holds the assertion (its
 * MT_NAME where the assertion is expanded).
 */
#ifndef MORTISE_CORE_DEBUG_H
#define MORTISE_CORE_DEBUG_H

#include "report.h" /* the line's writer; the port layer's write and abort */

#ifndef MORTISE_DEBUG
#define MORTISE_DEBUG 0
#endif

/* Report `what` (a condition or a checker's message) and stop: the process
 * is past the point where a wrong answer could be contained. */
MT_SLOW MT_UNUSED __attribute__((noreturn)) void mt_assert_fail(const char *what, const char *layer,
                                                                const char *file, unsigned line)
{
    char buf[512];
    size_t at = 0, cap = sizeof buf - 1;
    at = mt_report_put(buf, at, cap, "mortise: assertion failed: ");
    at = mt_report_put(buf, at, cap, what);
    at = mt_report_put(buf, at, cap, " (");
    at = mt_report_put(buf, at, cap, layer);
    at = mt_report_put(buf, at, cap, ", ");
    at = mt_report_put(buf, at, cap, file);
    at = mt_report_put(buf, at, cap, ":");
    at = mt_report_put_num(buf, at, cap, line, 10);
    at = mt_report_put(buf, at, cap, ")\n");
    buf[at] = 0;
#if defined(MT_REPORT_WRITE)
    MT_REPORT_WRITE(buf, at);
#else
    mt_pal_write_all(2, buf, at);
#endif
    mt_pal_abort();
}

#define MT__ASSERT_AT(cond, what) \
    (MT_LIKELY(cond) ? (void)0 : mt_assert_fail((what), MT_STR(MT_NAME), __FILE__, __LINE__))
/* Level 0: not evaluated, but still compiled (sizeof), so a variable used
 * only in assertions is not "unused" and a typo does not hide until debug. */
#define MT__ASSERT_OFF(cond) ((void)sizeof(!(cond)))

#if MORTISE_DEBUG >= 1
#define MT_ASSERT(cond) MT__ASSERT_AT(cond, #cond)
#else
#define MT_ASSERT(cond) MT__ASSERT_OFF(cond)
#endif

#if MORTISE_DEBUG >= 2
#define MT_ASSERT_EXPENSIVE(cond) MT__ASSERT_AT(cond, #cond)
/* `message` is a checker's answer: NULL when everything holds, else what is
 * broken (already naming the layer). */
#define MT_ASSERT_HOLDS(message)                                             \
    do {                                                                     \
        const char *mt__broken = (message);                                  \
        if (mt__broken)                                                      \
            mt_assert_fail(mt__broken, MT_STR(MT_NAME), __FILE__, __LINE__); \
    } while (0)
#else
#define MT_ASSERT_EXPENSIVE(cond) MT__ASSERT_OFF(cond)
#define MT_ASSERT_HOLDS(message) ((void)0)
#endif

#endif

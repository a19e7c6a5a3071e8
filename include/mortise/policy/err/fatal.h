/* err_handle=fatal — report and abort().                    [model: fatal]
 * Purpose: stop at the first sign of memory corruption (hslabd), as Scudo
 *   does: a corrupted heap is not run on.
 * Does: prints the report line (core/report.h), then abort() (SIGABRT; the
 *   freestanding build calls __builtin_trap()).
 * Time: one write(2). Space: none. Never allocates, never returns.
 * Example: delayed_free(chksum=magic, node_xor=1, delayed_size=64KB, err_handle=fatal)
 *     #define MT_ERR_HANDLE fatal
 *     #include <mortise/layers/delayed_free.h>
 */
/* The policy's descriptor (core/describe.h): the data tools/describe_layers.py
 * reads; describe mode (MT_DESCRIBE) skips the rest. */
#define MT_POLICY_DESCRIPTOR_err_handle_fatal(POLICY, SLOT) POLICY(err_handle, fatal, policy)
#if !defined(MORTISE_POLICY_ERR_FATAL_H) && !defined(MT_DESCRIBE)
#define MORTISE_POLICY_ERR_FATAL_H
#include "../../core/report.h"

enum { mt_err_fatal_leaks = 1 };

MT_SLOW MT_UNUSED __attribute__((noreturn)) void mt_err_fatal_raise(const mortise_error *e)
{
    mt_report_print(e);
    mt_pal_abort(); /* freestanding: a trap */
}

#endif

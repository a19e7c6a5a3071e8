/* err_handle=default — report on standard error and go on.  [model: default]
 * Purpose: find bugs without stopping the program (wfslabs).
 * Does: prints the report line (core/report.h); the layer then finishes the
 *   operation as far as it is safe: an overflowed or written-after-free
 *   block is still freed below, a double or invalid free is ignored.
 * Time: one write(2) per report. Space: none. Never allocates.
 * Example: tail_chksum(chksum=xor, err_handle=default)
 *     #define MT_ERR_HANDLE default
 *     #include <mortise/layers/tail_chksum.h>
 */
/* The policy's descriptor (core/describe.h): the data tools/describe_layers.py
 * reads; describe mode (MT_DESCRIBE) skips the rest. */
#define MT_POLICY_DESCRIPTOR_err_handle_default(POLICY, SLOT) POLICY(err_handle, default, policy)
#if !defined(MORTISE_POLICY_ERR_DEFAULT_H) && !defined(MT_DESCRIBE)
#define MORTISE_POLICY_ERR_DEFAULT_H
#include "../../core/report.h"

enum { mt_err_default_leaks = 0 };

MT_SLOW MT_UNUSED void mt_err_default_raise(const mortise_error *e) { mt_report_print(e); }

#endif

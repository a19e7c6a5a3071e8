/* err_handle=tolerate — report, drop the damaged block, go on.
 *                                                           [model: tolerate]
 * Purpose: keep a long-running program alive without letting a damaged
 *   block back into circulation (the paper's fault tolerance: discard the
 *   overwritten block).
 * Does: prints the report line (core/report.h); the layer then leaks the
 *   block (never frees it below, so it is never handed out again). A double
 *   or invalid free is ignored, so after a tolerated double free the next
 *   allocations are all distinct blocks.
 * Time: one write(2) per report. Space: the leaked blocks. Never allocates.
 * Example: tail_chksum(err_handle=tolerate)
 *     #define MT_ERR_HANDLE tolerate
 *     #include <mortise/layers/tail_chksum.h>
 */
/* The policy's descriptor (core/describe.h): the data tools/describe_layers.py
 * reads; describe mode (MT_DESCRIBE) skips the rest. */
#define MT_POLICY_DESCRIPTOR_err_handle_tolerate(POLICY, SLOT) POLICY(err_handle, tolerate, policy)
#if !defined(MORTISE_POLICY_ERR_TOLERATE_H) && !defined(MT_DESCRIBE)
#define MORTISE_POLICY_ERR_TOLERATE_H
#include "../../core/report.h"

enum { mt_err_tolerate_leaks = 1 };

MT_SLOW MT_UNUSED void mt_err_tolerate_raise(const mortise_error *e) { mt_report_print(e); }

#endif

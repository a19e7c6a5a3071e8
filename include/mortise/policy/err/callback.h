/* err_handle=callback — hand the report to the program.     [model: callback]
 * Purpose: let the program decide (log, count, dump and abort, ...).
 * API: the socket exports
 *     void mortise_set_error_handler(mortise_error_handler *fn, void *arg);
 *   (PREFIXset_error_handler under custom_socket(prefix=PREFIX)), where
 *     typedef void mortise_error_handler(const mortise_error *e, void *arg);
 *   and mortise_error is {kind (MORTISE_BUG_*), ptr, size, layer, operation}
 *   (core/report.h). fn(e, arg) runs on the thread that found the bug,
 *   inside the allocator: it may not call malloc or free of this allocator.
 *   NULL restores the default. Until a handler is set, reports are printed
 *   as by err_handle=default.
 * Does: calls the handler once per bug; the layer then goes on as under
 *   default (the damaged block is freed, a double or invalid free ignored).
 * Time: one indirect call. Space: two words per process. Never allocates.
 * Example: tail_chksum(err_handle=callback)
 *     #define MT_ERR_HANDLE callback
 *     #include <mortise/layers/tail_chksum.h>
 */
/* The policy's descriptor (core/describe.h): the data tools/describe_layers.py
 * reads; describe mode (MT_DESCRIBE) skips the rest. */
#define MT_POLICY_DESCRIPTOR_err_handle_callback(POLICY, SLOT) POLICY(err_handle, callback, policy)
#if !defined(MORTISE_POLICY_ERR_CALLBACK_H) && !defined(MT_DESCRIBE)
#define MORTISE_POLICY_ERR_CALLBACK_H
#include "../../core/report.h"

enum { mt_err_callback_leaks = 0 };

MT_SLOW MT_UNUSED void mt_err_callback_raise(const mortise_error *e)
{
    mortise_error_handler *fn = mt_load_acquire(&mt_report_handler);
    if (fn)
        fn(e, mt_load_acquire(&mt_report_handler_arg));
    else
        mt_report_print(e);
}

#endif

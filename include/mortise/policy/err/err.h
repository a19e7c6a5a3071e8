/* mortise/policy/err/err.h — the err_handle policy slot: what a safety
 * layer does once it has found a bug (the paper's raise_err).
 *
 * A policy NAME provides
 *     void mt_err_NAME_raise(const mortise_error *e);   report (core/report.h)
 *     enum { mt_err_NAME_leaks = 0 | 1 };               drop damaged blocks?
 * raise is out of line and cold (a layer's fast path holds only its check);
 * it may not return (fatal). After raise returns, the layer never hands a
 * block it cannot vouch for to the layer below: a double free or an invalid
 * free is ignored whatever the policy. With leaks = 1 (tolerate) a block
 * whose own memory was damaged (overflow, underflow, write after free) is
 * also dropped — leaked, never reused — instead of being freed below.
 *
 * Layers name the policy in their MT_ERR_HANDLE slot and reach it as
 * MT_ERR_FN(policy, raise) and MT_ERR_LEAKS(policy).
 *
 * Policies: default (report on stderr, go on), fatal (report, abort()),
 * tolerate (report, leak the damaged block, go on), callback (the handler
 * set with mortise_set_error_handler(), else as default).
 */
#ifndef MORTISE_POLICY_ERR_H
#define MORTISE_POLICY_ERR_H

#include "../../core/report.h"

#define MT_ERR_FN(policy, op) MT_CAT(MT_CAT(mt_err_, policy), _##op)
#define MT_ERR_LEAKS(policy) MT_CAT(MT_CAT(mt_err_, policy), _leaks)

#include "default.h"
#include "fatal.h"
#include "tolerate.h"
#include "callback.h"

#endif

/* mortise/policy/sizeclass/sizeclass.h — the sizeclass policy slot.
 *
 * A size-class policy NAME maps request sizes to class indexes and back:
 *     size_t mt_szcls_NAME_index(size_t size);   smallest class holding size
 *     size_t mt_szcls_NAME_size(size_t index);   the class's block size
 *     MT_SZCLS_NAME_CLASSES                      number of classes (array bound)
 * Properties every policy keeps (tests/policies/sizeclass/sizeclass_test checks them):
 * index is monotonic in size, size(index(s)) >= s, index(size(i)) == i, and
 * every class size is a multiple of MT_MIN_ALIGN. A size above the last
 * class has no class: index returns the class count (the table policies tc,
 * supermalloc and prime end at 256 KiB, 1020 KiB and 266.5 KiB; a layer
 * bounds its size_handle by the last class, size(CLASSES - 1)).
 * Policies: log2b, interval, tc, supermalloc, prime (one header each; each
 * header states its rule and its worst internal fragmentation).
 * Optionally a policy names itself for getmeta's class hint (core/ctx.h):
 *     MT_SZCLS_NAME_KEY                          non-zero, unique per policy and
 *                                                parameters, usable in #if
 * It is read with MT_SZCLS_KEY(policy) inside `#if` (an undefined key is 0
 * there: no hint); a layer with a sizeclass slot includes slot.h, which sets
 * the slot's defaults and MT_SELF(szcls_key).
 */
#ifndef MORTISE_POLICY_SIZECLASS_H
#define MORTISE_POLICY_SIZECLASS_H

#include "../../core/platform.h"

#define MT_SZCLS_FN(policy, op) MT_CAT(MT_CAT(mt_szcls_, policy), _##op)
#define MT_SZCLS_CLASSES(policy) MT_CAT(MT_CAT(MT_SZCLS_, policy), _CLASSES)
#define MT_SZCLS_KEY(policy) MT_CAT(MT_CAT(MT_SZCLS_, policy), _KEY)

#include "log2b.h"
#include "interval.h"
#include "tc.h"
#include "supermalloc.h"
#include "prime.h"

#endif

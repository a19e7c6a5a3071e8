/* sync=none — no synchronisation.                             [model: none]
 *
 * Purpose: a layer instance that needs no lock: single-threaded programs
 *   (freestanding kernels, bare metal) and state that is thread-local.
 * Slots: none. Needs: nothing (freestanding).
 * Time: zero instructions; exec calls cs(arg).
 * Space: one byte per lock object (C has no empty struct).
 * Thread safety: none — two threads in one lock's critical section at once
 *   corrupt the layer; tests/policies/sync runs only its single-threaded cases.
 * Fails: never.
 * Example:
 *     // sheap_glk(pool_size=1MB, sync=none)::kernel_socket (single-threaded)
 *     #define MT_SYNC none
 *     #include <mortise/os/sheap_glk.h>
 */
/* The policy's descriptor (core/describe.h): the data tools/describe_layers.py
 * reads; describe mode (MT_DESCRIBE) skips the rest. */
#define MT_POLICY_DESCRIPTOR_sync_none(POLICY, SLOT) POLICY(sync, none, policy)
#if !defined(MORTISE_POLICY_SYNC_NONE_H) && !defined(MT_DESCRIBE)
#define MORTISE_POLICY_SYNC_NONE_H
#include "../../core/platform.h"

typedef struct {
    char unused;
} mt_sync_none;
MT_INLINE void mt_sync_none_init(mt_sync_none *l) { (void)l; }
MT_INLINE void mt_sync_none_lock(mt_sync_none *l) { (void)l; }
MT_INLINE void mt_sync_none_unlock(mt_sync_none *l) { (void)l; }
MT_INLINE void *mt_sync_none_exec(mt_sync_none *l, void *(*cs)(void *), void *arg)
{
    (void)l;
    return cs(arg);
}
#endif

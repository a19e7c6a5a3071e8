/* sync=none — no synchronisation. For single-threaded programs and for layers
 * whose state is thread-local. Cost: nothing. */
#ifndef MORTISE_POLICY_SYNC_NONE_H
#define MORTISE_POLICY_SYNC_NONE_H
#include "../../core/platform.h"

typedef struct { char unused; } mt_sync_none;
MT_INLINE void mt_sync_none_init(mt_sync_none *l) { (void)l; }
MT_INLINE void mt_sync_none_lock(mt_sync_none *l) { (void)l; }
MT_INLINE void mt_sync_none_unlock(mt_sync_none *l) { (void)l; }
MT_INLINE void *mt_sync_none_exec(mt_sync_none *l, void *(*cs)(void *), void *arg)
{
    (void)l;
    return cs(arg);
}
#endif

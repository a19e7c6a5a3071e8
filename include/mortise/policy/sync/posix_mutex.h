/* sync=posix_mutex — the C library's pthread mutex (futex-based: waiters sleep).
 * Fair enough in practice, never burns a time slice; costs a lock-prefixed
 * instruction per acquire and release when uncontended. Zero-filled storage is
 * PTHREAD_MUTEX_INITIALIZER on glibc and musl, the platforms we build for. */
#ifndef MORTISE_POLICY_SYNC_POSIX_MUTEX_H
#define MORTISE_POLICY_SYNC_POSIX_MUTEX_H
#include "wait.h" /* MT_SYNC_EXEC_BY_LOCKING */
#include <pthread.h>

typedef struct { pthread_mutex_t m; } mt_sync_posix_mutex;

MT_INLINE void mt_sync_posix_mutex_init(mt_sync_posix_mutex *l)
{
    pthread_mutex_init(&l->m, NULL);
}
MT_INLINE void mt_sync_posix_mutex_lock(mt_sync_posix_mutex *l) { pthread_mutex_lock(&l->m); }
MT_INLINE void mt_sync_posix_mutex_unlock(mt_sync_posix_mutex *l) { pthread_mutex_unlock(&l->m); }
MT_SYNC_EXEC_BY_LOCKING(posix_mutex)
#endif

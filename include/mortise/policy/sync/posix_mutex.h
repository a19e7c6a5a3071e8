/* sync=posix_mutex — the C library's pthread mutex.        [model: posix_mutex]
 *
 * Purpose: a safe default (segfit_lk, tlsf_glk): waiters sleep in the
 *   kernel at once (futex), so it never burns a time slice.
 * Slots: none. Needs: POSIX threads (not freestanding).
 * Time: uncontended lock and unlock = one locked instruction each, behind a
 *   call into the C library. Fairness: none guaranteed (a running thread
 *   usually retakes the lock before a woken sleeper runs: tests/policies/sync's bypass
 *   case measures thousands); worst case unbounded.
 * Space: sizeof(pthread_mutex_t) (40 bytes on x86-64 glibc). Nesting
 *   unlimited.
 * Thread safety / lock order: plain non-recursive lock; exec runs cs on the
 *   caller. Zero-filled storage is PTHREAD_MUTEX_INITIALIZER on glibc and
 *   musl, the platforms we build for. Fork: init() in the child.
 * Fails: never (a default mutex reports no errors we could act on).
 * Example:
 *     // mmap_heap::segfit_lk(sync=posix_mutex)::malloc_socket
 *     #define MT_SYNC posix_mutex
 *     #include <mortise/layers/segfit_lk.h>
 */
/* The policy's descriptor (core/describe.h): the data tools/describe_layers.py
 * reads; describe mode (MT_DESCRIBE) skips the rest. */
#define MT_POLICY_DESCRIPTOR_sync_posix_mutex(POLICY, SLOT) POLICY(sync, posix_mutex, policy)
#if !defined(MORTISE_POLICY_SYNC_POSIX_MUTEX_H) && !defined(MT_DESCRIBE)
#define MORTISE_POLICY_SYNC_POSIX_MUTEX_H
#include "wait.h" /* MT_SYNC_EXEC_LOCKING */

/* The lock is the port layer's mutex (pal.h: pthread_mutex_t on Linux). */
typedef struct {
    mt_pal_mutex m;
} mt_sync_posix_mutex;

MT_INLINE void mt_sync_posix_mutex_init(mt_sync_posix_mutex *l) { mt_pal_mutex_init(&l->m); }
MT_INLINE void mt_sync_posix_mutex_lock(mt_sync_posix_mutex *l) { mt_pal_mutex_lock(&l->m); }
MT_INLINE void mt_sync_posix_mutex_unlock(mt_sync_posix_mutex *l) { mt_pal_mutex_unlock(&l->m); }
MT_INLINE void *mt_sync_posix_mutex_exec(mt_sync_posix_mutex *l, void *(*cs)(void *), void *arg)
{
    MT_SYNC_EXEC_LOCKING(posix_mutex, l, cs, arg);
}
#endif

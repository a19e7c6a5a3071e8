/* mortise/policy/sync/sync.h — the sync policy slot.
 *
 * A sync policy NAME provides, for a lock object of type mt_sync_NAME:
 *     void  mt_sync_NAME_init(mt_sync_NAME *l);      also resets it in a fork child
 *     void  mt_sync_NAME_lock(mt_sync_NAME *l);
 *     void  mt_sync_NAME_unlock(mt_sync_NAME *l);
 *     void *mt_sync_NAME_exec(mt_sync_NAME *l, void *(*cs)(void *), void *arg);
 * exec runs the critical section cs(arg) under the policy and returns its
 * result; combining and delegation policies run it on another thread, so a
 * critical section must touch only what arg reaches (and shared state).
 * lock/unlock exist for every policy so that fork handlers can hold it.
 * A zero-filled lock object is a valid unlocked lock for every policy, so layer
 * state can be static and needs no constructor (allocators run before them);
 * init is for re-initialising, e.g. in a fork child.
 *
 * Layers name the policy in their MT_SYNC slot and reach it through
 * MT_SYNC_T(policy) and MT_SYNC_FN(policy, op). Every layer with a sync
 * slot also has lock_stat=1 → MT_LOCK_STAT (0): contention statistics on
 * its locks (lockstat.h, docs/stats.md).
 *
 * Policies (docs/sync.md compares them): none, spinlock, ticket, mcslock
 * (also freestanding); posix_mutex, posix_spin, ccsynch, flatcombine, rcl
 * (POSIX threads). Every waiter spins a bounded time and then yields or
 * sleeps on a futex (wait.h), so all of them stay usable when threads
 * outnumber cores; every policy allows one thread to hold any number of its
 * locks at once (fork_prepare takes all of a layer's locks).
 */
#ifndef MORTISE_POLICY_SYNC_H
#define MORTISE_POLICY_SYNC_H

#include "../../core/platform.h"

#define MT_SYNC_T(policy) MT_CAT(MT__SYNC_T_, MT_LOCK_STAT)(policy)
#define MT_SYNC_FN(policy, op) MT_CAT(MT__SYNC_FN_, MT_LOCK_STAT)(policy, op)

/* The per-layer switch lock_stat=1 → MT_LOCK_STAT (lockstat.h): 1 picks the
 * policy wrapped with contention statistics, called with the layer's name
 * first; 0 or undefined (the token MT_LOCK_STAT itself is pasted then) the
 * bare policy, the same tokens as without the switch. */
#define MT__SYNC_T_MT_LOCK_STAT(policy) MT_CAT(mt_sync_, policy)
#define MT__SYNC_T_0(policy) MT_CAT(mt_sync_, policy)
#define MT__SYNC_T_1(policy) MT_CAT(mt_lockstat_, policy)
#define MT__SYNC_FN_MT_LOCK_STAT(policy, op) MT_CAT(MT_CAT(mt_sync_, policy), _##op)
#define MT__SYNC_FN_0(policy, op) MT_CAT(MT_CAT(mt_sync_, policy), _##op)
#define MT__SYNC_FN_1(policy, op) MT_CAT(MT_CAT(mt_lockstat_, policy), _##op) MT__LOCKSTAT_ARGS
#define MT__LOCKSTAT_ARGS(...) (MT_STR(MT_NAME), __VA_ARGS__)

#include "none.h"
#include "spinlock.h"
#include "ticket.h"
#include "mcslock.h"
#if !defined(MT_FREESTANDING)
#include "posix_mutex.h"
#include "posix_spin.h"
#include "ccsynch.h"
#include "flatcombine.h"
#include "rcl.h"
#include "lockstat.h"
#endif

#endif

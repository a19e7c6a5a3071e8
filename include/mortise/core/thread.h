/* mortise/core/thread.h — per-thread create/exit and fork handlers for sockets
 * running on POSIX threads.
 *
 * mt_thread_attach (declared in ctx.h) runs the chain's create once per thread
 * and registers a pthread key whose destructor runs the chain's thread_exit,
 * so caches and thread-local regions are handed back when a thread ends.
 * mt_process_init, a constructor, installs fork handlers derived from the
 * layers' own locks: prepare takes them from the socket down to the OS layer
 * (the order every request takes them), parent releases, child re-initialises.
 * Nothing here allocates: the port layer's thread-exit key (pthread keys on
 * Linux) uses static storage for a low key, so it is safe inside malloc.
 */
#ifndef MORTISE_CORE_THREAD_H
#define MORTISE_CORE_THREAD_H

#include "ctx.h"

static mt_pal_key mt_thread_key;
/* 0 absent, being created, MT_ONCE_DONE ready, MT_ONCE_FAILED (platform.h:
 * a fork child that inherited a creation under way creates the key again) */
static mt_once mt_thread_key_state;
static MT_TLS bool mt_thread_attached;

static void mt_thread_detach(void *unused)
{
    (void)unused;
    mt_ctx ctx = mt_ctx_for_alloc(0, 1);
    mt_thread_attached = false;
    mt_chain_lock_stat_event(MT_LOCK_STAT_EXIT_BEGIN);
    mt_chain_thread_exit(&ctx);
    mt_chain_lock_stat_event(MT_LOCK_STAT_EXIT_END);
}

MT_SLOW bool mt_thread_key_ready(void)
{
    uintptr_t state = mt_load_acquire(&mt_thread_key_state);
    if (!mt_once_final(state) && (state = mt_once_enter(&mt_thread_key_state)) == 0) {
        state = mt_pal_key_create(&mt_thread_key, mt_thread_detach) ? MT_ONCE_DONE : MT_ONCE_FAILED;
        mt_once_leave(&mt_thread_key_state, state);
    }
    return state == MT_ONCE_DONE;
}

MT_UNUSED static void mt_thread_attach(void)
{
    if (mt_thread_attached)
        return;
    mt_thread_attached = true;
    if (mt_thread_key_ready())
        mt_pal_key_set(mt_thread_key, (void *)1);
    mt_ctx ctx = mt_ctx_for_alloc(0, 1);
    mt_chain_create(&ctx);
}

/* With lock statistics, their hooks run first at prepare and last after
 * (mt_chain_lock_stat_event, core/ctx.h). */
static void mt_fork_prepare(void)
{
    mt_ctx ctx = mt_ctx_for_alloc(0, 1);
    mt_chain_lock_stat_event(MT_LOCK_STAT_FORK_PREPARE);
    mt_chain_fork_prepare(&ctx);
}
static void mt_fork_parent(void)
{
    mt_ctx ctx = mt_ctx_for_alloc(0, 1);
    mt_chain_fork_parent(&ctx);
    mt_chain_lock_stat_event(MT_LOCK_STAT_FORK_PARENT);
}
static void mt_fork_child(void)
{
    mt_ctx ctx = mt_ctx_for_alloc(0, 1);
    mt_chain_fork_child(&ctx);
    mt_chain_lock_stat_event(MT_LOCK_STAT_FORK_CHILD);
}

__attribute__((constructor)) static void mt_process_init(void)
{
    mt_thread_key_ready();
    mt_pal_atfork(mt_fork_prepare, mt_fork_parent, mt_fork_child);
}

#endif

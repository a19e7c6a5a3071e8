/* sync=rcl — remote core locking (Lozi, David, Thomas, Lawall & Muller,
 * USENIX ATC 2012).                                               [model: rcl]
 *
 * Purpose: delegation. Under contention the critical sections of a lock are
 *   run by one server thread, so the data they touch stays in the server's
 *   cache instead of travelling between cores with the lock.
 * Algorithm: a client posts a request (cs, arg, a result slot and a wait
 *   word, all in a node on its own stack) on the lock's request stack (one
 *   CAS) and waits on the node; the server takes every posted request at once
 *   (one exchange), runs them oldest first under the lock's mutex and answers
 *   each node. A client whose request is still not taken after a bounded
 *   wait (MT_SYNC_SPIN polls: the server is preempted, as it will be when
 *   threads outnumber cores) takes the posted requests itself and runs them
 *   the same way, so progress never waits for the server to be scheduled. One server per lock, so a critical section that itself takes
 *   another lock (rcl or not) waits exactly as its client would have: the
 *   server adds no lock-order edges. Servers are counted: at most
 *   MT_RCL_MAX_SERVERS run at once per composition (translation unit); a lock
 *   that finds no free slot runs its critical sections locally.
 * Life of a server: started lazily by the first exec that finds the lock's
 *   mutex taken, if the process may run on at least MT_RCL_MIN_CORES cores
 *   (a server needs a core of its own besides two contending clients; with
 *   fewer, every hand-over to the server would wait for the scheduler, so
 *   the lock stays a plain futex mutex) (pthread_create, detached, all
 *   signals blocked, stack
 *   MT_RCL_STACK); it stops itself after MT_RCL_IDLE_MS without requests,
 *   and the next contended exec starts a new one. Until then, and whenever
 *   no server is running, exec runs cs on the caller under the mutex.
 * lock/unlock: take and release the mutex itself (a futex mutex, wait.h).
 *   The server takes the same mutex around its runs (at most MT_RCL_BATCH
 *   requests per hold), so a holder excludes the server, the holder needs no
 *   node and may hold any number of locks (fork_prepare).
 * Failure to start: if pthread_create fails the lock is marked failed and
 *   every exec runs locally under the mutex (a fork child tries again).
 * Fork: prepare (lock) takes the mutex, which waits for the server's current
 *   run to end and keeps it from starting another, so the protected data is
 *   quiescent when fork copies it; parent (unlock) lets the server go on;
 *   child (init) finds the lock's server belonging to the parent (its process
 *   id is kept with the state), resets mutex, server state and request stack
 *   (only requests of parent threads, which do not exist in the child, can be
 *   there), and the child's first contended exec starts its own server.
 * Exit: servers are detached and never joined. exit() ends them with the
 *   process, wherever they are; if the program instead ends its last thread
 *   with pthread_exit, idle servers stop within MT_RCL_IDLE_MS, so the
 *   process ends. A lock object must stay valid while its server may run
 *   (static storage, as all layer state is).
 * Allocation: cs must not allocate (it runs inside allocator layers). Starting
 *   a server does: glibc's pthread_create takes the new thread's TLS vector
 *   (a few hundred bytes) from calloc, on the starting thread, which holds no
 *   lock of this policy at that point but may hold locks of layers above;
 *   those must not be needed to serve a small calloc (put rcl under layers
 *   that do not call down while holding their own lock, or set
 *   MT_RCL_MAX_SERVERS=0 to never start a server).
 * Slots: none in the model language. Tuning: MT_RCL_MAX_SERVERS (8),
 *   MT_RCL_MIN_CORES (3),
 *   MT_RCL_IDLE_MS (100), MT_RCL_BATCH (64), MT_RCL_STACK (256 KiB),
 *   MT_SYNC_SPIN (wait.h) polling rounds before a client or idle server sleeps.
 * Needs: POSIX threads, the futex system call on Linux. Not freestanding.
 * Time: exec with a server: a CAS, a hand-over to the server and back (two
 *   cache-line transfers, or a futex wake when the server or the client had
 *   parked). Without a server: a try-lock. Fairness: requests posted between
 *   two server runs are run oldest first; lock() holders and the server
 *   alternate at least every MT_RCL_BATCH requests. Worst case for a client:
 *   the requests already posted plus one MT_RCL_BATCH-long run of the holder.
 * Space: 32 bytes per lock; a 48-byte node on the client's stack while it
 *   waits; one thread (MT_RCL_STACK of stack) per lock under contention.
 * Thread safety / lock order: non-recursive. Critical sections run on the
 *   server's thread: they must touch only what arg reaches and shared state,
 *   never the caller's thread-local state. Zero-filled = unlocked, no server.
 * Example:
 *     // mmap_heap::segfit_lk(sync=rcl)::malloc_socket
 *     #define MT_SYNC rcl
 *     #include <mortise/layers/segfit_lk.h>
 */
/* The policy's descriptor (core/describe.h): the data tools/describe_layers.py
 * reads; describe mode (MT_DESCRIBE) skips the rest. */
#define MT_POLICY_DESCRIPTOR_sync_rcl(POLICY, SLOT) POLICY(sync, rcl, policy)
#if !defined(MORTISE_POLICY_SYNC_RCL_H) && !defined(MT_DESCRIBE)
#define MORTISE_POLICY_SYNC_RCL_H
#include "wait.h"

#ifndef MT_RCL_MAX_SERVERS
#define MT_RCL_MAX_SERVERS 8
#endif
#ifndef MT_RCL_MIN_CORES
#define MT_RCL_MIN_CORES 3
#endif
#ifndef MT_RCL_IDLE_MS
#define MT_RCL_IDLE_MS 100
#endif
#ifndef MT_RCL_BATCH
#define MT_RCL_BATCH 64
#endif
#ifndef MT_RCL_STACK
#define MT_RCL_STACK ((size_t)256 << 10)
#endif

typedef struct mt_sync_rcl_req {
    struct mt_sync_rcl_req *next;
    void *(*cs)(void *);
    void *arg;
    void *ret;
    _Atomic(uint32_t) state; /* MT_SYNC_WAITING until answered (0) */
} mt_sync_rcl_req;

/* Server states, kept with the process id: (pid << 8) | state. */
enum { MT_RCL_NONE = 0, MT_RCL_STARTING = 1, MT_RCL_RUNNING = 2, MT_RCL_STOPPING = 3, MT_RCL_FAILED = 4 };

typedef struct {
    mt_sync_futex_lock m;              /* the exclusive path: lock(), local runs, server runs */
    _Atomic(uint32_t) clients;         /* delegating threads not yet answered */
    _Atomic(uint64_t) server;          /* (pid << 8) | MT_RCL_* */
    _Atomic(mt_sync_rcl_req *) posted; /* requests for the server, newest first */
    _Atomic(uint32_t) idle;            /* 1 while the server is parked: clients wake it */
} mt_sync_rcl;

/* Running servers of this composition, with the process they run in:
 * (pid << 32) | count; a fork child starts again from zero. */
static _Atomic(uint64_t) mt_rcl_servers;

MT_INLINE unsigned mt_sync_rcl_state(mt_sync_rcl *l) { return (unsigned)(atomic_load(&l->server) & 0xff); }

/* In a fork child the lock's server stayed behind in the parent. */
MT_SLOW void mt_rcl_forget_server(mt_sync_rcl *l)
{
    uint64_t pid = (uint64_t)mt_pal_pid(), s = atomic_load(&l->server);
    if (s && (s >> 8) != pid) {
        atomic_store(&l->server, MT_RCL_NONE);
        atomic_store(&l->posted, NULL);
        atomic_store(&l->clients, 0);
        atomic_store(&l->idle, 0);
    }
    if (atomic_load(&mt_rcl_servers) >> 32 != pid) /* nor do the parent's servers */
        atomic_store(&mt_rcl_servers, pid << 32);
}

MT_INLINE void mt_sync_rcl_init(mt_sync_rcl *l)
{
    atomic_init(&l->m.state, 0);
    mt_rcl_forget_server(l);
}

MT_INLINE void mt_sync_rcl_lock(mt_sync_rcl *l) { mt_sync_futex_lock_acquire(&l->m); }
MT_INLINE void mt_sync_rcl_unlock(mt_sync_rcl *l) { mt_sync_futex_lock_release(&l->m); }

/* No server slot left for `count` running servers. */
MT_INLINE bool mt_rcl_full(uint64_t count) { return count + 1 > (uint64_t)(MT_RCL_MAX_SERVERS); }

/* Take (+1) or give back (-1) a server slot of this process. */
MT_SLOW bool mt_rcl_slot(int delta)
{
    uint64_t pid = (uint64_t)mt_pal_pid(), old = atomic_load(&mt_rcl_servers), count;
    do {
        count = (old >> 32) == pid ? (uint32_t)old : 0;
        if (delta > 0 && mt_rcl_full(count))
            return false;
        if (delta < 0 && count == 0)
            return true;
    } while (!atomic_compare_exchange_weak(&mt_rcl_servers, &old,
                                           pid << 32 | (uint32_t)(count + (uint64_t)delta)));
    return true;
}

/* Run the posted requests `batch` (newest first) oldest first, under m. */
MT_SLOW void mt_rcl_serve(mt_sync_rcl *l, mt_sync_rcl_req *batch)
{
    mt_sync_rcl_req *fifo = NULL;
    while (batch) {
        mt_sync_rcl_req *next = batch->next;
        batch->next = fifo;
        fifo = batch;
        batch = next;
    }
    mt_sync_futex_lock_acquire(&l->m);
    for (unsigned n = 1; fifo; n++) {
        mt_sync_rcl_req *req = fifo;
        fifo = req->next; /* before answering: the node lives on its client's stack */
        req->ret = req->cs(req->arg);
        mt_sync_signal(&req->state, 0);
        if (n % MT_RCL_BATCH == 0 && fifo) { /* let lock() holders in */
            mt_sync_futex_lock_release(&l->m);
            mt_sync_futex_lock_acquire(&l->m);
        }
    }
    mt_sync_futex_lock_release(&l->m);
}

/* Nothing posted: poll, park, and after MT_RCL_IDLE_MS without a request
 * stop (true) unless a client is checking in. */
MT_SLOW bool mt_rcl_idle(mt_sync_rcl *l)
{
    for (unsigned i = 0; i < MT_SYNC_SPIN; i++) {
        if (mt_load_relaxed(&l->posted))
            return false;
        mt_cpu_relax();
    }
    atomic_store(&l->idle, 1); /* seq_cst: a client posts, then reads idle */
    if (atomic_load(&l->posted)) {
        atomic_store(&l->idle, 0);
        return false;
    }
    bool timed_out = mt_sync_futex_wait_for(&l->idle, 1, (long)MT_RCL_IDLE_MS * 1000000L);
    atomic_store(&l->idle, 0);
    if (!timed_out || atomic_load(&l->posted))
        return false;
    uint64_t run = atomic_load(&l->server);
    if ((run & 0xff) != MT_RCL_RUNNING ||
        !atomic_compare_exchange_strong(&l->server, &run, (run & ~(uint64_t)0xff) | MT_RCL_STOPPING))
        return false;
    /* A client checks in (+1), then reads the state: it saw RUNNING and will
     * post, or it sees STOPPING and runs locally. */
    if (atomic_load(&l->clients) != 0 || atomic_load(&l->posted)) {
        atomic_store(&l->server, run);
        return false;
    }
    atomic_store(&l->server, MT_RCL_NONE);
    mt_rcl_slot(-1);
    return true;
}

static void *mt_rcl_server(void *arg)
{
    mt_sync_rcl *l = arg;
    for (;;) {
        mt_sync_rcl_req *batch = atomic_exchange(&l->posted, NULL);
        if (batch)
            mt_rcl_serve(l, batch);
        else if (mt_rcl_idle(l))
            return NULL;
    }
}

/* The lock was found taken and has no server: start one. True if running. */
MT_SLOW bool mt_rcl_start(mt_sync_rcl *l)
{
    /* All slots taken (or none configured), or no core to spare for a
     * server: stay local (fork children reset the count in init). */
    if (mt_rcl_full((uint32_t)atomic_load_explicit(&mt_rcl_servers, memory_order_relaxed)) ||
        mt_sync_cores() < MT_RCL_MIN_CORES)
        return false;
    uint64_t pid = (uint64_t)mt_pal_pid(), expect = MT_RCL_NONE;
    if (!atomic_compare_exchange_strong(&l->server, &expect, pid << 8 | MT_RCL_STARTING))
        return (expect & 0xff) == MT_RCL_RUNNING;
    if (!mt_rcl_slot(+1)) {
        atomic_store(&l->server, MT_RCL_NONE); /* all slots busy: local for now */
        return false;
    }
    /* detached, signals blocked: no handler of the program runs there */
    if (!mt_pal_thread_start(mt_rcl_server, l, MT_RCL_STACK)) {
        mt_rcl_slot(-1);
        atomic_store(&l->server, pid << 8 | MT_RCL_FAILED);
        return false;
    }
    atomic_store(&l->server, pid << 8 | MT_RCL_RUNNING);
    return true;
}

/* Post cs to the server and wait for its answer; false if the server is not
 * (or no longer) running, and nothing was posted. */
MT_SLOW bool mt_rcl_delegate(mt_sync_rcl *l, void *(*cs)(void *), void *arg, void **ret)
{
    atomic_fetch_add(&l->clients, 1); /* seq_cst: before reading the state */
    if ((atomic_load(&l->server) & 0xff) != MT_RCL_RUNNING) {
        atomic_fetch_sub(&l->clients, 1);
        return false;
    }
    mt_sync_rcl_req req = {.cs = cs, .arg = arg};
    atomic_init(&req.state, MT_SYNC_WAITING);
    req.next = mt_load_relaxed(&l->posted);
    while (!atomic_compare_exchange_weak(&l->posted, &req.next, &req))
        ;
    if (atomic_load(&l->idle) && atomic_exchange(&l->idle, 0))
        mt_sync_futex_wake(&l->idle, 1);
    /* Help when the server lags (preempted: more threads than cores): after
     * a bounded wait, take whatever is posted and run it here, as the server
     * would. Our own request is then either answered or in the server's
     * hands, where we wait for it. */
    if (!mt_sync_spin_while(&req.state, MT_SYNC_WAITING)) {
        mt_sync_rcl_req *batch = atomic_exchange(&l->posted, NULL);
        if (batch)
            mt_rcl_serve(l, batch);
    }
    mt_sync_await(&req.state);
    atomic_fetch_sub_explicit(&l->clients, 1, memory_order_release);
    *ret = req.ret;
    return true;
}

MT_SLOW void *mt_rcl_contended(mt_sync_rcl *l, void *(*cs)(void *), void *arg)
{
    void *r;
    unsigned state = mt_sync_rcl_state(l);
    if ((state == MT_RCL_RUNNING || (state == MT_RCL_NONE && mt_rcl_start(l))) &&
        mt_rcl_delegate(l, cs, arg, &r))
        return r;
    mt_sync_rcl_lock(l);
    r = cs(arg);
    mt_sync_rcl_unlock(l);
    return r;
}

MT_INLINE void *mt_sync_rcl_exec(mt_sync_rcl *l, void *(*cs)(void *), void *arg)
{
    void *r;
    if ((mt_load_relaxed(&l->server) & 0xff) == MT_RCL_RUNNING && mt_rcl_delegate(l, cs, arg, &r))
        return r;
    if (MT_LIKELY(mt_sync_futex_trylock(&l->m))) {
        r = cs(arg);
        mt_sync_rcl_unlock(l);
        return r;
    }
    return mt_rcl_contended(l, cs, arg);
}
#endif

/* The fork handlers of slab_lk and buddy_glk, with a sync policy that
 * records every init, lock and unlock (in all three layers): fork_prepare
 * takes slab_lk's class locks (the classes it serves, in index order),
 * then buddy_glk's lock, then mmap_heap's (its large-block keep's, then its
 * own), each exactly once (and
 * buddy_glk's record pool lock); fork_parent releases each once and
 * fork_child re-initialises each once, the layers below first. Every
 * critical section pairs its lock and unlock under threads. Then real
 * forks while threads allocate: every child allocates, frees, finds both
 * invariant checkers clean and exits.
 * model: mmap_heap(sync=probe)::buddy_glk(sync=probe, size_handle=[32768, SIZE_MAX])
 *          ::slab_lk(sync=probe, size_handle=[0, 32768])::custom_socket(prefix=t_) */
#include <mortise/mortise.h>

/* sync=probe: a spinlock that counts holds and, while probe_on, logs. */
typedef struct {
    mt_sync_spinlock inner;
    int depth;
} mt_sync_probe;
typedef struct {
    const void *lock;
    char op;
} probe_event;
enum { PROBE_LOG = 4096 };
static probe_event probe_log[PROBE_LOG];
static _Atomic size_t probe_n;
static _Atomic bool probe_on;
static _Atomic long probe_holds;

static void probe_note(const void *l, char op)
{
    if (atomic_load(&probe_on)) {
        size_t i = atomic_fetch_add(&probe_n, 1);
        if (i < PROBE_LOG)
            probe_log[i] = (probe_event){l, op};
    }
}
MT_INLINE void mt_sync_probe_init(mt_sync_probe *l)
{
    mt_sync_spinlock_init(&l->inner);
    l->depth = 0;
    probe_note(l, 'i');
}
MT_INLINE void mt_sync_probe_lock(mt_sync_probe *l)
{
    mt_sync_spinlock_lock(&l->inner);
    l->depth++;
    atomic_fetch_add(&probe_holds, 1);
    probe_note(l, 'l');
}
MT_INLINE void mt_sync_probe_unlock(mt_sync_probe *l)
{
    probe_note(l, 'u');
    atomic_fetch_sub(&probe_holds, 1);
    l->depth--;
    mt_sync_spinlock_unlock(&l->inner);
}
MT_INLINE void *mt_sync_probe_exec(mt_sync_probe *l, void *(*cs)(void *), void *arg)
{
    mt_sync_probe_lock(l);
    void *r = cs(arg);
    mt_sync_probe_unlock(l);
    return r;
}

#define MT_SYNC probe
#include <mortise/os/mmap_heap.h>

#define MT_SYNC probe
#define MT_SIZE_HANDLE 32768, SIZE_MAX
#include <mortise/layers/buddy_glk.h>

#define MT_SYNC probe
#define MT_SIZE_HANDLE 0, 32768
#include <mortise/layers/slab_lk.h>

#define MT_PREFIX t_
#include <mortise/sockets/custom_socket.h>

MT_COMPOSE(mmap_heap, buddy_glk, slab_lk, custom_socket)

#include "../../common/tsb.h"
#include <sys/wait.h>
#include <time.h>

static size_t check(void) { return tsb_check(); }

static void probe_start(void)
{
    atomic_store(&probe_n, 0);
    atomic_store(&probe_on, true);
}
static size_t probe_stop(void)
{
    atomic_store(&probe_on, false);
    return atomic_load(&probe_n);
}

/* Every probe lock free and no hold outstanding. */
static bool all_free(void)
{
    bool ok = buddy_glk_state.lock.depth == 0 && atomic_load(&probe_holds) == 0;
    for (size_t i = 0; i < MT_SZCLS_tc_CLASSES; i++)
        ok &= slab_lk_state.cls[i].lock.depth == 0;
    ok &= !mt_load_relaxed(&buddy_glk_state.records.lock.held);
    ok &= mmap_heap_state.lock.depth == 0 && mmap_heap_keep.lock.depth == 0;
    return ok;
}

/* The probe locks in request order, each with its layer (0 slab_lk, 1
 * buddy_glk, 2 mmap_heap): slab_lk's classes, buddy_glk's lock, mmap_heap's
 * large-block keep and then its own lock. */
static size_t request_order(const void **order, int *layer)
{
    size_t n = 0;
    for (size_t i = 0; i < slab_lk_classes_used(); i++)
        layer[n] = 0, order[n++] = &slab_lk_state.cls[i].lock;
    layer[n] = 1, order[n++] = &buddy_glk_state.lock;
    layer[n] = 2, order[n++] = &mmap_heap_keep.lock;
    layer[n] = 2, order[n++] = &mmap_heap_state.lock;
    return n;
}

/* Mismatches between the log and `op` on every lock in request order
 * (prepare), or layer by layer from the OS layer up (parent, child: each
 * layer passes on first, then releases its own locks in its own order). */
static size_t order_errors(size_t logged, char op, bool below_first)
{
    enum { LOCKS = MT_SZCLS_tc_CLASSES + 3 };
    const void *order[LOCKS], *want[LOCKS];
    int layer[LOCKS];
    size_t n = request_order(order, layer), bad = 0, k = 0;
    if (logged != n)
        return 1000 + logged;
    for (int l = below_first ? 2 : 0; below_first ? l >= 0 : l <= 2; l += below_first ? -1 : 1)
        for (size_t i = 0; i < n; i++)
            if (layer[i] == l)
                want[k++] = order[i];
    for (size_t i = 0; i < n; i++)
        bad += probe_log[i].lock != want[i] || probe_log[i].op != op;
    return bad;
}

static void test_handler_order(void)
{
    void *warm[3] = {t_malloc(100), t_malloc(40000), t_malloc(3000)};
    mt_ctx ctx = mt_ctx_for_alloc(0, 1);

    probe_start();
    mt_chain_fork_prepare(&ctx);
    CHECK(order_errors(probe_stop(), 'l', false) == 0);
    CHECK(mt_load_relaxed(&buddy_glk_state.records.lock.held) && mmap_heap_state.lock.depth == 1 &&
          mmap_heap_keep.lock.depth == 1);
    CHECK(slab_lk_classes_used() == mt_szcls_tc_index(32767) + 1); /* every class to 32 KiB */
    probe_start();
    mt_chain_fork_parent(&ctx);
    CHECK(order_errors(probe_stop(), 'u', true) == 0);
    CHECK(all_free());

    mt_chain_fork_prepare(&ctx);
    probe_start();
    mt_chain_fork_child(&ctx);
    CHECK(order_errors(probe_stop(), 'i', true) == 0);
    atomic_store(&probe_holds, 0); /* the child forgets the holds of prepare */
    CHECK(all_free());

    for (int i = 0; i < 3; i++)
        t_free(warm[i]);
    CHECK(check() == 0);
}

/* Under threads every critical section pairs its lock and unlock. */
static void test_pairs(void)
{
    CHECK(tsb_threads(3, 20000, 100000, check) == 0);
    CHECK(all_free());
    CHECK(check() == 0);
}

/* fork() while threads allocate and free: children never find a lock held
 * by a thread that does not exist in them. */
static _Atomic bool busy_stop;
static void *busy(void *arg)
{
    uint64_t s = (uintptr_t)arg;
    void *keep[64] = {0};
    while (!atomic_load(&busy_stop)) {
        size_t i = tsb_next(&s) % 64;
        t_free(keep[i]);
        keep[i] = t_malloc(tsb_size(&s, 200000));
    }
    for (int i = 0; i < 64; i++)
        t_free(keep[i]);
    return NULL;
}

static void test_real_fork(void)
{
    pthread_t t[2];
    for (uintptr_t i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, busy, (void *)(i + 1));
    size_t failed = 0;
    for (int round = 0; round < 40; round++) {
        pid_t pid = fork();
        if (pid == 0) {
            void *a = t_malloc(100), *b = t_malloc(50000), *c = t_malloc((size_t)5 << 20);
            int ok = a && b && c;
            t_free(a), t_free(b), t_free(c);
            _exit(ok && check() == 0 ? 0 : 1);
        }
        int status = -1;
        for (int waited = 0; waited < 500; waited++) { /* 5 s */
            if (waitpid(pid, &status, WNOHANG) == pid)
                break;
            nanosleep(&(struct timespec){0, 10000000}, NULL);
        }
        if (status == -1) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            failed++;
        } else {
            failed += !WIFEXITED(status) || WEXITSTATUS(status) != 0;
        }
    }
    atomic_store(&busy_stop, true);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    CHECK(failed == 0);
    CHECK(check() == 0);
}

int main(void)
{
    test_handler_order();
    test_pairs();
    test_real_fork();
    return check_report("fork_test");
}

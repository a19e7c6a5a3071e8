/* Lazy one-time initialisations cut in half by fork (core/platform.h's
 * mt_once; docs/fork.md). Each case holds a thread between claiming a run
 * and finishing it (the MT_ONCE_HOOK test hook), forks meanwhile, and asks
 * the child for the same thing: the child inherits "under way" with no
 * thread to finish it, so without the take-over it waits for ever (the
 * child's deadline kills it and the case fails).
 *
 *   once        mt_once itself
 *   thread_key  the thread-exit key (core/thread.h mt_thread_key_ready:
 *               every thread's first request in the child would spin)
 *   cpu_caches  the CPU cache table (layers/cache/core_cache.h, read on a
 *               coreaware thread_cache thread's first request)
 *   pool_key    a sync record pool's key (policy/sync/records.h; was
 *               bounded, 10000 yields per new thread of the child)
 *   stats_clock the statistics epoch (stats/registry.h: the child's
 *               MORTISE_STATS report at exit would spin)
 */
#include "../common/hold_point.h"
#define MT_ONCE_HOOK() hold_point()

#include <mortise/mortise.h>
#include <mortise/os/mmap_heap.h>
#define MT_SYNC spinlock
#include <mortise/layers/segfit_lk.h>
#include <mortise/layers/cache/core_cache.h>
#include <mortise/policy/sync/records.h>
#include <mortise/stats/registry.h>
#define MT_PREFIX t_
#include <mortise/sockets/custom_socket.h>

MT_COMPOSE(mmap_heap, segfit_lk, custom_socket)

#include "../common/check.h"
#include "../policies/sync/child.h"
#include <pthread.h>
#include <stdatomic.h>

static void (*first_call)(void);
static void *holder(void *unused)
{
    (void)unused;
    hold_here = 1;
    first_call();
    return NULL;
}

/* Hold a thread inside first() while forking; body runs in the child. */
static void cut_by_fork(const char *name, void (*first)(void), int (*body)(void))
{
    pthread_t h;
    atomic_store(&holder_inside, 0);
    atomic_store(&holder_release, 0);
    first_call = first;
    CHECK(pthread_create(&h, NULL, holder, NULL) == 0);
    while (!atomic_load(&holder_inside))
        usleep(1000);
    double took = 0;
    CHECK_MSG(in_child(body, 5.0, &took), "%s: the child did not finish a run the fork cut", name);
    atomic_store(&holder_release, 1);
    pthread_join(h, NULL);
    printf("%s: child done in %.3f s\n", name, took);
}

/* ---- once ---- */

static mt_once word;
static int runs;
static void once_run(void)
{
    if (mt_once_enter(&word) == 0) {
        runs++;
        mt_once_leave(&word, MT_ONCE_DONE);
    }
}
static int once_child(void)
{
    once_run();
    return mt_load_acquire(&word) == MT_ONCE_DONE && runs == 1 ? 0 : 1;
}

/* ---- thread_key ---- */

static void key_first(void) { mt_thread_key_ready(); }
static void *child_thread(void *p)
{
    void *b = t_malloc(100); /* attaches: the key */
    t_free(b);
    return p;
}
static int key_child(void)
{
    if (!mt_thread_key_ready())
        return 1;
    pthread_t t;
    if (pthread_create(&t, NULL, child_thread, NULL) != 0)
        return 2;
    pthread_join(t, NULL);
    return 0;
}

/* ---- cpu_caches ---- */

static void caches_first(void) { (void)mt_cpu_cache_max(); }
static int caches_child(void)
{
    (void)mt_cpu_cache_max();
    return mt_load_acquire(&mt_cpu_caches.state) == MT_ONCE_DONE ? 0 : 1;
}

/* ---- pool_key ---- */

static mt_sync_pool pool;
static void pool_done(void *unused) { (void)unused; }
static void pool_first(void) { mt_sync_pool_bind(&pool, pool_done); }
static int pool_child(void)
{
    mt_sync_pool_bind(&pool, pool_done);
    return mt_load_acquire(&pool.key_state) == MT_ONCE_DONE ? 0 : 1;
}

/* ---- stats_clock ---- */

static void clock_first(void) { mt_stats_start_clock(); }
static int clock_child(void) { return mt_stats_ticks_per_us() > 0 ? 0 : 1; }

int main(void)
{
    void *b = t_malloc(10); /* the composition is up */
    t_free(b);

    cut_by_fork("once", once_run, once_child);
    CHECK(mt_load_acquire(&word) == MT_ONCE_DONE && runs == 1);

    atomic_store(&mt_thread_key_state, 0); /* as before the constructor's creation */
    cut_by_fork("thread_key", key_first, key_child);
    CHECK(mt_thread_key_ready());

    CHECK(mt_load_acquire(&mt_cpu_caches.state) == 0); /* nothing here read it yet */
    cut_by_fork("cpu_caches", caches_first, caches_child);
    CHECK(mt_load_acquire(&mt_cpu_caches.state) == MT_ONCE_DONE);

    cut_by_fork("pool_key", pool_first, pool_child);
    CHECK(mt_load_acquire(&pool.key_state) == MT_ONCE_DONE);

    CHECK(mt_load_acquire(&mt_stats_epoch.set) == 0); /* no statistics layer registered */
    cut_by_fork("stats_clock", clock_first, clock_child);
    CHECK(mt_load_acquire(&mt_stats_epoch.set) == MT_ONCE_DONE);

    return check_report("once_fork_test");
}

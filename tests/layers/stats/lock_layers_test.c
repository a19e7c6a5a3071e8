/* lock_stat=1 on every kind of layer that has a sync slot, each with
 * another policy: the OS layer (mmap_heap, spinlock), a global-lock trunk
 * (buddy_glk, flatcombine: critical sections run by a combiner), a
 * per-class trunk (slab_lk, posix_spin) and a per-CPU cache (carrcache_lk,
 * mcslock). Two threads churn through all of them; every layer must report
 * its own locks, with exact acquisitions where they are known. Meanwhile the
 * main thread forks: the child allocates, reports (naming call sites with
 * dladdr) and finds the parent's other threads stamped exited. */
#include <mortise/mortise.h>

#define MT_SYNC spinlock
#define MT_LOCK_STAT 1
#include <mortise/os/mmap_heap.h>

#define MT_SYNC flatcombine
#define MT_LOCK_STAT 1
#define MT_SIZECLASS tc
#define MT_SIZE_HANDLE 32768, SIZE_MAX
#include <mortise/layers/buddy_glk.h>

#define MT_SYNC posix_spin
#define MT_LOCK_STAT 1
#define MT_SLAB_SIZE ((size_t)64 << 10)
#define MT_SIZECLASS tc
#define MT_SIZE_HANDLE 0, 32768
#include <mortise/layers/slab_lk.h>

#define MT_SYNC mcslock
#define MT_LOCK_STAT 1
#define MT_SIZE_HANDLE 0, 32768
#include <mortise/layers/carrcache_lk.h>

#define MT_PREFIX ll_
#include <mortise/sockets/custom_socket.h>

MT_COMPOSE(mmap_heap, buddy_glk, slab_lk, carrcache_lk, custom_socket)

#include "stats_check.h"
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/wait.h>

static void *churn(void *arg)
{
    (void)arg;
    void *keep[32] = {0};
    for (int i = 0; i < 20000; i++) {
        int k = i & 31;
        ll_free(keep[k]);
        keep[k] = ll_malloc(i % 7 == 0 ? 40000 + (size_t)(i & 7) * 4096 : 16 + (size_t)(i & 1023));
    }
    for (int k = 0; k < 32; k++)
        ll_free(keep[k]);
    return NULL;
}

/* One layer's lines of the table. */
static const char *layer_line(const char *text, const char *head)
{
    const char *at = strstr(text, head);
    CHECK_MSG(at != NULL, "no line %s in:\n%s", head, text);
    return at;
}

/* In the fork child: only this thread is left. */
static int child_after_fork(void)
{
    unsigned claimed = atomic_load(&mt_lockstat_threads.claimed), ended = 0;
    for (unsigned i = 0; i < claimed && i < MT_LOCKSTAT_THREADS; i++) {
        mt_lockstat_thread *row = &mt_lockstat_threads.rows[i];
        bool gone = atomic_load(&row->end_ns) != 0;
        if (row == mt_lockstat_self.row ? gone : !gone)
            return 1;
        ended += gone;
    }
    if (ended < 2)
        return 2;
    void *p = ll_malloc(100), *q = ll_malloc(50000);
    if (!p || !q)
        return 3;
    ll_free(p);
    ll_free(q);
    int devnull = open("/dev/null", O_WRONLY);
    ll_stats_print(devnull);
    close(devnull);
    return 0;
}

int main(void)
{
    ll_free(ll_malloc(1)); /* the main thread's row */
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, churn, NULL);
    while (atomic_load(&mt_lockstat_threads.claimed) < 3) /* both have a row */
        sched_yield();
    pid_t child = fork();
    if (child == 0)
        _exit(child_after_fork());
    int status = -1;
    CHECK_MSG(child > 0 && waitpid(child, &status, 0) == child, "fork");
    CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
              "fork child: status %d (1 a row's state, 2 rows not ended, 3 malloc)", status);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);

    /* the buddy's one lock: every large request and free took it once,
     * and its wrapper counted each wherever the combiner ran it */
    CHECK_MSG(buddy_glk_state.lock.stat.acquisitions > 0, "buddy lock unused");
    CHECK_MSG(atomic_load(&buddy_glk_state.lock.stat.inside) == 0, "buddy lock: nobody inside");

    char path[] = "/tmp/mortise_lockstat_XXXXXX";
    int fd = mkstemp(path);
    ll_stats_print(fd);
    static char text[1 << 16];
    ssize_t n = pread(fd, text, sizeof text - 1, 0);
    text[n > 0 ? n : 0] = 0;
    close(fd);
    unlink(path);
    layer_line(text, "lock_stat mmap_heap (sync=spinlock): ");
    layer_line(text, "lock_stat buddy_glk (sync=flatcombine): 1 locks, ");
    layer_line(text, "lock_stat slab_lk (sync=posix_spin): ");
    layer_line(text, "lock_stat carrcache_lk (sync=mcslock): ");
    fputs(text, stdout);
    return check_report("lock_layers_test");
}

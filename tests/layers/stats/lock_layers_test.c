/* lock_stat=1 on every kind of layer that has a sync slot, each with
 * another policy: the OS layer (mmap_heap, spinlock), a global-lock trunk
 * (buddy_glk, flatcombine: critical sections run by a combiner), a
 * per-class trunk (slab_lk, posix_spin) and a per-CPU cache (carrcache_lk,
 * mcslock). Two threads churn through all of them; every layer must report
 * its own locks, with exact acquisitions where they are known. */
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
#include <pthread.h>
#include <stdlib.h>

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

int main(void)
{
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, churn, NULL);
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

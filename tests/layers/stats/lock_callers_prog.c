/* Contention built on purpose, for the per-caller and per-thread lock
 * statistics (check_report.py callers): four threads allocate 64-byte
 * blocks, which one class lock of segfit_lk serves, from two call sites —
 * hot_site nine times in ten, cold_site once — while the main thread holds
 * that lock again and again, so every thread that calls meanwhile waits.
 * A fifth thread allocates once (another class, another lock) and then
 * only sleeps until the others are done: its share of time waiting for
 * allocator locks is about 0. The report comes at exit (MORTISE_STATS).
 *
 * Prints "hammer tid N" and "quiet tid N" (the kernel's thread ids, as the
 * report gives them) and the 64-byte class lock's address, for the checker.
 * Linked with -rdynamic so that dladdr names hot_site and cold_site.
 * Built twice: over custom_socket (malloc, free) and, with KERNEL_SOCKET,
 * over kernel_socket (kmalloc, kfree): every socket notes its callers. */
#if defined(KERNEL_SOCKET)
#define MT_CTX_EXTRA unsigned gfp;
#endif
#include <mortise/mortise.h>
#include <mortise/os/mmap_heap.h>

#define MT_SYNC posix_mutex
#define MT_LOCK_STAT 1
#define MT_SIZECLASS log2b
#define MT_SIZE_HANDLE 0, 262144
#include <mortise/layers/segfit_lk.h>

#define MT_PREFIX lc_
#if defined(KERNEL_SOCKET)
#include <mortise/sockets/kernel_socket.h>
MT_COMPOSE(mmap_heap, segfit_lk, kernel_socket)
#define site_alloc(size) lc_kmalloc(size, MT_GFP_KERNEL)
#define site_free(p) lc_kfree(p)
#else
#include <mortise/sockets/custom_socket.h>
MT_COMPOSE(mmap_heap, segfit_lk, custom_socket)
#define site_alloc(size) lc_malloc(size)
#define site_free(p) lc_free(p)
#endif

#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

enum { HAMMERS = 4, HOLDS = 40 };

static _Atomic(int) stop;
static _Atomic(int) started;

/* The two call sites: exported, never inlined, so each keeps its name. */
__attribute__((noinline, visibility("default"))) void hot_site(void)
{
    void *p = site_alloc(64);
    __asm__ volatile("" : : "r"(p) : "memory");
    site_free(p);
    __asm__ volatile("" ::: "memory"); /* no tail call: free's return address is here too */
}

__attribute__((noinline, visibility("default"))) void cold_site(void)
{
    void *p = site_alloc(64);
    __asm__ volatile("" : : "r"(p) : "memory");
    site_free(p);
    __asm__ volatile("" ::: "memory"); /* no tail call: free's return address is here too */
}

static void *hammer(void *arg)
{
    (void)arg;
    printf("hammer tid %ld\n", (long)gettid());
    atomic_fetch_add(&started, 1);
    for (unsigned i = 0; !atomic_load(&stop); i++) {
        if (i % 10 == 9)
            cold_site();
        else
            hot_site();
    }
    return NULL;
}

static void *quiet(void *arg)
{
    (void)arg;
    printf("quiet tid %ld\n", (long)gettid());
    site_free(site_alloc(4000));
    atomic_fetch_add(&started, 1);
    while (!atomic_load(&stop))
        usleep(1000);
    return NULL;
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    pthread_t t[HAMMERS + 1];
    pthread_create(&t[HAMMERS], NULL, quiet, NULL);
    for (int i = 0; i < HAMMERS; i++)
        pthread_create(&t[i], NULL, hammer, NULL);
    while (atomic_load(&started) < HAMMERS + 1)
        sched_yield();
    mt_lockstat_posix_mutex *lock = &segfit_lk_state.cls[segfit_lk_class_for(64, 1)].lock;
    printf("hot lock %p\n", (void *)&lock->stat);
    /* hold the lock until some thread waits for it, and a while longer */
    for (int h = 0; h < HOLDS; h++) {
        mt_lockstat_posix_mutex_lock("segfit_lk", lock);
        while (atomic_load(&lock->stat.inside) < 2)
            sched_yield();
        usleep(2000);
        mt_lockstat_posix_mutex_unlock("segfit_lk", lock);
        usleep(500);
    }
    atomic_store(&stop, 1);
    for (int i = 0; i <= HAMMERS; i++)
        pthread_join(t[i], NULL);
    return 0;
}

/* tests/common/addons.h — what the add-on layer tests share: looking into a
 * trunk's free list, pinning to a CPU, running a function in another thread
 * or in a forked child with a deadline, and forking while another thread
 * allocates (the fork handlers must hold every lock). Include after the
 * composition and tests/common/check.h. */
#ifndef MORTISE_TESTS_ADDONS_H
#define MORTISE_TESTS_ADDONS_H

#include "check.h"
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* A LIFO list threaded through the first word (segfit_lk's class lists). */
static inline bool list_has(void *head, const void *p)
{
    for (void *b = head; b; b = *(void **)b)
        if (b == p)
            return true;
    return false;
}

static inline size_t list_len(void *head)
{
    size_t n = 0;
    for (void *b = head; b; b = *(void **)b)
        n++;
    return n;
}

/* Pin the calling thread to one CPU; false if the machine or the cgroup does
 * not allow it (the caller skips what needs it). */
static inline bool pin_to(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set) == 0 && sched_getcpu() == cpu;
}

static inline void unpin(void)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int i = 0; i < CPU_SETSIZE; i++)
        CPU_SET(i, &set);
    sched_setaffinity(0, sizeof set, &set);
}

/* Run fn(arg) in a new thread and wait for it (its thread_exit has run when
 * this returns: the pthread key destructor runs before the join returns). */
static inline void in_thread(void *(*fn)(void *), void *arg)
{
    pthread_t t;
    CHECK(pthread_create(&t, NULL, fn, arg) == 0);
    CHECK(pthread_join(t, NULL) == 0);
}

/* Run fn in a forked child; true if it exited 0 within `seconds`. */
static inline bool in_child(void (*fn)(void), int seconds)
{
    pid_t pid = fork();
    if (pid < 0)
        return false;
    if (pid == 0) {
        check_failed = 0;
        fn();
        _exit(check_failed ? 1 : 0);
    }
    int status = 0;
    for (int waited = 0; waited < seconds * 100; waited++) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid)
            return WIFEXITED(status) && WEXITSTATUS(status) == 0;
        struct timespec ten_ms = {0, 10 * 1000 * 1000};
        nanosleep(&ten_ms, NULL);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    fprintf(stderr, "child did not finish in %d s (a lock held across fork?)\n", seconds);
    return false;
}

/* Fork `rounds` times while a second thread allocates and frees through
 * alloc_fn/free_fn (sizes 16..4096, cross-size churn); every child runs
 * fn. Returns the number of children that failed or hung. */
typedef struct {
    void *(*alloc_fn)(size_t);
    void (*free_fn)(void *);
    _Atomic(int) stop;
} hammer_args;

static inline void *hammer(void *arg)
{
    hammer_args *h = arg;
    void *keep[64] = {0};
    unsigned x = 12345;
    while (!atomic_load(&h->stop)) {
        x = x * 1103515245 + 12345;
        unsigned i = (x >> 8) % 64;
        if (keep[i])
            h->free_fn(keep[i]);
        keep[i] = h->alloc_fn(16 + (x >> 16) % 4096);
    }
    for (int i = 0; i < 64; i++)
        if (keep[i])
            h->free_fn(keep[i]);
    return NULL;
}

static inline int fork_under_load(void *(*alloc_fn)(size_t), void (*free_fn)(void *), void (*fn)(void),
                                  int rounds)
{
    hammer_args h = {alloc_fn, free_fn, 0};
    pthread_t t;
    int failed = 0;
    if (pthread_create(&t, NULL, hammer, &h) != 0)
        return rounds;
    for (int i = 0; i < rounds; i++)
        failed += !in_child(fn, 5);
    atomic_store(&h.stop, 1);
    pthread_join(t, NULL);
    return failed;
}

#endif

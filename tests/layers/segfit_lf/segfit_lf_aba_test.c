/* segfit_lf ABA stress: 8 threads pop and push blocks of one class as fast
 * as they can, and every pop yields now and then between reading the top
 * block's next pointer and its CAS (the window in which the classic ABA
 * happens: the top is popped, its successor popped, the top pushed back, and
 * a stale CAS installs the successor — a block in use — as the top). Each
 * block carries an owner word (at offset 8; the stack's link is at 0): a pop
 * claims it with a CAS from 0 to the thread's id and a push clears it, so a
 * block handed out twice is caught at once.
 *   segfit_lf_aba_test        the layer as it is: no block may be handed out
 *                             twice, the checker holds, every block returns
 *   segfit_lf_aba_untagged    the same layer built with the tag increment 0
 *                             (MT_SEGFIT_LF_TAG_STEP): the stress must detect
 *                             a block handed out twice (or the run crashing,
 *                             in a child process) — proof that the stress
 *                             sees what the tag prevents
 * model: mmap_heap::segfit_lf(sizeclass=log2b)::custom_socket(prefix=t_) */
#include <mortise/mortise.h>
#include <sched.h>

static _Thread_local unsigned pop_count;
#define MT_SEGFIT_LF_POP_HOOK(stage)                \
    do {                                            \
        if ((stage) == 1 && (++pop_count & 7) == 0) \
            sched_yield();                          \
    } while (0)
#if defined(ABA_UNTAGGED)
#define MT_SEGFIT_LF_TAG_STEP 0
#endif

#include <mortise/os/mmap_heap.h>
#include <mortise/layers/segfit_lf.h>

#define MT_PREFIX t_
#include <mortise/sockets/custom_socket.h>

MT_COMPOSE(mmap_heap, segfit_lf, custom_socket)

#include "../../common/check.h"
#include "../../common/trunk_test.h"
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { THREADS = 8, HELD = 4, ROUNDS = 150000, BLOCK = 64 };

static _Atomic(uint64_t) twice;  /* pops that found the block already owned */
static _Atomic(uint64_t) stolen; /* pushes that found another owner */
static _Atomic(int) stop;

static _Atomic(uint64_t) *owner_word(void *block) { return (_Atomic(uint64_t) *)((char *)block + 8); }

static bool claim(void *b, uint64_t me)
{
    uint64_t none = 0;
    if (b && atomic_compare_exchange_strong(owner_word(b), &none, me))
        return true;
    atomic_fetch_add(&twice, 1);
    atomic_store(&stop, 1);
    return false;
}

static bool unclaim(void *b, uint64_t me)
{
    if (atomic_compare_exchange_strong(owner_word(b), &me, 0))
        return true;
    atomic_fetch_add(&stolen, 1);
    atomic_store(&stop, 1);
    return false;
}

/* Hold HELD blocks; each step gives back a random one and takes a new one,
 * so blocks go back in another order than they came (a stack popped and
 * pushed in mirror order would make every stale CAS harmless). */
static void *stress(void *arg)
{
    uint64_t me = (uintptr_t)arg, seed = me * 0x9e3779b97f4a7c15ull;
    void *held[HELD] = {0};
    for (int step = 0; step < ROUNDS * HELD && !atomic_load_explicit(&stop, memory_order_relaxed); step++) {
        int k = (int)(xorshift(&seed) % HELD);
        if (held[k] && unclaim(held[k], me))
            t_free(held[k]);
        held[k] = t_malloc(BLOCK);
        if (!claim(held[k], me))
            held[k] = NULL; /* not ours to give back */
    }
    for (int k = 0; k < HELD; k++)
        if (held[k] && unclaim(held[k], me))
            t_free(held[k]);
    return NULL;
}

/* One run of the stress; returns the number of double hand-outs seen. */
static uint64_t run_stress(void)
{
    /* blocks start with a clear owner word: carve them all now, free them */
    enum { WARM = THREADS * HELD * 4 };
    void *warm[WARM];
    for (int i = 0; i < WARM; i++) {
        warm[i] = t_malloc(BLOCK);
        atomic_store(owner_word(warm[i]), 0);
    }
    for (int i = 0; i < WARM; i++)
        t_free(warm[i]);
    pthread_t t[THREADS];
    for (uintptr_t i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, stress, (void *)(i + 1));
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    return atomic_load(&twice) + atomic_load(&stolen);
}

#if !defined(ABA_UNTAGGED)
int main(void)
{
    time_t start = time(NULL);
    uint64_t bad = run_stress();
    CHECK(bad == 0);
    CHECK(t_check() == NULL);
    /* all blocks are back: the class's stack holds exactly what was carved */
    mt_lf_stats st;
    CHECK(segfit_lf_walk(&st) == NULL && st.free_blocks >= THREADS * HELD * 4);
    printf("segfit_lf_aba_test: %d threads x %d rounds x %d blocks in %ld s, %llu double hand-outs\n",
           THREADS, ROUNDS, HELD, (long)(time(NULL) - start), (unsigned long long)bad);
    return check_report("segfit_lf_aba_test");
}
#else
/* The untagged layer may corrupt its stack beyond a clean report: run the
 * stress in a child (up to 20 runs, bounded by an alarm); detection = the
 * child reports a double hand-out or dies of a signal other than the alarm. */
int main(void)
{
    pid_t child = fork();
    if (child == 0) { /* a run of about a second detects it most of the time */
        alarm(60);
        for (int run = 0; run < 20; run++)
            if (run_stress())
                _exit(0);
        _exit(1);
    }
    int status = 0;
    waitpid(child, &status, 0);
    bool detected = (WIFEXITED(status) && WEXITSTATUS(status) == 0) ||
                    (WIFSIGNALED(status) && WTERMSIG(status) != SIGALRM);
    printf("segfit_lf_aba_untagged: %s\n",
           WIFEXITED(status) ? (WEXITSTATUS(status) == 0 ? "double hand-out detected" : "nothing detected")
                             : "child killed by a signal");
    CHECK(detected);
    return check_report("segfit_lf_aba_untagged");
}
#endif

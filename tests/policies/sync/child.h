/* tests/policies/sync/child.h — run a function in a forked child with a deadline. */
#ifndef MORTISE_TEST_SYNC_CHILD_H
#define MORTISE_TEST_SYNC_CHILD_H
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* fork, run body in the child and _exit with its result; true if the child
 * exits 0 within `seconds` (a child still running then is killed and counts
 * as hung). *took: seconds from fork to the child's end. */
static bool in_child(int (*body)(void), double seconds, double *took)
{
    double t0 = now_s();
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0)
        _exit(body());
    if (pid < 0)
        return false;
    int status = -1;
    while (waitpid(pid, &status, WNOHANG) == 0) {
        if (now_s() - t0 > seconds) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            fprintf(stderr, "child %d hung\n", (int)pid);
            break;
        }
        usleep(1000);
    }
    *took = now_s() - t0;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fprintf(stderr, "child: status %#x\n", (unsigned)status);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}
#endif

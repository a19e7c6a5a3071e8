/* runstat: run one benchmark process and report its wall time and rusage.
 *
 *     runstat OUTFILE PRELOAD -- PROGRAM [ARG...]
 *
 * tools/bench.py measures every run through this launcher rather than
 * forking the program itself: Linux starts a process's maximum RSS at the
 * resident size of the process it was forked from (exec keeps the old
 * image's high-water mark), so a program forked straight from the Python
 * harness would never report less than the harness's own ~20 MB. Forked
 * from this small launcher, the floor is the launcher's few hundred KB.
 *
 * PRELOAD (may be empty) becomes LD_PRELOAD of the program only, so the
 * launcher itself always runs on the system malloc. When the program ends,
 * OUTFILE gets one line:
 *     status=<raw wait status> wall_s=<seconds> maxrss_kb=<KB> utime_s=<s> stime_s=<s>
 * maxrss covers the program and the descendants it waited for. Exit status:
 * 0 when OUTFILE was written, 127 when the program could not be started,
 * 126 on a launcher error. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double seconds(struct timeval tv) { return (double)tv.tv_sec + (double)tv.tv_usec / 1e6; }

int main(int argc, char **argv)
{
    if (argc < 5 || strcmp(argv[3], "--") != 0) {
        fprintf(stderr, "usage: runstat OUTFILE PRELOAD -- PROGRAM [ARG...]\n");
        return 126;
    }
    const char *outfile = argv[1], *preload = argv[2];
    double start = now();
    pid_t pid = fork();
    if (pid < 0) {
        perror("runstat: fork");
        return 126;
    }
    if (pid == 0) {
        if (preload[0] != '\0')
            setenv("LD_PRELOAD", preload, 1);
        else
            unsetenv("LD_PRELOAD");
        execvp(argv[4], &argv[4]);
        fprintf(stderr, "runstat: cannot run %s: %s\n", argv[4], strerror(errno));
        _exit(127);
    }
    int status;
    struct rusage ru;
    while (wait4(pid, &status, 0, &ru) < 0) {
        if (errno != EINTR) {
            perror("runstat: wait4");
            return 126;
        }
    }
    double wall = now() - start;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        return 127; /* exec failed (the child said why on stderr) */
    FILE *out = fopen(outfile, "w");
    if (!out) {
        perror("runstat: OUTFILE");
        return 126;
    }
    fprintf(out, "status=%d wall_s=%.6f maxrss_kb=%ld utime_s=%.6f stime_s=%.6f\n", status, wall,
            ru.ru_maxrss, seconds(ru.ru_utime), seconds(ru.ru_stime));
    return fclose(out) == 0 ? 0 : 126;
}

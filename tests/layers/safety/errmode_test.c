/* errmode_test — each err_handle policy against each kind of bug, on
 * delayed_free and tail_chksum composed over segfit_lk (compose.h; the mode
 * is SAFETY_ERR). Each bug runs in a child whose standard error is read
 * back and matched line by line against the report format of core/report.h:
 *   default   exactly one report naming the class, the block and the layer;
 *             the child reaches its end and exits 0;
 *   fatal     the same report, then SIGABRT before the end;
 *   tolerate  one report, exit 0; after a tolerated double free the next
 *             allocations of that size are all distinct blocks, and an
 *             overflowed or written-after-free block is never handed out
 *             again;
 *   callback  the handler fires exactly once with the class and the block
 *             (checked in the child, which prints nothing); without a
 *             handler the report is printed as by default. */
#define SAFETY_DELAYED 1
#define SAFETY_TAIL 1
#include "compose.h"
#include "safety_check.h"
#include <regex.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define MODE_STR MT_STR(SAFETY_ERR)
enum { MODE_DEFAULT, MODE_FATAL, MODE_TOLERATE, MODE_CALLBACK };
static int mode(void)
{
    return !strcmp(MODE_STR, "fatal")      ? MODE_FATAL
           : !strcmp(MODE_STR, "tolerate") ? MODE_TOLERATE
           : !strcmp(MODE_STR, "callback") ? MODE_CALLBACK
                                           : MODE_DEFAULT;
}

/* One bug; announces the block the report must name before the operation
 * that finds it (a fatal report ends the child there), and returns it. */
typedef void *bug_fn(void);

static void *announce(void *p)
{
    printf("PTR %p\n", p);
    fflush(stdout);
    return p;
}

static void *bug_overflow(void)
{
    unsigned char *p = t_malloc(24);
    p[24] = 'x';
    t_free(announce(p));
    return p;
}
static void *bug_double_free(void)
{
    void *p = t_malloc(64);
    t_free(p);
    t_free(announce(p));
    return p;
}
static void *bug_write_after_free(void)
{
    unsigned char *p = t_malloc(200);
    t_free(p);
    p[100] = 0;
    announce(p);
    t_malloc_trim(0);
    return p;
}
static void *bug_invalid_free(void)
{
    static char global[64] __attribute__((aligned(16)));
    t_free(announce(global + 16));
    return global + 16;
}
static void *bug_interior_free(void)
{
    unsigned char *p = t_malloc(500);
    t_free(announce(p + 64));
    return p + 64;
}
static void *bug_underflow(void)
{
    unsigned char *p = t_malloc(100);
    p[-2] ^= 0x20;
    t_free(announce(p));
    return p;
}

static const struct {
    const char *name, *class_name, *layer;
    int kind;
    bug_fn *run;
} bugs[] = {
    {"overflow", "heap-buffer-overflow", "tail_chksum", MORTISE_BUG_HEAP_BUFFER_OVERFLOW, bug_overflow},
    {"double_free", "double-free", "delayed_free", MORTISE_BUG_DOUBLE_FREE, bug_double_free},
    {"write_after_free", "write-after-free", "delayed_free", MORTISE_BUG_WRITE_AFTER_FREE,
     bug_write_after_free},
    {"invalid_free", "invalid-free", "pagemap", MORTISE_BUG_INVALID_FREE, bug_invalid_free},
    {"interior_free", "invalid-free", "delayed_free", MORTISE_BUG_INVALID_FREE, bug_interior_free},
    {"underflow", "heap-buffer-underflow", "delayed_free", MORTISE_BUG_HEAP_BUFFER_UNDERFLOW, bug_underflow},
};
#define NBUGS (sizeof bugs / sizeof bugs[0])

/* The child: set the handler (callback mode), run the bug, tell the parent
 * the block's address on stdout, then "END" if it got there. */
static void child(size_t b, bool handler)
{
    if (handler)
        t_set_error_handler(record, NULL);
    void *p = bugs[b].run();
    if (handler) {
        printf("CALLS %d KIND %d SAME %d\n", seen.count, seen.last.kind, seen.last.ptr == p);
    }
    if (mode() == MODE_TOLERATE && b == 1) {
        /* after the tolerated double free: 100 live blocks of that size,
         * no two the same */
        void *live[100];
        int dup = 0;
        for (int i = 0; i < 100; i++) {
            live[i] = t_malloc(64);
            for (int j = 0; j < i; j++)
                dup += live[i] == live[j];
        }
        printf("DUPLICATES %d\n", dup);
    }
    if (mode() == MODE_TOLERATE && (b == 0 || b == 2)) {
        /* a damaged block (overflowed, written after free) is dropped: the
         * next allocations of its size never return it */
        size_t size = b == 0 ? 24 : 200;
        int reused = 0;
        void *live[300];
        for (int i = 0; i < 300; i++) {
            live[i] = t_malloc(size);
            reused += live[i] == p;
        }
        printf("REUSED %d\n", reused);
    }
    printf("END\n");
    fflush(stdout);
    exit(0);
}

static size_t read_all(int fd, char *buf, size_t cap)
{
    size_t n = 0;
    ssize_t r;
    while (n + 1 < cap && (r = read(fd, buf + n, cap - 1 - n)) > 0)
        n += (size_t)r;
    buf[n] = 0;
    return n;
}

/* Run bug b in a child; out/err get its stdout and stderr. */
static int run_child(size_t b, bool handler, char *out, char *err, size_t cap)
{
    int po[2], pe[2];
    CHECK(pipe(po) == 0 && pipe(pe) == 0);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(po[1], 1);
        dup2(pe[1], 2);
        close(po[0]);
        close(pe[0]);
        child(b, handler);
    }
    close(po[1]);
    close(pe[1]);
    read_all(po[0], out, cap);
    read_all(pe[0], err, cap);
    close(po[0]);
    close(pe[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    return status;
}

int main(void)
{
    regex_t line;
    CHECK(regcomp(&line, "^mortise: ([a-z-]+) at 0x([0-9a-f]+) size ([0-9]+) \\(([a-z_]+), ([a-z_]+)\\)$",
                  REG_EXTENDED | REG_NEWLINE) == 0);
    static char out[8192], err[8192];
    for (size_t b = 0; b < NBUGS; b++) {
        bool handler = mode() == MODE_CALLBACK;
        int status = run_child(b, handler, out, err, sizeof out);
        const char *ptr = strstr(out, "PTR 0x");
        char want[64] = "";
        if (ptr)
            snprintf(want, sizeof want, "%.*s", (int)strcspn(ptr + 4, "\n"), ptr + 4);
        bool ended = strstr(out, "END\n") != NULL;
        if (mode() == MODE_FATAL) {
            CHECKF(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT, "%s: status %#x, wanted SIGABRT",
                   bugs[b].name, status);
            CHECKF(!ended, "%s: went on after a fatal report", bugs[b].name);
        } else {
            CHECKF(WIFEXITED(status) && WEXITSTATUS(status) == 0 && ended, "%s: status %#x, end %d",
                   bugs[b].name, status, ended);
        }
        if (handler) {
            CHECKF(err[0] == 0, "%s: callback mode printed: %s", bugs[b].name, err);
            char expect[64];
            snprintf(expect, sizeof expect, "CALLS 1 KIND %d SAME 1", bugs[b].kind);
            CHECKF(strstr(out, expect) != NULL, "%s: wanted '%s' in: %s", bugs[b].name, expect, out);
            /* no handler: printed as by default */
            status = run_child(b, false, out, err, sizeof out);
        }
        /* exactly one line on stderr, in the format, naming class, block, layer */
        int lines = 0;
        for (char *s = err; *s; s++)
            lines += *s == '\n';
        regmatch_t m[6];
        bool ok = regexec(&line, err, 6, m, 0) == 0;
        CHECKF(lines == 1 && ok, "%s: report not one line in the format: '%s'", bugs[b].name, err);
        if (ok) {
            char cls[64], addr[64], layer[64];
            snprintf(cls, sizeof cls, "%.*s", (int)(m[1].rm_eo - m[1].rm_so), err + m[1].rm_so);
            snprintf(addr, sizeof addr, "0x%.*s", (int)(m[2].rm_eo - m[2].rm_so), err + m[2].rm_so);
            snprintf(layer, sizeof layer, "%.*s", (int)(m[4].rm_eo - m[4].rm_so), err + m[4].rm_so);
            CHECKF(!strcmp(cls, bugs[b].class_name) && !strcmp(addr, want) && !strcmp(layer, bugs[b].layer),
                   "%s: reported %s at %s by %s, wanted %s at %s by %s", bugs[b].name, cls, addr, layer,
                   bugs[b].class_name, want, bugs[b].layer);
        }
        if (mode() == MODE_TOLERATE && b == 1)
            CHECKF(strstr(out, "DUPLICATES 0\n") != NULL, "tolerate: a block handed out twice: %s", out);
        if (mode() == MODE_TOLERATE && (b == 0 || b == 2))
            CHECKF(strstr(out, "REUSED 0\n") != NULL, "tolerate: a damaged block handed out again: %s", out);
    }
    regfree(&line);
    return check_report("errmode_test (" MODE_STR ")");
}

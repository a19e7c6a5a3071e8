/* preload_handler — a plain program under LD_PRELOAD of a safety allocator
 * (malloc_socket): it finds mortise_set_error_handler with dlsym, registers
 * a handler, frees a block twice and a stack address once, and checks that
 * the handler saw each exactly once with the right class and pointer (the
 * allocator's err_handle=callback would call it; under default it prints,
 * so this runs on safe_cb below). Without the symbol it fails. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../../include/mortise/core/report.h"

static int calls;
static mortise_error last;

static void handler(const mortise_error *e, void *arg)
{
    (void)arg;
    calls++;
    last = *e;
}

int main(void)
{
    void (*set)(mortise_error_handler *, void *) =
        (void (*)(mortise_error_handler *, void *))dlsym(RTLD_DEFAULT, "mortise_set_error_handler");
    if (!set) {
        fprintf(stderr, "mortise_set_error_handler not found\n");
        return 1;
    }
    set(handler, NULL);
    int failed = 0;
    void *volatile p = malloc(40);
    free(p);
    free(p);
    if (calls != 1 || last.kind != MORTISE_BUG_DOUBLE_FREE || last.ptr != p ||
        strcmp(last.layer, "delayed_free")) {
        fprintf(stderr, "double free: %d calls, kind %d ptr %p (%s)\n", calls, last.kind, last.ptr,
                last.layer);
        failed = 1;
    }
    char local[32];
    void *volatile bad = local;
    free(bad);
    if (calls != 2 || last.kind != MORTISE_BUG_INVALID_FREE || last.ptr != bad ||
        strcmp(last.layer, "pagemap") || strcmp(last.operation, "free")) {
        fprintf(stderr, "stack free: %d calls, kind %d (%s, %s)\n", calls, last.kind, last.layer,
                last.operation);
        failed = 1;
    }
    printf("preload_handler: %s\n", failed ? "FAILED" : "ok");
    return failed;
}

/* A program measured by wcet_stat_malloc: N malloc+free pairs between two
 * snapshots of the report (JSON through mortise_stats_json), nothing else
 * allocating in between, so the counts must grow by exactly N.
 * Built twice: linked with libmortise-wcet_stat_malloc.a (-DLINKED, the call
 * is direct), and plain for LD_PRELOAD (the call is found with dlsym).
 * Usage: wcet_prog BEFORE.json AFTER.json N */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef LINKED
int mortise_stats_json(const char *path);
#endif

int main(int argc, char **argv)
{
    if (argc != 4)
        return 2;
    int (*snapshot)(const char *);
#ifdef LINKED
    snapshot = mortise_stats_json;
#else
    *(void **)&snapshot = dlsym(RTLD_DEFAULT, "mortise_stats_json");
#endif
    if (!snapshot) {
        fprintf(stderr, "wcet_prog: no mortise_stats_json: is wcet_stat_malloc loaded?\n");
        return 1;
    }
    long n = atol(argv[3]);
    if (snapshot(argv[1]) != 0)
        return 1;
    for (long i = 0; i < n; i++) {
        void *volatile p = malloc((size_t)(i % 2000) + 1);
        free(p);
    }
    if (snapshot(argv[2]) != 0)
        return 1;
    return 0;
}

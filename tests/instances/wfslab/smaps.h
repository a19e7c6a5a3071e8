/* tests/instances/wfslab/smaps.h — what the kernel says about our memory. */
#ifndef WFSLAB_MEM_SMAPS_H
#define WFSLAB_MEM_SMAPS_H
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether the mapping holding p carries MADV_HUGEPAGE ("hg" in VmFlags);
 * -1 if p is in no mapping. */
static int huge_advised(const void *p)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    char line[512];
    int inside = 0, answer = -1;
    if (!f)
        return -1;
    while (answer < 0 && fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
            inside = (uintptr_t)p >= lo && (uintptr_t)p < hi;
        else if (inside && !strncmp(line, "VmFlags:", 8))
            answer = strstr(line, " hg") != NULL;
    }
    fclose(f);
    return answer;
}

/* Many small blocks, all written: 12.8 MB in about 200 slabs of 64 KiB. */
enum { SMALL_BLOCKS = 200000, SMALL_SIZE = 64 };
static char **fill_small(void *(*alloc)(size_t))
{
    char **b = malloc(SMALL_BLOCKS * sizeof *b);
    for (int i = 0; b && i < SMALL_BLOCKS; i++) {
        b[i] = alloc(SMALL_SIZE);
        memset(b[i], 1, SMALL_SIZE);
    }
    return b;
}
static void free_small(char **b, void (*release)(void *))
{
    for (int i = 0; i < SMALL_BLOCKS; i++)
        release(b[i]);
    free(b);
}
#endif

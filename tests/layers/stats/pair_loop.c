/* The cost figures of docs/stats.md: nanoseconds per free+malloc pair of
 * 16..271 bytes with 64 blocks live, single thread, under whatever
 * allocator is preloaded. Usage: stats_pair_loop [PAIRS] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 10000000;
    void *keep[64] = {0};
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (long i = 0; i < n; i++) {
        int k = i & 63;
        free(keep[k]);
        keep[k] = malloc(16 + (i & 255));
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf("%.1f\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n);
    return 0;
}

/* mortise/stats_api.h — the statistics calls a Mortise allocator exports
 * (docs/stats.md). malloc_socket exports these names; custom_socket(prefix=P)
 * exports Pstats_print and Pstats_json. A program that only runs under
 * LD_PRELOAD finds them with dlsym(RTLD_DEFAULT, "mortise_stats_json"). */
#ifndef MORTISE_STATS_API_H
#define MORTISE_STATS_API_H
#ifdef __cplusplus
extern "C" {
#endif

/* The report as a table, written to fd. Never allocates. */
void mortise_stats_print(int fd);

/* The report as JSON (schema version 2) written to path ("%p" becomes the
 * process id). Returns 0, or -1 with errno from open(2) or write(2). */
int mortise_stats_json(const char *path);

#ifdef __cplusplus
}
#endif
#endif

/* mortise/sockets/stats_exit.h — the statistics report of a hosted socket
 * (stats/registry.h, docs/stats.md): mt_stats_write, which writes the report
 * of the composition's stats layers and lock_stat=1 locks as a table, as
 * JSON, or as MORTISE_STATS asks, and the destructor that writes it when the
 * program ends (MORTISE_STATS=1 or json:PATH). Included once by every
 * hosted socket after its composition (malloc_socket and custom_socket
 * through family.h, cmalloc_socket, kernel_socket); nothing without a C
 * library (MT_FREESTANDING). */
#ifndef MORTISE_SOCKETS_STATS_EXIT_H
#define MORTISE_SOCKETS_STATS_EXIT_H
#if !defined(MT_FREESTANDING)

#include "../stats/registry.h"

enum { MT_STATS_TABLE, MT_STATS_JSON, MT_STATS_AT_EXIT };

/* The one function that names the composition's layers for a report, so
 * that two compositions' report code differs here alone (tests/suites/zero_cost
 * leaves it out, as malloc_stats): the list is hidden from the optimizer
 * before it reaches stats/registry.h, so no layer count is folded into it. */
MT_SLOW int mt_stats_write(int how, int fd, const char *path)
{
    size_t layers;
    const char *const *names = mt_chain_layer_names(&layers);
    __asm__("" : "+r"(names), "+r"(layers));
    if (how == MT_STATS_TABLE)
        return mt_stats_report_fd(fd, false, names, layers);
    if (how == MT_STATS_JSON)
        return mt_stats_report_json(path, names, layers);
    mt_stats_report_env(names, layers);
    return 0;
}

/* MORTISE_STATS=1 or json:PATH: the report when the program ends. */
__attribute__((destructor)) static void mt_socket_stats_at_exit(void)
{
    mt_stats_write(MT_STATS_AT_EXIT, -1, NULL);
}

#endif
#endif

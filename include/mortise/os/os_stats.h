/* mortise/os/os_stats.h — the counters an OS layer keeps for mt_os_stats_read
 * (mallinfo, malloc_stats, reports). Included by the OS layer of a
 * composition, which updates mt_os_counters on its slow paths. Freestanding. */
#ifndef MORTISE_OS_OS_STATS_H
#define MORTISE_OS_OS_STATS_H

#include "../core/pagemap.h"

static struct {
    _Atomic(size_t) mapped, handed_out, large, returned;
} mt_os_counters;

static inline void mt_os_stats_read(mt_os_stats *out)
{
    out->mapped = mt_load_relaxed(&mt_os_counters.mapped);
    out->handed_out = mt_load_relaxed(&mt_os_counters.handed_out);
    out->large = mt_load_relaxed(&mt_os_counters.large);
    out->returned = mt_load_relaxed(&mt_os_counters.returned);
}

#endif

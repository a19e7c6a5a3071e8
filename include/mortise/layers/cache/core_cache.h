/* mortise/layers/cache/core_cache.h — what the platform says about CPUs, for core-aware
 * layers: the CPU the calling thread runs on, and the size of each CPU's
 * own cache (the size a per-thread or per-CPU cache should be fitted to).
 *
 *   int    mt_cpu_current(void)       the CPU, as sched_getcpu(); -1 if
 *                                     unknown. On x86-64 with glibc >= 2.35
 *                                     one load from the thread's rseq area
 *                                     (the kernel keeps cpu_id up to date),
 *                                     inline; sched_getcpu() (the vDSO) when
 *                                     rseq is not registered (valgrind,
 *                                     GLIBC_TUNABLES=glibc.pthread.rseq=0).
 *                                     Like any such answer it may be stale
 *                                     by the time it is used: callers use
 *                                     it for placement, never for safety.
 *   size_t mt_cpu_cache_size(int cpu) that CPU's cache in bytes, 0 if unknown
 *   size_t mt_cpu_cache_max(void)     the largest of all CPUs, 0 if none known
 *   size_t mt_cpu_cache_scaled(size_t budget, int cpu)
 *                                     budget × size(cpu) / max: a core with the
 *                                     largest cache gets the whole budget, one
 *                                     with a quarter of it a quarter; budget
 *                                     itself when the sizes are unknown
 *
 * Where the sizes come from, read once per process on first use:
 *   1. MORTISE_CORE_CACHE, when set: a list of RANGE:SIZE entries separated
 *      by commas, RANGE being one CPU `N` or a range `N-M`, SIZE a number of
 *      bytes with an optional K, M or G suffix (powers of 1024):
 *          MORTISE_CORE_CACHE=0-3:512K,4-7:2M    four small and four big cores
 *          MORTISE_CORE_CACHE=0:256K,1:1M        emulated on a 2-core machine
 *      It replaces sysfs entirely: listed CPUs get their size, unlisted ones
 *      the largest listed (they count as big cores). Later entries win where
 *      ranges overlap. A value that does not parse is ignored as a whole,
 *      with one line on standard error, and sysfs is used.
 *   2. Otherwise sysfs: /sys/devices/system/cpu/cpuN/cache/indexI/{level,
 *      type,size}; a CPU's size is its level-2 cache (data or unified: the
 *      core's own on today's heterogeneous parts, where L3 is shared), or its
 *      largest level-1 data cache when it has no L2.
 * CPUs from 0 to MT_CPU_CACHE_CPUS - 1 (256) are described; others count as
 * unknown. Nothing here allocates (the port layer's file read, no stdio),
 * errno is kept, and readers that race the first use wait for it (it runs
 * once; a fork child that inherited a read under way reads again: mt_once). Freestanding builds (MT_FREESTANDING) know no CPU: -1 and 0.
 */
#ifndef MORTISE_LAYERS_CACHE_CORE_CACHE_H
#define MORTISE_LAYERS_CACHE_CORE_CACHE_H

#include "../../core/platform.h"

#ifndef MT_CPU_CACHE_CPUS
#define MT_CPU_CACHE_CPUS 256
#endif

static struct {
    mt_once state;                  /* 0 unread, being read, MT_ONCE_DONE (platform.h) */
    size_t size[MT_CPU_CACHE_CPUS]; /* bytes, 0 unknown */
    size_t max;
} mt_cpu_caches;

/* The port layer's answer (pal.h: rseq, else sched_getcpu; -1 freestanding). */
MT_INLINE int mt_cpu_current(void) { return mt_pal_cpu(); }

/* Parse a size "512K", "2M", "1048576" from s; returns the end, or NULL. */
MT_UNUSED static const char *mt_cpu_parse_size(const char *s, size_t *out)
{
    size_t v = 0;
    if (*s < '0' || *s > '9')
        return NULL;
    for (; *s >= '0' && *s <= '9'; s++) {
        if (v > (SIZE_MAX - 9) / 10)
            return NULL;
        v = v * 10 + (size_t)(*s - '0');
    }
    unsigned shift = *s == 'K' || *s == 'k'   ? 10
                     : *s == 'M' || *s == 'm' ? 20
                     : *s == 'G' || *s == 'g' ? 30
                                              : 0;
    if (shift) {
        if (v > SIZE_MAX >> shift)
            return NULL;
        v <<= shift;
        s++;
    }
    *out = v;
    return s;
}

MT_UNUSED static const char *mt_cpu_parse_num(const char *s, unsigned *out)
{
    unsigned v = 0;
    if (*s < '0' || *s > '9')
        return NULL;
    for (; *s >= '0' && *s <= '9'; s++) {
        if (v > 1u << 20)
            return NULL;
        v = v * 10 + (unsigned)(*s - '0');
    }
    *out = v;
    return s;
}

/* MORTISE_CORE_CACHE's syntax (above) into size[]: true if it parsed. Sizes
 * of CPUs the value does not list become the largest listed. Exposed for
 * tests, which parse strings without touching the process's table. */
MT_UNUSED static bool mt_cpu_cache_parse(const char *s, size_t *size, unsigned cpus)
{
    size_t largest = 0;
    bool listed[MT_CPU_CACHE_CPUS] = {0};
    if (cpus > MT_CPU_CACHE_CPUS)
        cpus = MT_CPU_CACHE_CPUS;
    for (unsigned i = 0; i < cpus; i++)
        size[i] = 0;
    for (;;) {
        unsigned lo, hi;
        size_t bytes;
        if (!(s = mt_cpu_parse_num(s, &lo)))
            return false;
        hi = lo;
        if (*s == '-' && (!(s = mt_cpu_parse_num(s + 1, &hi)) || hi < lo))
            return false;
        if (*s != ':' || !(s = mt_cpu_parse_size(s + 1, &bytes)) || !bytes)
            return false;
        for (unsigned c = lo; c <= hi && c < cpus; c++)
            size[c] = bytes, listed[c] = true;
        largest = bytes > largest ? bytes : largest;
        if (*s != ',')
            break;
        s++;
    }
    if (*s)
        return false;
    for (unsigned i = 0; i < cpus; i++)
        if (!listed[i])
            size[i] = largest;
    return true;
}

/* "/sys/devices/system/cpu/cpu" N "/cache/index" I "/" FILE into buf (no
 * snprintf: nothing here may allocate). */
MT_UNUSED static void mt_cpu_sysfs_path(char *buf, unsigned cpu, unsigned index, const char *file)
{
    static const char head[] = "/sys/devices/system/cpu/cpu", mid[] = "/cache/index";
    char digits[12];
    size_t n = 0, d;
    for (const char *s = head; *s; s++)
        buf[n++] = *s;
    d = 0;
    do
        digits[d++] = (char)('0' + cpu % 10);
    while ((cpu /= 10));
    while (d)
        buf[n++] = digits[--d];
    for (const char *s = mid; *s; s++)
        buf[n++] = *s;
    do
        digits[d++] = (char)('0' + index % 10);
    while ((index /= 10));
    while (d)
        buf[n++] = digits[--d];
    buf[n++] = '/';
    for (const char *s = file; *s; s++)
        buf[n++] = *s;
    buf[n] = 0;
}

/* The first line of a small sysfs file; false if it cannot be read. */
MT_UNUSED static bool mt_cpu_sysfs_read(unsigned cpu, unsigned index, const char *file, char *out, size_t cap)
{
    char path[96];
    mt_cpu_sysfs_path(path, cpu, index, file);
    long n = mt_pal_read_file(path, out, cap);
    if (n <= 0)
        return false;
    for (long i = 0; i < n; i++)
        if (out[i] == '\n')
            out[i] = 0;
    return true;
}

/* One CPU's cache size from sysfs: its L2 (data or unified), else its
 * largest L1 data cache; 0 when sysfs does not describe the CPU. */
MT_UNUSED static size_t mt_cpu_sysfs_size(unsigned cpu)
{
    size_t l1 = 0;
    char level[8], type[16], text[32];
    for (unsigned i = 0; i < 16 && mt_cpu_sysfs_read(cpu, i, "level", level, sizeof level); i++) {
        size_t bytes = 0;
        if ((level[0] != '1' && level[0] != '2') || level[1] ||
            !mt_cpu_sysfs_read(cpu, i, "type", type, sizeof type) || type[0] == 'I' ||
            !mt_cpu_sysfs_read(cpu, i, "size", text, sizeof text) || !mt_cpu_parse_size(text, &bytes))
            continue;
        if (level[0] == '2')
            return bytes;
        l1 = bytes > l1 ? bytes : l1;
    }
    return l1;
}

/* Fill the table once (the first caller reads, racers wait; a fork child
 * that inherited a read under way reads again: mt_once, platform.h). */
MT_SLOW void mt_cpu_caches_load(void)
{
    if (mt_once_enter(&mt_cpu_caches.state) != 0)
        return;
    for (unsigned c = 0; c < MT_CPU_CACHE_CPUS; c++) /* a run taken over starts afresh */
        mt_cpu_caches.size[c] = 0;
    mt_cpu_caches.max = 0;
    int saved = mt_pal_errno();
    const char *env = mt_pal_getenv("MORTISE_CORE_CACHE");
    if (env && !mt_cpu_cache_parse(env, mt_cpu_caches.size, MT_CPU_CACHE_CPUS)) {
        static const char msg[] = "mortise: MORTISE_CORE_CACHE does not parse "
                                  "(want e.g. 0-3:512K,4-7:2M); using sysfs\n";
        mt_pal_write_all(2, msg, sizeof msg - 1);
        env = NULL;
    }
    if (!env) {
        unsigned missing = 0; /* CPU numbers may have holes (offline CPUs) */
        for (unsigned c = 0; c < MT_CPU_CACHE_CPUS && missing < 64; c++) {
            mt_cpu_caches.size[c] = mt_cpu_sysfs_size(c);
            missing = mt_cpu_caches.size[c] ? 0 : missing + 1;
        }
    }
    mt_pal_set_errno(saved);
    for (unsigned c = 0; c < MT_CPU_CACHE_CPUS; c++)
        if (mt_cpu_caches.size[c] > mt_cpu_caches.max)
            mt_cpu_caches.max = mt_cpu_caches.size[c];
    mt_once_leave(&mt_cpu_caches.state, MT_ONCE_DONE);
}

MT_UNUSED static size_t mt_cpu_cache_size(int cpu)
{
    if (mt_load_acquire(&mt_cpu_caches.state) != MT_ONCE_DONE)
        mt_cpu_caches_load();
    return cpu >= 0 && cpu < MT_CPU_CACHE_CPUS ? mt_cpu_caches.size[cpu] : 0;
}

MT_UNUSED static size_t mt_cpu_cache_max(void)
{
    if (mt_load_acquire(&mt_cpu_caches.state) != MT_ONCE_DONE)
        mt_cpu_caches_load();
    return mt_cpu_caches.max;
}

MT_UNUSED static size_t mt_cpu_cache_scaled(size_t budget, int cpu)
{
    size_t size = mt_cpu_cache_size(cpu), max = mt_cpu_cache_max();
    if (!size || !max)
        return budget;
    return (size_t)mt_muldiv_u64(budget, size, max, false);
}

#endif

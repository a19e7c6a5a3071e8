/* mortise/stats/registry.h — what the statistics layers share: the registry of
 * reporters, the timer, per-thread counter slots, the latency histogram and
 * an allocation-free writer for the table and the JSON (docs/stats.md).
 *
 * Registry: each statistics layer instance (szcls_stat, perf_stat,
 * wcet_stat) and the lock statistics (policy/sync/lockstat.h) register one
 * mt_stats_entry, from a constructor or on first use. The registry is static
 * in the translation unit of the composition, so one allocator reports only
 * its own layers. The socket (sockets/family.h) prints it at exit when
 * MORTISE_STATS asks, and through its stats API.
 *
 * Per-thread slots: counters written on every request live in a slot a
 * thread claims on its first request and gives back when it ends; nobody
 * else writes them (plain load + store, no locked instruction, no shared
 * cache line). A slot handed back keeps its counts and the next thread adds
 * to them, so the report only sums slots. Threads beyond the slot count share
 * the last slot, updated with atomic adds.
 *
 * Never allocates: reports format into a stack buffer and write it with the
 * port layer (mt_pal_write_all). Meant for hosted builds: freestanding, the
 * port has no clock, file or affinity, so reports go nowhere.
 */
#ifndef MORTISE_STATS_REGISTRY_H
#define MORTISE_STATS_REGISTRY_H

#include "../core/platform.h"
#include <string.h>

/* ---- timer ---- */

/* A timed interval is end() - begin(). On x86 the fences keep the measured
 * code between the two counter reads (rdtsc alone may run early or late). */
#if defined(__x86_64__) || defined(__i386__)
#define MT_STATS_TIMER "rdtscp"
MT_INLINE uint64_t mt_stats_begin(void)
{
    __builtin_ia32_lfence();
    return __builtin_ia32_rdtsc();
}
MT_INLINE uint64_t mt_stats_end(void)
{
    unsigned aux;
    uint64_t t = __builtin_ia32_rdtscp(&aux);
    __builtin_ia32_lfence();
    return t;
}
#else
#define MT_STATS_TIMER "clock_gettime"
MT_INLINE uint64_t mt_stats_begin(void) { return mt_pal_clock_ns(); }
MT_INLINE uint64_t mt_stats_end(void) { return mt_stats_begin(); }
#endif

MT_INLINE uint64_t mt_stats_ns_now(void) { return mt_pal_clock_ns(); }

/* MORTISE_STATS=1 reports on standard error at exit, but programs may close
 * it before (coreutils' close_stdout): keep a copy of fd 2, taken when the
 * first statistics layer registers (at load time), only if the table is asked for. */
static int mt_stats_stderr = -1;

MT_UNUSED static void mt_stats_keep_stderr(void)
{
    const char *how = mt_pal_getenv("MORTISE_STATS");
    if (how && !strcmp(how, "1"))
        mt_stats_stderr = mt_pal_dup_fd(2, 100);
}

/* Where the run started in both clocks: the ratio of the two spans at report
 * time is the timer's rate, measured over the whole run. */
static struct {
    mt_once set; /* MT_ONCE_DONE once taken (platform.h: a fork child takes a copied start over) */
    uint64_t ticks, ns;
    uint64_t overhead; /* smallest empty interval seen at start */
} mt_stats_epoch;

MT_UNUSED static void mt_stats_start_clock(void)
{
    if (mt_once_final(mt_load_acquire(&mt_stats_epoch.set)) || mt_once_enter(&mt_stats_epoch.set))
        return;
    mt_stats_keep_stderr();
    uint64_t least = UINT64_MAX;
    for (int i = 0; i < 64; i++) {
        uint64_t t0 = mt_stats_begin();
        uint64_t d = mt_stats_end() - t0;
        least = d < least ? d : least;
    }
    mt_stats_epoch.overhead = least;
    mt_stats_epoch.ns = mt_stats_ns_now();
    mt_stats_epoch.ticks = mt_stats_begin();
    mt_once_leave(&mt_stats_epoch.set, MT_ONCE_DONE);
}

/* Timer ticks per nanosecond times 1000 (1000 for clock_gettime). Waits
 * until 20 ms have passed since the start so the ratio has 5 digits. */
MT_UNUSED static uint64_t mt_stats_ticks_per_us(void)
{
    if (!strcmp(MT_STATS_TIMER, "clock_gettime"))
        return 1000;
    mt_stats_start_clock(); /* returns once the start is taken, here or by another thread */
    uint64_t ns, ticks;
    do {
        ns = mt_stats_ns_now();
        ticks = mt_stats_begin();
    } while (ns - mt_stats_epoch.ns < 20000000u);
    uint64_t r = mt_muldiv_u64(ticks - mt_stats_epoch.ticks, 1000u, ns - mt_stats_epoch.ns, false);
    return r ? r : 1;
}

MT_INLINE uint64_t mt_stats_to_ns(uint64_t ticks, uint64_t ticks_per_us)
{
    return mt_muldiv_u64(ticks, 1000u, ticks_per_us, false);
}

/* ---- per-thread slots ---- */

#ifndef MT_STATS_THREADS
#define MT_STATS_THREADS 128 /* slots per layer instance; more threads share the last */
#endif

/* Claim a free slot among `used[0..n-2]`; n-1 (the shared one) if none. */
MT_UNUSED static unsigned mt_stats_claim(_Atomic(unsigned char) *used, unsigned n)
{
    for (unsigned i = 0; i + 1 < n; i++) {
        unsigned char free_slot = 0;
        if (!mt_load_relaxed(&used[i]) && mt_cas(&used[i], &free_slot, 1))
            return i;
    }
    return n - 1;
}

/* The per-thread slots of one layer instance: `n` slots of `size` bytes at
 * `base`, `used` marks those a live thread holds. */
typedef struct {
    _Atomic(unsigned char) *used;
    char *base;
    size_t size;
    unsigned n;
} mt_stats_slots;

/* A thread's first request: claim a slot (the layer arranges for its
 * thread_exit, which gives it back, with mt_thread_attach). */
MT_UNUSED static void *mt_stats_slot_attach(mt_stats_slots s)
{
    return s.base + s.size * mt_stats_claim(s.used, s.n);
}

MT_INLINE bool mt_stats_slot_shared(mt_stats_slots s, const void *slot)
{
    return (const char *)slot == s.base + s.size * (s.n - 1);
}

/* Give the slot back, keeping its counts, for the next thread. */
MT_UNUSED static void mt_stats_slot_release(mt_stats_slots s, const void *slot)
{
    if (slot && !mt_stats_slot_shared(s, slot))
        mt_store_release(&s.used[((const char *)slot - s.base) / s.size], 0);
}

/* Only the forking thread lives on in a fork child: every other slot is free. */
MT_UNUSED static void mt_stats_slot_fork_child(mt_stats_slots s, const void *mine)
{
    for (unsigned i = 0; i + 1 < s.n; i++)
        mt_store_relaxed(&s.used[i], s.base + s.size * i == (const char *)mine);
}

/* Add to a slot counter: the owner alone writes a private slot, so a load and
 * a store do; the shared slot needs the atomic add. Returns the new value. */
MT_INLINE uint64_t mt_stats_add(_Atomic(uint64_t) *c, uint64_t v, bool shared)
{
    if (MT_UNLIKELY(shared))
        return atomic_fetch_add_explicit(c, v, memory_order_relaxed) + v;
    uint64_t n = mt_load_relaxed(c) + v;
    mt_store_relaxed(c, n);
    return n;
}

MT_INLINE void mt_stats_max(_Atomic(uint64_t) *c, uint64_t v, bool shared)
{
    uint64_t old = mt_load_relaxed(c);
    if (MT_LIKELY(!shared)) {
        if (v > old)
            mt_store_relaxed(c, v);
        return;
    }
    while (v > old &&
           !atomic_compare_exchange_weak_explicit(c, &old, v, memory_order_relaxed, memory_order_relaxed))
        ;
}

/* Pin the calling thread to the next allowed CPU, round robin over the CPUs
 * the process could use when the first thread was pinned. Returns true if
 * the kernel accepted. */
MT_UNUSED static bool mt_stats_pin_thread(void)
{
    static mt_pal_cpuset allowed;
    static mt_once ready; /* 0 no, reading, MT_ONCE_DONE read, MT_ONCE_FAILED (platform.h) */
    static _Atomic(unsigned) turn;
    enum { words = sizeof allowed.words / sizeof allowed.words[0] };
    uintptr_t state = mt_load_acquire(&ready);
    if (!mt_once_final(state) && (state = mt_once_enter(&ready)) == 0) {
        state = mt_pal_affinity_get(&allowed) ? MT_ONCE_DONE : MT_ONCE_FAILED;
        mt_once_leave(&ready, state);
    }
    unsigned cpus = 0;
    for (unsigned w = 0; state == MT_ONCE_DONE && w < words; w++)
        cpus += (unsigned)__builtin_popcountll(allowed.words[w]);
    if (!cpus)
        return false;
    unsigned k = atomic_fetch_add_explicit(&turn, 1, memory_order_relaxed) % cpus;
    for (unsigned cpu = 0; cpu < 64 * words; cpu++) {
        if (!(allowed.words[cpu / 64] >> (cpu % 64) & 1) || k--)
            continue;
        return mt_pal_affinity_pin((int)cpu);
    }
    return false;
}

/* ---- latency histogram: log-linear buckets ----
 * Values below 2^MT_HIST_SUB_BITS have a bucket each; above, every power of
 * two is split into 2^MT_HIST_SUB_BITS equal buckets, so a bucket's width is
 * at most 1/32 of its lower edge. Values from 2^MT_HIST_TOP_BITS up (minutes
 * at GHz rates) share the last bucket; the exact maximum is kept apart. */
#define MT_HIST_SUB_BITS 5
#define MT_HIST_SUB (1u << MT_HIST_SUB_BITS)
#define MT_HIST_TOP_BITS 40
#define MT_HIST_BUCKETS ((MT_HIST_TOP_BITS - MT_HIST_SUB_BITS + 1) * MT_HIST_SUB)

MT_INLINE unsigned mt_hist_index(uint64_t v)
{
    if (v < MT_HIST_SUB)
        return (unsigned)v;
    unsigned e = mt_log2_floor(v);
    if (e >= MT_HIST_TOP_BITS)
        return MT_HIST_BUCKETS - 1;
    return (e - MT_HIST_SUB_BITS + 1) * MT_HIST_SUB +
           (unsigned)((v >> (e - MT_HIST_SUB_BITS)) & (MT_HIST_SUB - 1));
}

/* Smallest value of bucket i. */
MT_INLINE uint64_t mt_hist_low(unsigned i)
{
    if (i < MT_HIST_SUB)
        return i;
    unsigned k = i / MT_HIST_SUB, m = i % MT_HIST_SUB;
    return (uint64_t)(MT_HIST_SUB + m) << (k - 1);
}

/* Largest value of bucket i (the last bucket is open: UINT64_MAX). */
MT_INLINE uint64_t mt_hist_high(unsigned i)
{
    return i + 1 < MT_HIST_BUCKETS ? mt_hist_low(i + 1) - 1 : UINT64_MAX;
}

/* The quantile q (in parts per 10^7: 9999990 = 99.9999 %) of the samples
 * counted in hist[] (total of them, largest exactly max), by nearest rank:
 * the upper edge of the bucket holding the ceil(q * total)-th smallest
 * sample, at most max. 0 when there are no samples. */
MT_UNUSED static uint64_t mt_hist_quantile(const uint64_t *hist, uint64_t total, uint64_t max, uint64_t q)
{
    if (!total)
        return 0;
    uint64_t rank = mt_muldiv_u64(total, q, 10000000u, true);
    rank = rank ? rank : 1;
    uint64_t seen = 0;
    for (unsigned i = 0; i < MT_HIST_BUCKETS; i++) {
        seen += hist[i];
        if (seen >= rank) {
            uint64_t high = mt_hist_high(i);
            return high < max ? high : max;
        }
    }
    return max;
}

/* The percentiles every latency report gives (docs/stats.md). */
#define MT_STATS_QUANTILES 7
static const struct {
    const char *name;
    uint64_t q;
} mt_stats_quantiles[MT_STATS_QUANTILES] = {
    {"p50", 5000000},    {"p90", 9000000},     {"p99", 9900000},      {"p99.9", 9990000},
    {"p99.99", 9999000}, {"p99.999", 9999900}, {"p99.9999", 9999990},
};

/* ---- writer: a stack buffer flushed with mt_pal_write_all ---- */

typedef struct mt_stats_out {
    int fd;
    bool json;
    bool failed;
    unsigned items;        /* JSON: items written in the current list */
    uint64_t ticks_per_us; /* the timer's rate for this report */
    size_t len;
    char buf[2048];
} mt_stats_out;

MT_UNUSED static void mt_so_flush(mt_stats_out *o)
{
    if (o->len && !mt_pal_write_all(o->fd, o->buf, o->len))
        o->failed = true;
    o->len = 0;
}

MT_UNUSED static void mt_so_mem(mt_stats_out *o, const char *s, size_t n)
{
    while (n) {
        if (o->len == sizeof o->buf)
            mt_so_flush(o);
        size_t room = sizeof o->buf - o->len, k = n < room ? n : room;
        memcpy(o->buf + o->len, s, k);
        o->len += k;
        s += k;
        n -= k;
    }
}

MT_UNUSED static void mt_so_str(mt_stats_out *o, const char *s) { mt_so_mem(o, s, strlen(s)); }

/* s padded with spaces to width (on the right if width < 0, left-aligned). */
MT_UNUSED static void mt_so_pad(mt_stats_out *o, const char *s, int width)
{
    int len = (int)strlen(s), w = width < 0 ? -width : width;
    if (width < 0)
        mt_so_str(o, s);
    for (int i = len; i < w; i++)
        mt_so_mem(o, " ", 1);
    if (width >= 0)
        mt_so_str(o, s);
}

/* Decimal digits of v with `places` digits after a point (v is scaled by
 * 10^places), into buf; returns buf. */
MT_UNUSED static char *mt_so_fmt(char buf[32], uint64_t v, unsigned places)
{
    char tmp[32];
    unsigned n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v || n <= places);
    unsigned k = 0;
    while (n) {
        if (n == places && places)
            buf[k++] = '.';
        buf[k++] = tmp[--n];
    }
    buf[k] = 0;
    return buf;
}

MT_UNUSED static void mt_so_u64(mt_stats_out *o, uint64_t v, int width)
{
    char b[32];
    mt_so_pad(o, mt_so_fmt(b, v, 0), width);
}

/* "0x" and the hexadecimal digits of v, into buf; returns buf. */
MT_UNUSED static char *mt_so_fmt_hex(char buf[2 + 2 * sizeof(uintptr_t) + 1], uintptr_t v)
{
    char tmp[2 * sizeof v];
    unsigned n = 0;
    do {
        tmp[n++] = "0123456789abcdef"[v & 15];
        v >>= 4;
    } while (v);
    buf[0] = '0';
    buf[1] = 'x';
    unsigned k = 2;
    while (n)
        buf[k++] = tmp[--n];
    buf[k] = 0;
    return buf;
}

MT_UNUSED static void mt_so_hex(mt_stats_out *o, uintptr_t v)
{
    char b[2 + 2 * sizeof v + 1];
    mt_so_str(o, mt_so_fmt_hex(b, v));
}

/* JSON: `"key": ` with the comma a list needs before every item but the first. */
MT_UNUSED static void mt_so_key(mt_stats_out *o, const char *key)
{
    if (o->items++)
        mt_so_str(o, ", ");
    mt_so_str(o, "\"");
    mt_so_str(o, key);
    mt_so_str(o, "\": ");
}
MT_UNUSED static void mt_so_open(mt_stats_out *o, const char *key, const char *bracket)
{
    if (key)
        mt_so_key(o, key);
    else if (o->items++)
        mt_so_str(o, ", ");
    mt_so_str(o, bracket);
    o->items = 0;
}
/* Closing a nested list: the enclosing list has at least that item. */
MT_UNUSED static void mt_so_close(mt_stats_out *o, const char *bracket)
{
    mt_so_str(o, bracket);
    o->items = 1;
}
MT_UNUSED static void mt_so_kv_u64(mt_stats_out *o, const char *key, uint64_t v)
{
    mt_so_key(o, key);
    mt_so_u64(o, v, 0);
}
MT_UNUSED static void mt_so_kv_str(mt_stats_out *o, const char *key, const char *v)
{
    mt_so_key(o, key);
    mt_so_str(o, "\"");
    mt_so_str(o, v); /* our names: identifiers, no escaping needed */
    mt_so_str(o, "\"");
}
/* A string from outside (a file name, a symbol): quoted, with JSON's escapes. */
MT_UNUSED static void mt_so_kv_quoted(mt_stats_out *o, const char *key, const char *v)
{
    mt_so_key(o, key);
    mt_so_str(o, "\"");
    for (; *v; v++) {
        unsigned char c = (unsigned char)*v;
        if (c == '"' || c == '\\') {
            char esc[2] = {'\\', (char)c};
            mt_so_mem(o, esc, 2);
        } else if (c < 0x20) {
            char esc[7] = {'\\', 'u', '0', '0', "0123456789abcdef"[c >> 4], "0123456789abcdef"[c & 15], 0};
            mt_so_str(o, esc);
        } else {
            mt_so_mem(o, v, 1);
        }
    }
    mt_so_str(o, "\"");
}
MT_UNUSED static void mt_so_kv_hex(mt_stats_out *o, const char *key, uintptr_t v)
{
    mt_so_key(o, key);
    mt_so_str(o, "\"");
    mt_so_hex(o, v);
    mt_so_str(o, "\"");
}
/* A layer's report opens with its name and kind: a JSON object, or the
 * table's title. */
MT_UNUSED static void mt_so_begin_layer(mt_stats_out *o, const char *layer, const char *kind)
{
    if (o->json) {
        mt_so_open(o, NULL, "{");
        mt_so_kv_str(o, "layer", layer);
        mt_so_kv_str(o, "kind", kind);
        return;
    }
    mt_so_str(o, kind);
    mt_so_str(o, " ");
    mt_so_str(o, layer);
}
MT_UNUSED static void mt_so_end_layer(mt_stats_out *o)
{
    if (o->json)
        mt_so_close(o, "}");
}

/* A decimal: v scaled by 10^places. */
MT_UNUSED static void mt_so_kv_fixed(mt_stats_out *o, const char *key, uint64_t v, unsigned places)
{
    char b[32];
    mt_so_key(o, key);
    mt_so_str(o, mt_so_fmt(b, v, places));
}

/* A mean as a decimal with one place: 10 * sum / count, rounded. */
MT_INLINE uint64_t mt_stats_mean10(uint64_t sum, uint64_t count)
{
    return count ? (mt_muldiv_u64(sum, 20, count, false) + 1) / 2 : 0;
}

/* ---- registry ---- */

typedef struct mt_stats_entry {
    const char *layer; /* the instance name */
    /* table or JSON (by o->json): whole layer objects (mt_so_begin_layer) */
    void (*report)(mt_stats_out *o);
    struct mt_stats_entry *next;
    _Atomic(int) added;
} mt_stats_entry;

static _Atomic(mt_stats_entry *) mt_stats_registry;

MT_UNUSED static void mt_stats_register(mt_stats_entry *e)
{
    int expected = 0;
    if (!mt_cas(&e->added, &expected, 1))
        return;
    mt_stats_start_clock();
    mt_stats_entry *head = mt_load_relaxed(&mt_stats_registry);
    do
        e->next = head;
    while (!atomic_compare_exchange_weak_explicit(&mt_stats_registry, &head, e, memory_order_release,
                                                  memory_order_relaxed));
}

#define MT_STATS_MAX_ENTRIES 64

/* The JSON schema's version (docs/stats.md): 2 added the lock statistics'
 * lock_callers and lock_threads objects. */
#define MT_STATS_SCHEMA 2

/* Every entry, in the order registered (the list is newest first). */
MT_UNUSED static unsigned mt_stats_entries(mt_stats_entry **out)
{
    unsigned n = 0;
    for (mt_stats_entry *e = mt_load_acquire(&mt_stats_registry); e && n < MT_STATS_MAX_ENTRIES; e = e->next)
        out[n++] = e;
    for (unsigned i = 0; i < n / 2; i++) {
        mt_stats_entry *t = out[i];
        out[i] = out[n - 1 - i];
        out[n - 1 - i] = t;
    }
    return n;
}

MT_UNUSED static bool mt_stats_any(void) { return mt_load_acquire(&mt_stats_registry) != NULL; }

/* The whole report, table or JSON, to fd. `names` is the composition
 * (mt_chain_layer_names; the socket's mt_stats_write passes it). Returns 0,
 * or -1 if a write failed. */
MT_UNUSED static int mt_stats_report_fd(int fd, bool json, const char *const *names, size_t layers)
{
    mt_stats_out o;
    o.fd = fd;
    o.json = json;
    o.failed = false;
    o.items = 0;
    o.len = 0;
    o.ticks_per_us = mt_stats_any() ? mt_stats_ticks_per_us() : 1000;
    mt_stats_entry *entries[MT_STATS_MAX_ENTRIES];
    unsigned n = mt_stats_entries(entries);
    char b[32];
    if (json) {
        mt_so_open(&o, NULL, "{");
        mt_so_kv_u64(&o, "mortise_stats", MT_STATS_SCHEMA);
        mt_so_kv_u64(&o, "pid", (uint64_t)mt_pal_pid());
        mt_so_key(&o, "composition");
        mt_so_str(&o, "\"");
    } else {
        mt_so_str(&o, "Mortise statistics: ");
    }
    for (size_t i = 0; i < layers; i++) {
        if (i)
            mt_so_str(&o, "::");
        mt_so_str(&o, names[i]);
    }
    if (json) {
        mt_so_str(&o, "\"");
        mt_so_kv_str(&o, "timer", MT_STATS_TIMER);
        mt_so_kv_fixed(&o, "cycles_per_ns", o.ticks_per_us, 3);
        mt_so_open(&o, "layers", "[");
    } else {
        mt_so_str(&o, " (pid ");
        mt_so_u64(&o, (uint64_t)mt_pal_pid(), 0);
        mt_so_str(&o, ", timer " MT_STATS_TIMER ", ");
        mt_so_str(&o, mt_so_fmt(b, o.ticks_per_us, 3));
        mt_so_str(&o, " cycles/ns)\n");
        if (!n)
            mt_so_str(&o, "  no statistics layers and no lock_stat=1 in this composition\n");
    }
    for (unsigned i = 0; i < n; i++)
        entries[i]->report(&o);
    if (json) {
        mt_so_close(&o, "]");
        mt_so_close(&o, "}\n");
    }
    mt_so_flush(&o);
    return o.failed ? -1 : 0;
}

/* JSON to path ("%p" → the process id); 0, or -1 with errno. */
MT_UNUSED static int mt_stats_report_json(const char *path, const char *const *names, size_t layers)
{
    char file[4096];
    size_t k = 0;
    for (const char *s = path; *s && k + 24 < sizeof file; s++) {
        if (s[0] == '%' && s[1] == 'p') {
            char b[32];
            const char *d = mt_so_fmt(b, (uint64_t)mt_pal_pid(), 0);
            while (*d)
                file[k++] = *d++;
            s++;
        } else {
            file[k++] = *s;
        }
    }
    file[k] = 0;
    int fd = mt_pal_open_write(file);
    if (fd < 0)
        return -1;
    int rc = mt_stats_report_fd(fd, true, names, layers);
    mt_pal_close(fd);
    return rc;
}

/* MORTISE_STATS=1: table on stderr; =json:PATH: JSON to PATH. Only when
 * there is something to report. Called by the socket's exit hook. */
MT_UNUSED static void mt_stats_report_env(const char *const *names, size_t layers)
{
    if (!mt_stats_any())
        return;
    const char *how = mt_pal_getenv("MORTISE_STATS");
    if (!how || !*how || !strcmp(how, "0"))
        return;
    int saved = mt_pal_errno();
    if (!strncmp(how, "json:", 5))
        mt_stats_report_json(how + 5, names, layers);
    else
        mt_stats_report_fd(mt_stats_stderr >= 0 ? mt_stats_stderr : 2, false, names, layers);
    mt_pal_set_errno(saved);
}

#endif

/* Quick alloc requests (core/ctx.h's MT_ALLOC_QUICK) past statistics layers:
 * tail_chksum asks the layers below quick, and a thread cache whose list
 * runs dry answers such a request NULL for tail_chksum to repeat. The
 * statistics layers between them must see each request once:
 *   mmap_heap::slab_lk::thread_cache::szcls_stat::perf_stat::wcet_stat
 *     ::tail_chksum::custom_socket(prefix=qk_)
 * Many blocks are allocated before any is freed, so the cache runs dry
 * again and again (each refill is a quick miss and a repeat); the counts
 * must equal the requests made, and every block must be sealed (its free
 * reports nothing). */
#include <mortise/mortise.h>
#include <mortise/os/mmap_heap.h>

#define MT_SIZECLASS tc
#define MT_SIZE_HANDLE 0, 65536
#include <mortise/layers/slab_lk.h>

#define MT_SIZECLASS tc
#define MT_SIZE_HANDLE 0, 65536
#include <mortise/layers/thread_cache.h>

#define MT_SIZECLASS log2b
#include <mortise/layers/szcls_stat.h>

#include <mortise/layers/perf_stat.h>

#include <mortise/layers/wcet_stat.h>

#define MT_ERR_HANDLE callback
#include <mortise/layers/tail_chksum.h>

#define MT_PREFIX qk_
#include <mortise/sockets/custom_socket.h>

#if defined(QUICK_TOP_PERF)
MT_COMPOSE(mmap_heap, slab_lk, thread_cache, szcls_stat, wcet_stat, perf_stat, tail_chksum, custom_socket)
#elif defined(QUICK_TOP_WCET)
MT_COMPOSE(mmap_heap, slab_lk, thread_cache, szcls_stat, perf_stat, wcet_stat, tail_chksum, custom_socket)
#else
MT_COMPOSE(mmap_heap, slab_lk, thread_cache, perf_stat, wcet_stat, szcls_stat, tail_chksum, custom_socket)
#endif

#include <stdio.h>
#include <stdlib.h>

#include "stats_check.h"

static uint64_t szcls_allocs_all(void)
{
    uint64_t n = 0;
    for (size_t c = 0; c <= MT_SZCLS_CLASSES(log2b); c++)
        n += SLOTS_SUM(szcls_stat_state, allocs[c]);
    return n;
}

/* Reports would mean a block the repeat handed out unsealed. */
static unsigned reports;
static void count_report(const mortise_error *e, void *arg)
{
    (void)e;
    (void)arg;
    reports++;
}

int main(void)
{
    enum { BLOCKS = 20000 };
    static void *p[BLOCKS];
    mt_report_set_handler(count_report, NULL);
    uint64_t sz0 = szcls_allocs_all(), perf0 = SLOTS_SUM(perf_stat_state, count[MT_PERF_ALLOC]);
    uint64_t wcet0 = SLOTS_SUM(wcet_stat_state, op[MT_WCET_ALLOC].count);
    for (int round = 0; round < 3; round++) {
        for (size_t i = 0; i < BLOCKS; i++) {
            size_t size = 16 + (i * 37) % 700;
            CHECK_MSG((p[i] = qk_malloc(size)) != NULL, "malloc %zu", size);
            *(char *)p[i] = (char)i;
        }
        for (size_t i = 0; i < BLOCKS; i++)
            qk_free(p[i]);
    }
    uint64_t want = 3 * (uint64_t)BLOCKS;
    CHECK_MSG(szcls_allocs_all() - sz0 == want, "szcls_stat allocs %llu, want %llu",
              ULL(szcls_allocs_all() - sz0), ULL(want));
    CHECK_MSG(SLOTS_SUM(perf_stat_state, count[MT_PERF_ALLOC]) - perf0 == want,
              "perf_stat allocs %llu, want %llu",
              ULL(SLOTS_SUM(perf_stat_state, count[MT_PERF_ALLOC]) - perf0), ULL(want));
    CHECK_MSG(SLOTS_SUM(wcet_stat_state, op[MT_WCET_ALLOC].count) - wcet0 == want, "wcet_stat allocs %llu",
              ULL(SLOTS_SUM(wcet_stat_state, op[MT_WCET_ALLOC].count) - wcet0));
    CHECK_MSG(reports == 0, "%u reports on intact blocks", reports);
    return check_report("quick_test");
}

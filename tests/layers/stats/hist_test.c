/* The latency histogram of stats/registry.h against known distributions, and the
 * writer's number formatting: every bucket edge, every quantile of random
 * and long-tailed samples compared with the exact nearest-rank value. */
#include <mortise/stats/registry.h>
#include <stdio.h>
#include <stdlib.h>

#include "stats_check.h"
#include "../../common/xorshift.h"

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Buckets tile the values: each starts right after the previous one, is at
 * most 1/32 of its start wide, and index() maps both edges to it. */
static void test_buckets(void)
{
    CHECK_MSG(mt_hist_low(0) == 0, "bucket 0 starts at 0");
    for (unsigned i = 0; i + 1 < MT_HIST_BUCKETS; i++) {
        uint64_t lo = mt_hist_low(i), hi = mt_hist_high(i);
        CHECK_MSG(mt_hist_low(i + 1) == hi + 1, "bucket %u ends where %u starts", i, i + 1);
        CHECK_MSG(hi - lo + 1 <= (lo / MT_HIST_SUB > 1 ? lo / MT_HIST_SUB : 1),
                  "bucket %u [%llu, %llu] wider than 1/32", i, (unsigned long long)lo,
                  (unsigned long long)hi);
        CHECK_MSG(mt_hist_index(lo) == i && mt_hist_index(hi) == i, "bucket %u edges map back", i);
    }
    CHECK_MSG(mt_hist_index(UINT64_MAX) == MT_HIST_BUCKETS - 1, "top value in last bucket");
    CHECK_MSG(mt_hist_index((uint64_t)1 << MT_HIST_TOP_BITS) == MT_HIST_BUCKETS - 1,
              "2^40 in the last bucket");
    CHECK_MSG(mt_hist_index(((uint64_t)1 << MT_HIST_TOP_BITS) - 1) == MT_HIST_BUCKETS - 1,
              "2^40-1 in the last bucket");
}

/* The reported quantile is the upper edge of the true value's bucket (at
 * most the maximum): exact, given the exact nearest-rank value. */
static void check_distribution(const char *name, uint64_t *v, size_t n)
{
    static uint64_t hist[MT_HIST_BUCKETS];
    memset(hist, 0, sizeof hist);
    uint64_t max = 0;
    for (size_t i = 0; i < n; i++) {
        hist[mt_hist_index(v[i])]++;
        max = v[i] > max ? v[i] : max;
    }
    qsort(v, n, sizeof *v, cmp_u64);
    for (unsigned k = 0; k < MT_STATS_QUANTILES; k++) {
        uint64_t q = mt_stats_quantiles[k].q;
        /* nearest rank: the smallest value with at least q * n samples at or below */
        size_t rank = (size_t)(((unsigned __int128)n * q + 9999999) / 10000000);
        uint64_t truth = v[(rank ? rank : 1) - 1];
        uint64_t want = mt_hist_high(mt_hist_index(truth));
        want = want < max ? want : max;
        uint64_t got = mt_hist_quantile(hist, n, max, q);
        CHECK_MSG(got == want, "%s %s: got %llu, true %llu, want %llu", name, mt_stats_quantiles[k].name,
                  (unsigned long long)got, (unsigned long long)truth, (unsigned long long)want);
        CHECK_MSG(got >= truth && got - truth <= truth / 32 + 1, "%s %s: %llu not within 1/32 of %llu", name,
                  mt_stats_quantiles[k].name, (unsigned long long)got, (unsigned long long)truth);
    }
}

static uint64_t rng = 88172645463325252ull;
static uint64_t next_random(void) { return xorshift(&rng); }

static void test_quantiles(void)
{
    enum { N = 2000000 };
    uint64_t *v = malloc(N * sizeof *v);
    CHECK_MSG(v, "memory");
    if (!v)
        return;
    for (size_t i = 0; i < N; i++) /* uniform 1 .. 10^6 */
        v[i] = i % 1000000 + 1;
    check_distribution("uniform", v, N);

    /* A latency-like shape: mostly ~60 cycles, a tail of page faults and
     * preemptions whose ranks land on the 99.99 .. 99.9999 percentiles. */
    for (size_t i = 0; i < N; i++) {
        uint64_t r = next_random() % 1000000;
        v[i] = r < 999000   ? 50 + next_random() % 30
               : r < 999990 ? 2000 + next_random() % 100000
                            : 1000000 + next_random() % 50000000;
    }
    check_distribution("tail", v, N);

    /* Exactly known: 10^6 samples of 100 and 2 of 7777777: the 99.9999th
     * percentile's rank, ceil(0.999999 * 1000002) = 1000001, is a large one. */
    size_t n = 1000002;
    for (size_t i = 0; i < n; i++)
        v[i] = i < 1000000 ? 100 : 7777777;
    check_distribution("two values", v, n);
    static uint64_t hist[MT_HIST_BUCKETS];
    hist[mt_hist_index(100)] = 1000000;
    hist[mt_hist_index(7777777)] = 2;
    CHECK_MSG(mt_hist_quantile(hist, n, 7777777, 9999990) == 7777777, "p99.9999 of 1000002");
    uint64_t edge = mt_hist_high(mt_hist_index(100)); /* 101: buckets are 2 wide there */
    CHECK_MSG(edge == 101, "bucket of 100 ends at %llu", (unsigned long long)edge);
    CHECK_MSG(mt_hist_quantile(hist, n, 7777777, 9999900) == edge, "p99.999 of 1000002");
    /* 9999990 of 100 and 10 large in 10^7: rank 9999990 is the last 100 */
    hist[mt_hist_index(100)] = 9999990;
    hist[mt_hist_index(7777777)] = 10;
    CHECK_MSG(mt_hist_quantile(hist, 10000000, 7777777, 9999990) == edge, "p99.9999 of 10^7");
    CHECK_MSG(mt_hist_quantile(hist, 10000000, 7777777, 10000000) == 7777777, "p100 is the exact max");
    CHECK_MSG(mt_hist_quantile(hist, 0, 0, 5000000) == 0, "no samples: 0");

    /* Every value the same: every quantile is that value (the max caps the bucket). */
    for (size_t i = 0; i < 1000; i++)
        v[i] = 12345;
    check_distribution("constant", v, 1000);
    free(v);
}

static void test_format(void)
{
    char b[32];
    CHECK_MSG(!strcmp(mt_so_fmt(b, 0, 0), "0"), "0");
    CHECK_MSG(!strcmp(mt_so_fmt(b, 1234567, 0), "1234567"), "%s", b);
    CHECK_MSG(!strcmp(mt_so_fmt(b, 5, 1), "0.5"), "%s", b);
    CHECK_MSG(!strcmp(mt_so_fmt(b, 2995, 3), "2.995"), "%s", b);
    CHECK_MSG(!strcmp(mt_so_fmt(b, 1000, 3), "1.000"), "%s", b);
    CHECK_MSG(!strcmp(mt_so_fmt(b, UINT64_MAX, 0), "18446744073709551615"), "%s", b);
    CHECK_MSG(mt_stats_mean10(10, 3) == 33 && mt_stats_mean10(20, 3) == 67 && mt_stats_mean10(5, 0) == 0,
              "means %llu %llu", (unsigned long long)mt_stats_mean10(10, 3),
              (unsigned long long)mt_stats_mean10(20, 3));
    CHECK_MSG(mt_stats_to_ns(3000, 3000) == 1000, "3000 cycles at 3 GHz are 1000 ns");
}

int main(void)
{
    test_buckets();
    test_quantiles();
    test_format();
    return check_report("hist_test");
}

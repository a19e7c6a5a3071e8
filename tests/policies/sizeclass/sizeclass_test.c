/* Size-class policies: monotonic, round-trip, never below the request,
 * multiples of 16 (exhaustive up to 1 MiB or the policy's last class,
 * sampled above); each policy's worst internal fragmentation, measured and
 * compared with what its header promises; and the table-driven policies
 * (tc, supermalloc, prime) re-derived from their documented rules, so a
 * table that drifts from its rule fails here.
 *
 *     sizeclass_test            run the checks
 *     sizeclass_test --tables   print the tables the rules give, in the form
 *                               the policy headers hold them
 */
#include <mortise/policy/sizeclass/sizeclass.h>
#include "../../common/check.h"
#include <string.h>

#define MT_SIZECLASS_STEP 48

#define PROPERTIES(policy, limit)                                             \
    do {                                                                      \
        int ok_mono = 1, ok_cover = 1, ok_round = 1, ok_align = 1;            \
        size_t prev = 0;                                                      \
        for (size_t s = 1; s <= (limit); s += (s < (1u << 20) ? 1 : s / 7)) { \
            size_t i = MT_SZCLS_FN(policy, index)(s);                         \
            size_t cs = MT_SZCLS_FN(policy, size)(i);                         \
            ok_mono &= i >= prev;                                             \
            ok_cover &= cs >= s;                                              \
            ok_round &= MT_SZCLS_FN(policy, index)(cs) == i;                  \
            ok_align &= cs % 16 == 0;                                         \
            ok_cover &= i == 0 || MT_SZCLS_FN(policy, size)(i - 1) < s;       \
            prev = i;                                                         \
        }                                                                     \
        CHECK(ok_mono);                                                       \
        CHECK(ok_cover);                                                      \
        CHECK(ok_round);                                                      \
        CHECK(ok_align);                                                      \
        CHECK(MT_SZCLS_FN(policy, index)(0) == 0);                            \
    } while (0)

/* Worst internal fragmentation of sizes in [from, to]: the largest
 * (usable - size) / size in permille; printed with the size where it is. */
static size_t worst_at;
#define WORST(policy, from, to, what)                                                             \
    __extension__({                                                                               \
        size_t w_ = 0;                                                                            \
        for (size_t s = (from); s <= (to); s++) {                                                 \
            size_t cs = MT_SZCLS_FN(policy, size)(MT_SZCLS_FN(policy, index)(s));                 \
            size_t pm = (cs - s) * 1000 / s;                                                      \
            if (pm > w_)                                                                          \
                w_ = pm, worst_at = s;                                                            \
        }                                                                                         \
        printf("%s: worst %zu.%zu %% %s, at %zu B\n", #policy, w_ / 10, w_ % 10, what, worst_at); \
        w_;                                                                                       \
    })
#define EXPECT_WORST(policy, from, to, what, permille, at)             \
    do {                                                               \
        size_t w_ = WORST(policy, (size_t)(from), (size_t)(to), what); \
        CHECK(w_ == (permille) && worst_at == (at));                   \
    } while (0)

/* A table policy: its class sizes and the classes count. */
typedef struct {
    const char *name;
    size_t classes;
    size_t (*size)(size_t);
    size_t (*index)(size_t);
} policy_view;

#define VIEW(p)                                                           \
    static size_t p##_size(size_t i) { return mt_szcls_##p##_size(i); }   \
    static size_t p##_index(size_t s) { return mt_szcls_##p##_index(s); } \
    static const policy_view view_##p = {#p, MT_SZCLS_##p##_CLASSES, p##_size, p##_index};
VIEW(tc)
VIEW(supermalloc)
VIEW(prime)

/* ---- the rules, written once here; the headers hold their output ---- */

#define MAX_CLASSES 256

/* tc: gperftools' SizeMap::Init (src/common.cc) with 8 KiB pages, a 16-byte
 * minimum and kMaxSize 256 KiB. Sizes step by their alignment: 16 below
 * 128 bytes, then 1/8 of the power of two below (at most a page); each size
 * gets the fewest pages that waste at most 1/8 of the span and hold at least
 * a quarter of a transfer batch (64 KiB / size, between 2 and 512 objects);
 * a size that needs the same pages and fits as many objects as the previous
 * class replaces it (the class grows instead of adding one). */
static size_t rule_tc(uint32_t *out)
{
    const size_t page = 8192, max = 262144;
    size_t pages[MAX_CLASSES], n = 0;
    for (size_t size = 16, align = 16; size <= max; size += align) {
        align = size >= 128 ? ((size_t)1 << mt_log2_floor(size)) / 8 : 16;
        align = align > page ? page : align;
        size_t move = 65536 / size;
        move = move < 2 ? 2 : move > 512 ? 512 : move;
        size_t psize = 0;
        do {
            psize += page;
            while (psize % size > psize / 8)
                psize += page;
        } while (psize / size < move / 4);
        if (n && psize / page == pages[n - 1] && psize / size == pages[n - 1] * page / out[n - 1]) {
            out[n - 1] = (uint32_t)size;
            continue;
        }
        pages[n] = psize / page;
        out[n++] = (uint32_t)size;
    }
    return n;
}

static bool is_prime(size_t x)
{
    if (x < 2)
        return false;
    for (size_t y = 2; y * y <= x; y++)
        if (x % y == 0)
            return false;
    return true;
}
static bool prime_or_9_or_15(size_t x) { return x == 9 || x == 15 || is_prime(x); }

/* supermalloc: SuperMalloc's generator (src/objsizes.cc), with every class a
 * multiple of 16. Small: c * 2^k for c in 4..7 up to four cache lines; of
 * those, the multiples of 16 are 16, 32, 48, then 64, 80, ... 256 (the
 * paper's planned 8-byte-aligned set, at 16). Medium: cache-line counts
 * from 5 to 255 that are a power of two, or a prime (9 and 15 count as
 * primes) kept when the previous kept prime is below 0.7 times the next
 * one. Large: powers of two from 16 KiB, less a page from 256 KiB, up to
 * half the 2 MiB chunk. */
static size_t rule_supermalloc(uint32_t *out)
{
    size_t n = 0;
    for (size_t k = 8; k <= 256; k *= 2)
        for (size_t c = 4; c <= 7; c++)
            if (c * k / 4 <= 256 && (c * k / 4) % 16 == 0)
                out[n++] = (uint32_t)(c * k / 4);
    size_t prev = 4;
    for (size_t lines = 5; lines < 256;) {
        size_t next_prime = lines + 1;
        while (!prime_or_9_or_15(next_prime))
            next_prime++;
        if (mt_is_pow2(lines) || (double)prev < 0.7 * (double)next_prime) {
            out[n++] = (uint32_t)(lines * 64);
            if (!mt_is_pow2(lines))
                prev = lines;
        }
        do
            lines++;
        while (!prime_or_9_or_15(lines) && !mt_is_pow2(lines));
    }
    for (unsigned lg = 14; lg < 21; lg++)
        out[n++] = (uint32_t)(((size_t)1 << lg) - (lg > 17 ? 4096 : 0));
    return n;
}

/* prime: in 16-byte units u, every u from 1 to 8 (16..128 bytes); then from
 * class c the largest prime or near-prime (9, 15) q with c < q <= c * 9/8,
 * or the next one above c if that interval holds none; up to the first
 * class of at least 256 KiB. */
static size_t rule_prime(uint32_t *out)
{
    size_t n = 0, c;
    for (c = 1; c <= 8; c++)
        out[n++] = (uint32_t)(c * 16);
    for (c = 8; c * 16 < 262144;) {
        size_t q = 0;
        for (size_t u = c + 1; u <= c * 9 / 8; u++)
            if (prime_or_9_or_15(u))
                q = u;
        if (!q)
            for (q = c + 1; !prime_or_9_or_15(q); q++) {
            }
        out[n++] = (uint32_t)(q * 16);
        c = q;
    }
    return n;
}

/* The fine bin (policy/sizeclass/table.h) of the smallest size it holds. */
static size_t bin_low(size_t bin)
{
    if (bin == 0)
        return 0;
    if (bin < 8)
        return bin * 16 + 1;
    size_t b = bin - 8, k = 7 + b / 8, j = b % 8;
    return ((size_t)1 << k) + j * ((size_t)1 << (k - 3)) + 1;
}

static size_t first_table(const uint32_t *sizes, size_t n, uint8_t *first)
{
    size_t bins = mt_szcls_fine_bin(sizes[n - 1]) + 1;
    for (size_t b = 0; b < bins; b++) {
        size_t i = 0;
        while (sizes[i] < bin_low(b))
            i++;
        first[b] = (uint8_t)i;
    }
    return bins;
}

static void print_table(const char *name, size_t (*rule)(uint32_t *))
{
    uint32_t sizes[MAX_CLASSES];
    uint8_t first[512];
    size_t n = rule(sizes), bins = first_table(sizes, n, first);
    printf("/* %s: %zu classes */\n#define MT_SZCLS_%s_CLASSES %zu\n", name, n, name, n);
    /* the guards keep clang-format from re-flowing the rows (.clang-format) */
    printf("/* clang-format off */\nMT_UNUSED static const uint32_t mt_szcls_%s_sizes[%zu] = {", name, n);
    for (size_t i = 0; i < n; i++)
        printf("%s%u,", i % 8 ? " " : "\n    ", sizes[i]);
    printf("\n};\nMT_UNUSED static const uint8_t mt_szcls_%s_first[%zu] = {", name, bins);
    for (size_t b = 0; b < bins; b++)
        printf("%s%u,", b % 16 ? " " : "\n    ", first[b]);
    printf("\n};\nMT_UNUSED static const uint8_t mt_szcls_%s_small[MT_SZCLS_SMALL_ENTRIES] = {", name);
    for (size_t j = 0, i = 0; j < MT_SZCLS_SMALL_ENTRIES; j++) {
        while (sizes[i] < 16 * j)
            i++;
        printf("%s%zu,", j % 16 ? " " : "\n    ", i);
    }
    printf("\n};\n/* clang-format on */\n");
}

/* The header's tables are what the rule gives. */
static void check_rule(const policy_view *v, size_t (*rule)(uint32_t *))
{
    uint32_t sizes[MAX_CLASSES];
    size_t n = rule(sizes);
    CHECK(n == v->classes);
    size_t same = 0;
    for (size_t i = 0; i < n && i < v->classes; i++)
        same += v->size(i) == sizes[i];
    if (same != n)
        fprintf(stderr, "%s: %zu of %zu class sizes differ from the rule\n", v->name, n - same, n);
    CHECK(same == n);
}

/* How many classes one fine bin holds at most: the steps index() may take
 * after its table lookup. */
static size_t most_steps(const policy_view *v)
{
    size_t most = 0, max = v->size(v->classes - 1);
    for (size_t b = 0; b <= mt_szcls_fine_bin(max); b++) {
        size_t lo = bin_low(b), i = v->index(lo ? lo : 1), steps = 0;
        while (i + steps + 1 < v->classes && v->size(i + steps) < bin_low(b + 1) - 1)
            steps++;
        most = steps > most ? steps : most;
    }
    return most;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--tables") == 0) {
        print_table("tc", rule_tc);
        print_table("supermalloc", rule_supermalloc);
        print_table("prime", rule_prime);
        return 0;
    }
    PROPERTIES(log2b, (size_t)1 << 40);
    PROPERTIES(interval, (size_t)1 << 22);
    PROPERTIES(tc, (size_t)mt_szcls_tc_size(MT_SZCLS_tc_CLASSES - 1));
    PROPERTIES(supermalloc, (size_t)mt_szcls_supermalloc_size(MT_SZCLS_supermalloc_CLASSES - 1));
    PROPERTIES(prime, (size_t)mt_szcls_prime_size(MT_SZCLS_prime_CLASSES - 1));

    /* sizes above the last class have none (the layer's size_handle must stop there) */
    CHECK(mt_szcls_tc_index(262145) == MT_SZCLS_tc_CLASSES);
    CHECK(mt_szcls_tc_index(SIZE_MAX / 2) == MT_SZCLS_tc_CLASSES);
    CHECK(mt_szcls_supermalloc_index(1044481) == MT_SZCLS_supermalloc_CLASSES);
    CHECK(mt_szcls_prime_index(mt_szcls_prime_size(MT_SZCLS_prime_CLASSES - 1) + 1) ==
          MT_SZCLS_prime_CLASSES);

    /* every table policy's first classes are 16, 32, ... 128: at most 15
     * bytes of waste below 129 bytes */
    for (size_t i = 0; i < 8; i++)
        CHECK(mt_szcls_tc_size(i) == 16 * (i + 1) && mt_szcls_supermalloc_size(i) == 16 * (i + 1) &&
              mt_szcls_prime_size(i) == 16 * (i + 1));

    /* the tables are their rules' output */
    check_rule(&view_tc, rule_tc);
    check_rule(&view_supermalloc, rule_supermalloc);
    check_rule(&view_prime, rule_prime);

    /* landmarks of each rule */
    CHECK(mt_szcls_tc_size(0) == 16 && mt_szcls_tc_size(MT_SZCLS_tc_CLASSES - 1) == 262144);
    CHECK(mt_szcls_tc_size(mt_szcls_tc_index(129)) == 144 && mt_szcls_tc_size(mt_szcls_tc_index(257)) == 288);
    CHECK(mt_szcls_tc_size(mt_szcls_tc_index(32767)) == 32768);
    CHECK(mt_szcls_supermalloc_size(mt_szcls_supermalloc_index(257)) == 320);
    CHECK(mt_szcls_supermalloc_size(mt_szcls_supermalloc_index(321)) == 448);     /* 7 lines */
    CHECK(mt_szcls_supermalloc_size(mt_szcls_supermalloc_index(10049)) == 14272); /* 223 lines */
    CHECK(mt_szcls_prime_size(mt_szcls_prime_index(129)) == 144);                 /* 9 units */
    CHECK(mt_szcls_prime_size(mt_szcls_prime_index(369)) == 464);                 /* 23 -> 29 units */
    for (size_t i = 8; i < MT_SZCLS_prime_CLASSES; i++)
        CHECK(prime_or_9_or_15(mt_szcls_prime_size(i) / 16));

    /* index() steps over at most this many classes after its lookup */
    CHECK(most_steps(&view_tc) <= 1);
    CHECK(most_steps(&view_supermalloc) <= 1);
    CHECK(most_steps(&view_prime) <= 2);

    /* worst internal fragmentation: the numbers in each header and in
     * docs/layers.md; below 129 bytes every policy wastes at most 15 bytes */
    CHECK(mt_szcls_tc_size(mt_szcls_tc_index(1)) - 1 == 15);
    CHECK(WORST(log2b, 129, (size_t)1 << 20, "above 128 B") < 250);
    EXPECT_WORST(tc, 129, 262144, "above 128 B", 249, 16385);
    EXPECT_WORST(tc, 129, 16384, "from 129 B to 16 KiB", 230, 3329);
    EXPECT_WORST(supermalloc, 129, 256, "from 129 B to 256 B", 240, 129);
    EXPECT_WORST(supermalloc, 257, 16384, "from 257 B to 16 KiB", 420, 10049);
    EXPECT_WORST(supermalloc, 129, 1044480, "above 128 B", 1015, 258049);
    EXPECT_WORST(prime, 129, 262144, "above 128 B", 257, 369);
    EXPECT_WORST(prime, 2049, 262144, "above 2 KiB", 124, 3857);
    CHECK(mt_szcls_log2b_size(0) == 16 && mt_szcls_log2b_size(8) == 160);
    return check_report("sizeclass_test");
}

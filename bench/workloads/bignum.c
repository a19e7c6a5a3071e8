/* bench_bignum: single-thread small-object churn (like cfrac in the paper).
 *
 * Factors numbers n = p·q1·q2 (p of 22–27 bits, q1, q2 of 61–62 bits, all
 * prime and drawn from a fixed seed) with Pollard's rho on arbitrary-
 * precision integers. Every arithmetic result is a fresh heap block of
 * 24–72 bytes and every temporary is freed at once, so the run is millions
 * of small malloc/free pairs with a tiny live set. The factor found must be
 * exactly p (the arithmetic is checked that way), and every number's block
 * is opened before it is freed. -t is accepted and ignored.
 */
#include "workload.h"

/* 32-bit limbs, little-endian; `len` limbs used, no leading zero limb
 * except that zero has len 0. */
struct bn {
    uint64_t id, seal; /* wl_seal over the first 16 bytes */
    uint32_t len, cap;
    uint32_t limb[];
};

static uint64_t bn_serial;
static uint64_t bn_live;

static struct bn *bn_new(uint32_t cap)
{
    if (cap == 0)
        cap = 1;
    struct bn *b = wl_malloc(sizeof(struct bn) + cap * sizeof(uint32_t), "bn_new");
    wl_seal(b, WL_MIN_SEALED, (++bn_serial << 16) | cap);
    b->len = 0;
    b->cap = cap;
    bn_live++;
    return b;
}

static void bn_free(struct bn *b)
{
    uint64_t id = wl_open(b, WL_MIN_SEALED, "bn_free");
    if ((id & 0xffff) != b->cap)
        wl_fail("bn_free: capacity %u does not match seal", b->cap);
    bn_live--;
    free(b);
}

static void bn_trim(struct bn *b)
{
    while (b->len && b->limb[b->len - 1] == 0)
        b->len--;
}

static struct bn *bn_from_u64(uint64_t v)
{
    struct bn *b = bn_new(2);
    b->limb[0] = (uint32_t)v;
    b->limb[1] = (uint32_t)(v >> 32);
    b->len = 2;
    bn_trim(b);
    return b;
}

static struct bn *bn_copy(const struct bn *a)
{
    struct bn *b = bn_new(a->len);
    memcpy(b->limb, a->limb, a->len * sizeof(uint32_t));
    b->len = a->len;
    return b;
}

static int bn_cmp(const struct bn *a, const struct bn *b)
{
    if (a->len != b->len)
        return a->len < b->len ? -1 : 1;
    for (uint32_t i = a->len; i-- > 0;)
        if (a->limb[i] != b->limb[i])
            return a->limb[i] < b->limb[i] ? -1 : 1;
    return 0;
}

static struct bn *bn_mul(const struct bn *a, const struct bn *b)
{
    struct bn *r = bn_new(a->len + b->len);
    memset(r->limb, 0, (a->len + b->len) * sizeof(uint32_t));
    for (uint32_t i = 0; i < a->len; i++) {
        uint64_t carry = 0;
        for (uint32_t j = 0; j < b->len; j++) {
            uint64_t t = (uint64_t)a->limb[i] * b->limb[j] + r->limb[i + j] + carry;
            r->limb[i + j] = (uint32_t)t;
            carry = t >> 32;
        }
        r->limb[i + b->len] = (uint32_t)carry;
    }
    r->len = a->len + b->len;
    bn_trim(r);
    return r;
}

/* |a - b| */
static struct bn *bn_absdiff(const struct bn *a, const struct bn *b)
{
    if (bn_cmp(a, b) < 0) {
        const struct bn *t = a;
        a = b;
        b = t;
    }
    struct bn *r = bn_new(a->len);
    int64_t borrow = 0;
    for (uint32_t i = 0; i < a->len; i++) {
        int64_t t = (int64_t)a->limb[i] - (i < b->len ? b->limb[i] : 0) - borrow;
        borrow = t < 0;
        r->limb[i] = (uint32_t)(t + (borrow ? (int64_t)1 << 32 : 0));
    }
    r->len = a->len;
    bn_trim(r);
    return r;
}

static struct bn *bn_add_small(const struct bn *a, uint32_t v)
{
    struct bn *r = bn_new(a->len + 1);
    uint64_t carry = v;
    for (uint32_t i = 0; i < a->len; i++) {
        uint64_t t = (uint64_t)a->limb[i] + carry;
        r->limb[i] = (uint32_t)t;
        carry = t >> 32;
    }
    r->limb[a->len] = (uint32_t)carry;
    r->len = a->len + 1;
    bn_trim(r);
    return r;
}

/* u mod v (v ≠ 0): long division on normalized copies (Knuth's algorithm D
 * keeping only the remainder). */
static struct bn *bn_mod(const struct bn *u, const struct bn *v)
{
    if (v->len == 0)
        wl_fail("bn_mod: division by zero");
    if (bn_cmp(u, v) < 0)
        return bn_copy(u);
    uint32_t n = v->len, m = u->len - v->len;
    if (n == 1) {
        uint64_t rem = 0;
        for (uint32_t i = u->len; i-- > 0;)
            rem = ((rem << 32) | u->limb[i]) % v->limb[0];
        return bn_from_u64(rem);
    }
    int s = __builtin_clz(v->limb[n - 1]);
    struct bn *vn = bn_new(n), *un = bn_new(u->len + 1);
    for (uint32_t i = n - 1; i > 0; i--)
        vn->limb[i] = (uint32_t)(((uint64_t)v->limb[i] << s) | ((uint64_t)v->limb[i - 1] >> (32 - s)));
    vn->limb[0] = v->limb[0] << s;
    un->limb[u->len] = (uint32_t)((uint64_t)u->limb[u->len - 1] >> (32 - s));
    for (uint32_t i = u->len - 1; i > 0; i--)
        un->limb[i] = (uint32_t)(((uint64_t)u->limb[i] << s) | ((uint64_t)u->limb[i - 1] >> (32 - s)));
    un->limb[0] = u->limb[0] << s;
    const uint64_t base = (uint64_t)1 << 32;
    for (uint32_t j = m + 1; j-- > 0;) {
        uint64_t num = ((uint64_t)un->limb[j + n] << 32) | un->limb[j + n - 1];
        uint64_t qhat = num / vn->limb[n - 1], rhat = num % vn->limb[n - 1];
        while (qhat >= base || qhat * vn->limb[n - 2] > ((rhat << 32) | un->limb[j + n - 2])) {
            qhat--;
            rhat += vn->limb[n - 1];
            if (rhat >= base)
                break;
        }
        int64_t t, k = 0;
        for (uint32_t i = 0; i < n; i++) {
            uint64_t p = qhat * vn->limb[i];
            t = (int64_t)un->limb[i + j] - k - (int64_t)(p & 0xffffffffu);
            un->limb[i + j] = (uint32_t)t;
            k = (int64_t)(p >> 32) - (t >> 32);
        }
        t = (int64_t)un->limb[j + n] - k;
        un->limb[j + n] = (uint32_t)t;
        if (t < 0) {
            uint64_t c = 0;
            for (uint32_t i = 0; i < n; i++) {
                uint64_t sum = (uint64_t)un->limb[i + j] + vn->limb[i] + c;
                un->limb[i + j] = (uint32_t)sum;
                c = sum >> 32;
            }
            un->limb[j + n] += (uint32_t)c;
        }
    }
    struct bn *r = bn_new(n);
    for (uint32_t i = 0; i < n - 1; i++)
        r->limb[i] = (uint32_t)(((uint64_t)un->limb[i] >> s) | ((uint64_t)un->limb[i + 1] << (32 - s)));
    r->limb[n - 1] = un->limb[n - 1] >> s;
    r->len = n;
    bn_trim(r);
    bn_free(vn);
    bn_free(un);
    return r;
}

static struct bn *bn_gcd(const struct bn *a, const struct bn *b)
{
    struct bn *x = bn_copy(a), *y = bn_copy(b);
    while (y->len) {
        struct bn *r = bn_mod(x, y);
        bn_free(x);
        x = y;
        y = r;
    }
    bn_free(y);
    return x;
}

/* (x² + c) mod n, through fresh blocks as a naive program would. */
static struct bn *rho_step(const struct bn *x, uint32_t c, const struct bn *n)
{
    struct bn *sq = bn_mul(x, x);
    struct bn *s = bn_add_small(sq, c);
    struct bn *r = bn_mod(s, n);
    bn_free(sq);
    bn_free(s);
    return r;
}

/* Pollard's rho with Floyd cycle finding and the gcd taken every 32 steps
 * over the product of the differences: a divisor > 1 of n (n itself when
 * this c fails), or NULL after 2^22 steps. */
static struct bn *rho(const struct bn *n, uint32_t c)
{
    struct bn *x = bn_from_u64(2), *y = bn_from_u64(2), *acc = bn_from_u64(1);
    struct bn *d = NULL;
    for (unsigned step = 1; step < (1u << 22); step++) {
        struct bn *nx = rho_step(x, c, n);
        struct bn *ny1 = rho_step(y, c, n);
        struct bn *ny = rho_step(ny1, c, n);
        bn_free(x);
        bn_free(y);
        bn_free(ny1);
        x = nx;
        y = ny;
        struct bn *diff = bn_absdiff(x, y);
        struct bn *prod = bn_mul(acc, diff);
        bn_free(acc);
        acc = bn_mod(prod, n);
        bn_free(prod);
        bn_free(diff);
        if (step % 32 == 0 || acc->len == 0) {
            d = bn_gcd(acc->len ? acc : n, n);
            if (d->len == 1 && d->limb[0] == 1) {
                bn_free(d);
                d = NULL;
            } else {
                break;
            }
        }
    }
    bn_free(x);
    bn_free(y);
    bn_free(acc);
    return d;
}

static uint64_t mulmod64(uint64_t a, uint64_t b, uint64_t m)
{
    return (uint64_t)((unsigned __int128)a * b % m);
}

static int is_prime64(uint64_t n)
{
    if (n < 2)
        return 0;
    static const uint64_t small[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37};
    for (unsigned i = 0; i < sizeof small / sizeof *small; i++)
        if (n % small[i] == 0)
            return n == small[i];
    uint64_t d = n - 1;
    int r = 0;
    while (!(d & 1)) {
        d >>= 1;
        r++;
    }
    for (unsigned i = 0; i < sizeof small / sizeof *small; i++) {
        uint64_t a = small[i], x = 1, e = d, b = a % n;
        while (e) {
            if (e & 1)
                x = mulmod64(x, b, n);
            b = mulmod64(b, b, n);
            e >>= 1;
        }
        if (x == 1 || x == n - 1)
            continue;
        int composite = 1;
        for (int k = 1; k < r && composite; k++) {
            x = mulmod64(x, x, n);
            if (x == n - 1)
                composite = 0;
        }
        if (composite)
            return 0;
    }
    return 1;
}

static uint64_t random_prime(struct wl_rng *r, int bits)
{
    for (;;) {
        uint64_t v = wl_next(r) >> (64 - bits);
        v |= (uint64_t)1 << (bits - 1);
        v |= 1;
        if (is_prime64(v))
            return v;
    }
}

static uint64_t bn_low64(const struct bn *b)
{
    uint64_t v = 0;
    for (uint32_t i = 0; i < b->len && i < 2; i++)
        v |= (uint64_t)b->limb[i] << (32 * i);
    return b->len > 2 ? UINT64_MAX : v;
}

int main(int argc, char **argv)
{
    struct wl_args a = wl_parse(argc, argv, "Pollard rho on bignums: small-object churn, one thread");
    size_t numbers = wl_scaled(120, a.scale, 1);
    struct wl_rng rng = wl_rng_seed(0xcf7ac);
    uint64_t checksum = 0;
    for (size_t k = 0; k < numbers; k++) {
        uint64_t p = random_prime(&rng, 22 + (int)wl_below(&rng, 6));
        uint64_t q1 = random_prime(&rng, 61), q2 = random_prime(&rng, 62);
        struct bn *bp = bn_from_u64(p), *b1 = bn_from_u64(q1), *b2 = bn_from_u64(q2);
        struct bn *t = bn_mul(bp, b1), *n = bn_mul(t, b2);
        bn_free(t);
        struct bn *d = NULL;
        for (uint32_t c = 1; !d || bn_cmp(d, n) == 0; c++) {
            if (d)
                bn_free(d);
            if (c > 20)
                wl_fail("rho found no factor of number %zu", k);
            d = rho(n, c);
        }
        if (bn_cmp(d, bp) != 0)
            wl_fail("number %zu: factor %llx is not p=%llx", k, (unsigned long long)bn_low64(d),
                    (unsigned long long)p);
        struct bn *rem = bn_mod(n, d);
        if (rem->len != 0)
            wl_fail("number %zu: remainder not zero", k);
        checksum = wl_mix(checksum ^ bn_low64(d));
        bn_free(rem);
        bn_free(d);
        bn_free(n);
        bn_free(bp);
        bn_free(b1);
        bn_free(b2);
    }
    if (bn_live != 0)
        wl_fail("%llu numbers leaked", (unsigned long long)bn_live);
    printf("ok checksum=%016llx numbers=%zu blocks=%llu\n", (unsigned long long)checksum, numbers,
           (unsigned long long)bn_serial);
    return 0;
}

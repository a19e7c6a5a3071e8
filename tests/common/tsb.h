/* tests/common/tsb.h — what the white-box tests of slab_lk and
 * buddy_glk share: a seeded RNG, stamped blocks (a pattern over the whole
 * usable size, derived from the block's id, so an overlap or a lost byte
 * shows), a random-operation driver against a shadow table, RSS, and
 * page-map owner queries. Included after the composition, whose socket is
 * custom_socket(prefix=t_).
 */
#ifndef TSB_H
#define TSB_H
#include "check.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The chain's check operation (t_check: every layer's invariants): 0 if
 * they hold, else 1 after printing the first broken one. */
static size_t tsb_check(void)
{
    const char *broken = t_check();
    if (broken)
        fprintf(stderr, "t_check: %s\n", broken);
    return broken != NULL;
}

static uint64_t tsb_next(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1Dull;
}
static size_t tsb_range(uint64_t *s, size_t lo, size_t hi) { return lo + tsb_next(s) % (hi - lo + 1); }

/* Sizes skewed to small: half up to 256 B, a quarter up to 4 KiB, most of
 * the rest up to 64 KiB, one in 64 up to max. */
static size_t tsb_size(uint64_t *s, size_t max)
{
    unsigned k = (unsigned)(tsb_next(s) % 64);
    size_t cap = k < 32 ? 256 : k < 48 ? 4096 : k < 63 ? 65536 : max;
    return tsb_range(s, 0, cap < max ? cap : max);
}

typedef struct {
    unsigned char *p;
    size_t size, usable;
    uint64_t id;
} tsb_block;

static unsigned char tsb_byte(uint64_t id, size_t i) { return (unsigned char)(id * 131 + i * 7 + (i >> 8)); }

/* Byte j of the k-th 256-byte run of a pattern is c + 7j (mod 256), with
 * c = id * 131 + k: 7 is odd, so that is 7 * (183c + j), a 256-byte window
 * of tsb_ramp[m] = 7m at offset 183c mod 256 (7 * 183 = 1 mod 256). A run is
 * then one memcpy to write and one memcmp to verify: the tests spent nearly
 * all their time in a byte loop here, and write and count the same bytes. */
static unsigned char tsb_ramp[512];
__attribute__((constructor)) static void tsb_ramp_init(void) /* before any thread starts */
{
    for (size_t m = 0; m < sizeof tsb_ramp; m++)
        tsb_ramp[m] = (unsigned char)(m * 7);
}
static const unsigned char *tsb_run(uint64_t id, size_t k)
{
    return tsb_ramp + (unsigned char)(183 * (unsigned char)(id * 131 + k));
}

static void tsb_stamp(tsb_block *b)
{
    for (size_t at = 0; at < b->usable; at += 256) {
        size_t n = b->usable - at < 256 ? b->usable - at : 256;
        memcpy(b->p + at, tsb_run(b->id, at >> 8), n);
    }
}
/* Bytes of the block that are not its pattern (checks the first `len`);
 * bytes are counted one by one only in a run that differs. */
static size_t tsb_damage(const tsb_block *b, size_t len)
{
    size_t bad = 0;
    for (size_t at = 0; at < len; at += 256) {
        size_t n = len - at < 256 ? len - at : 256;
        if (memcmp(b->p + at, tsb_run(b->id, at >> 8), n) != 0)
            for (size_t i = at; i < at + n; i++)
                bad += b->p[i] != tsb_byte(b->id, i);
    }
    return bad;
}

/* A new block from t_malloc or t_memalign (align 0: malloc), stamped;
 * counts a failure when it is NULL, misaligned or smaller than asked. */
static bool tsb_take(tsb_block *b, size_t size, size_t align, uint64_t id, size_t *fail)
{
    b->p = align ? t_memalign(align, size) : t_malloc(size);
    if (!b->p) {
        ++*fail;
        return false;
    }
    b->size = size;
    b->usable = t_malloc_usable_size(b->p);
    b->id = id;
    *fail += b->usable < size || ((uintptr_t)b->p & ((align ? align : 16) - 1));
    tsb_stamp(b);
    return true;
}

/* `ops` random malloc / memalign / realloc / free operations with up to
 * `live` blocks of up to `max` bytes; every `every` operations the
 * layers' invariant checker runs (its violations count as failures).
 * Every block is verified before it is freed or moved; all are freed at
 * the end. Returns the number of failures. */
static size_t tsb_random_ops(uint64_t seed, size_t ops, size_t live, size_t max, size_t every,
                             size_t (*check)(void))
{
    tsb_block *blocks = calloc(live, sizeof *blocks);
    size_t fail = 0;
    uint64_t s = seed, id = seed << 20;
    for (size_t op = 1; op <= ops; op++) {
        tsb_block *b = &blocks[tsb_next(&s) % live];
        unsigned kind = (unsigned)(tsb_next(&s) % 8);
        if (b->p && kind < 5) { /* free */
            fail += tsb_damage(b, b->usable) != 0;
            t_free(b->p);
            b->p = NULL;
        } else if (b->p) { /* realloc: keeps min(old, new) bytes */
            size_t size = tsb_size(&s, max), keep = size < b->size ? size : b->size;
            unsigned char *q = t_realloc(b->p, size ? size : 1);
            if (!q) {
                fail++;
                continue;
            }
            b->p = q;
            fail += tsb_damage(b, keep) != 0;
            b->size = size ? size : 1;
            b->usable = t_malloc_usable_size(q);
            fail += b->usable < b->size || ((uintptr_t)q & 15);
            b->id = ++id;
            tsb_stamp(b);
        } else if (kind < 7) {
            tsb_take(b, tsb_size(&s, max), 0, ++id, &fail);
        } else {
            tsb_take(b, tsb_size(&s, max), (size_t)32 << (tsb_next(&s) % 12), ++id, &fail);
        }
        if (every && op % every == 0)
            fail += check();
    }
    for (size_t i = 0; i < live; i++)
        if (blocks[i].p) {
            fail += tsb_damage(&blocks[i], blocks[i].usable) != 0;
            t_free(blocks[i].p);
        }
    free(blocks);
    if (every)
        fail += check();
    return fail;
}

/* Threads running tsb_random_ops with their own seeds. */
typedef struct {
    uint64_t seed;
    size_t ops, live, max, fail;
    size_t (*check)(void);
} tsb_thread_arg;

static void *tsb_thread(void *arg)
{
    tsb_thread_arg *a = arg;
    a->fail = tsb_random_ops(a->seed, a->ops, a->live, a->max, 0, a->check);
    return NULL;
}

/* Blocks handed between threads: each thread frees what the previous one
 * left in the shared slots (cross-thread frees). */
#define TSB_SLOTS 256
static _Atomic(unsigned char *) tsb_slots[TSB_SLOTS];

typedef struct {
    uint64_t seed;
    size_t rounds, max, fail;
} tsb_swap_arg;

static void *tsb_swap_thread(void *arg)
{
    tsb_swap_arg *a = arg;
    uint64_t s = a->seed;
    for (size_t i = 0; i < a->rounds; i++) {
        size_t size = tsb_size(&s, a->max) + 8;
        unsigned char *p = t_malloc(size);
        if (!p) {
            a->fail++;
            continue;
        }
        memcpy(p, &size, sizeof size);
        p = atomic_exchange(&tsb_slots[tsb_next(&s) % TSB_SLOTS], p);
        if (p) {
            size_t was;
            memcpy(&was, p, sizeof was);
            a->fail += t_malloc_usable_size(p) < was;
            t_free(p);
        }
    }
    return NULL;
}

/* Run n threads of each kind at once; returns the failures. */
static size_t tsb_threads(unsigned n, size_t ops, size_t max, size_t (*check)(void))
{
    pthread_t t[16];
    tsb_thread_arg ra[8];
    tsb_swap_arg sa[8];
    for (unsigned i = 0; i < n; i++) {
        ra[i] = (tsb_thread_arg){0x9E37ull * (i + 1), ops, 512, max, 0, check};
        sa[i] = (tsb_swap_arg){0xC0FFEEull * (i + 1), ops, max, 0};
        pthread_create(&t[2 * i], NULL, tsb_thread, &ra[i]);
        pthread_create(&t[2 * i + 1], NULL, tsb_swap_thread, &sa[i]);
    }
    size_t fail = 0;
    for (unsigned i = 0; i < n; i++) {
        pthread_join(t[2 * i], NULL);
        pthread_join(t[2 * i + 1], NULL);
        fail += ra[i].fail + sa[i].fail;
    }
    for (size_t i = 0; i < TSB_SLOTS; i++)
        t_free(atomic_exchange(&tsb_slots[i], NULL));
    return fail;
}

/* Resident memory of the process in bytes. */
MT_UNUSED static size_t tsb_rss(void)
{
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
            resident = 0;
        fclose(f);
    }
    return (size_t)resident * (size_t)sysconf(_SC_PAGESIZE);
}

/* The page-map owner of p's granule. */
MT_UNUSED static uintptr_t tsb_owner(const void *p) { return mt_entry_owner(mt_pagemap_get(p)); }

/* getmeta through the whole chain, as the socket asks it. */
MT_UNUSED static mt_ctx tsb_meta(void *p, void **answer)
{
    mt_ctx q = mt_ctx_for_alloc(0, 1);
    mt_ctx_route(&q, p);
    *answer = q.owner ? mt_chain_getmeta(&q) : NULL;
    return q;
}

#endif

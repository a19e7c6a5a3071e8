/* tests/layers/slab_wf/wf_compose.h — the composition every slab_wf test runs on,
 * beside the system malloc (prefix w_), with a small empty-slab cache so
 * that giving slabs back below is exercised too:
 *   mmap_heap(threadlocal_heap_size=64MB)
 *     :: slab_wf(sizeclass=prime, size_handle=[0, 65536], tllabs=4)
 *     :: custom_socket(prefix=w_)
 * A test defines MT_SLAB_WF_STEPS 1 before including it to count steps.
 * Also: a seeded RNG, stamped blocks any thread can verify, and the layer's
 * view of a block (slab_of). */
#ifndef TRUNK_WF_COMPOSE_H
#define TRUNK_WF_COMPOSE_H
#include <mortise/mortise.h>

#define MT_THREADLOCAL_HEAP_SIZE ((size_t)64 << 20)
#include <mortise/os/mmap_heap.h>

#define MT_SIZECLASS prime
#define MT_TLLABS 4
#define MT_SIZE_HANDLE 0, 65536
#include <mortise/layers/slab_wf.h>

#define MT_PREFIX w_
#include <mortise/sockets/custom_socket.h>

MT_COMPOSE(mmap_heap, slab_wf, custom_socket)

#include "../../common/check.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum { WF_TLLABS = 4 };

typedef struct {
    uint64_t s;
} wf_rng;
static inline uint64_t wf_next(wf_rng *r)
{
    r->s ^= r->s << 13;
    r->s ^= r->s >> 7;
    r->s ^= r->s << 17;
    return r->s;
}
static inline size_t wf_range(wf_rng *r, size_t lo, size_t hi) { return lo + wf_next(r) % (hi - lo + 1); }
/* Mostly small sizes, now and then up to the top of the layer's range. */
static inline size_t wf_size(wf_rng *r)
{
    size_t roll = wf_next(r) % 100;
    return roll < 70 ? wf_range(r, 16, 256) : roll < 95 ? wf_range(r, 257, 4096) : wf_range(r, 4097, 65535);
}

/* A stamped block: its id and size in the first 16 bytes, a pattern of the id
 * after them (only the first 64 bytes: verification stays cheap). */
typedef struct {
    uint64_t id;
    uint64_t size;
} wf_stamp;
static inline void wf_fill(void *p, size_t size, uint64_t id)
{
    wf_stamp st = {id, size};
    memcpy(p, &st, sizeof st);
    for (size_t i = sizeof st; i < size && i < 64; i++)
        ((unsigned char *)p)[i] = (unsigned char)(id * 31 + i);
}
static inline int wf_intact(const void *p, uint64_t id)
{
    wf_stamp st;
    memcpy(&st, p, sizeof st);
    if (st.id != id || st.size < sizeof st)
        return 0;
    for (size_t i = sizeof st; i < st.size && i < 64; i++)
        if (((const unsigned char *)p)[i] != (unsigned char)(id * 31 + i))
            return 0;
    return 1;
}

static inline mt_slab_wf_slab *slab_of(const void *p)
{
    uintptr_t e = mt_pagemap_get(p);
    return mt_entry_owner(e) == slab_wf_id ? (mt_slab_wf_slab *)mt_payload_ptr(mt_entry_payload(e)) : NULL;
}

/* Blocks of `size` one standard slab holds: its header sits 0 to
 * MT_SLAB_WF_COLORS - 1 cache lines below the slab's end (by the slab's
 * address), so between these two. */
static inline size_t wf_capacity_most(size_t size)
{
    return (MT_GRANULE - MT_SLAB_WF_HDR) / mt_szcls_prime_size(mt_szcls_prime_index(size));
}
static inline size_t wf_capacity_least(size_t size)
{
    return (MT_GRANULE - MT_SLAB_WF_RESERVE) / mt_szcls_prime_size(mt_szcls_prime_index(size));
}

/* Blocks of a class no earlier request used: its first slab's capacity of
 * them and one more, so that the slab is retired full (MARK) and the last
 * block comes from a second slab. *n: how many (NULL-terminated). */
static inline void **wf_fill_slab(size_t size, size_t *n)
{
    void *first = w_malloc(size);
    mt_slab_wf_slab *s = slab_of(first);
    CHECK(s && (uintptr_t)first == mt_slab_wf_base(s)); /* a fresh slab */
    *n = s->capacity + 1;
    void **blocks = calloc(*n + 1, sizeof *blocks);
    blocks[0] = first;
    for (size_t i = 1; i < *n; i++)
        blocks[i] = w_malloc(size);
    CHECK(slab_of(blocks[*n - 1]) != s && mt_slab_wf_state(s) == MT_SLAB_WF_FULL);
    return blocks;
}

/* 1 after reporting the checker's complaint, 0 if the heaps are consistent. */
static inline int wf_inconsistent(const char *where)
{
    const char *why = NULL;
    size_t bad = slab_wf_check_heaps(&why);
    if (bad)
        fprintf(stderr, "%s: slab_wf_check_heaps: %zu heap(s) inconsistent: %s\n", where, bad, why);
    const char *chain = w_check(); /* the same, through the chain's check operation */
    if ((chain != NULL) != (bad != 0))
        fprintf(stderr, "%s: w_check() says %s\n", where, chain ? chain : "all hold");
    return bad != 0 || chain != NULL;
}

static inline size_t wf_handed_out(void)
{
    mt_os_stats s;
    mt_os_stats_read(&s);
    return s.handed_out;
}
#endif

/* tlsf_glk's purge at the edges: a chunk goes back below only if the
 * boundary tags around the hole still fit. On one contiguous heap (brk_heap,
 * chunks of 256 KiB joined in one region) a used block spanning several
 * chunks is shrunk so that the free block after it starts at a chunk
 * boundary plus d, and a used block is placed so that the free block before
 * it ends at a boundary plus d, for d from -64 to +64 bytes: purge must keep
 * the neighbours' bytes and every invariant, give back what fits, and with
 * everything freed give back the whole heap.
 * model: brk_heap::tlsf_glk(sync=posix_mutex, pool_size=256KB)::custom_socket(prefix=t_) */
#include <mortise/mortise.h>
#include <mortise/os/brk_heap.h>

#define MT_POOL_SIZE (256 << 10)
#include <mortise/layers/tlsf_glk.h>

#define MT_PREFIX t_
#include <mortise/sockets/custom_socket.h>

MT_COMPOSE(brk_heap, tlsf_glk, custom_socket)

#include "../../common/check.h"
#include "../../common/trunk_test.h"
#include <string.h>

#define POOL ((size_t)256 << 10)

static mt_tlsf_stats stats(void)
{
    mt_tlsf_stats s;
    CHECK(invariants_hold("tlsf_glk_walk", tlsf_glk_walk(&s), "a purge at an edge"));
    return s;
}

/* On an empty heap, a block spanning 7 chunk boundaries of one region. */
static char *spanning_block(void)
{
    t_malloc_trim(0);
    CHECK(stats().heap_bytes == 0);
    void *grow[8];
    for (int i = 0; i < 8; i++) /* one chunk each, joined into one region */
        grow[i] = t_malloc(POOL / 2 + 1024);
    for (int i = 0; i < 8; i++)
        t_free(grow[i]);
    return t_malloc(6 * POOL);
}

/* The n-th chunk boundary after block p's header. */
static uintptr_t boundary_after(char *p, int n)
{
    mt_tlsf_chunk *c = tlsf_glk_chunk_at((uintptr_t)mt_tlsf_of(p));
    while (n-- > 0 && c->next)
        c = c->next;
    CHECK(c->base > (uintptr_t)p + 4096 && c->base + 4096 < (uintptr_t)p + t_malloc_usable_size(p));
    return c->base;
}

static void fill(char *p, size_t len, int v) { memset(p, v, len); }
static bool holds(const char *p, size_t len, int v)
{
    for (size_t i = 0; i < len; i++)
        if (p[i] != (char)v)
            return false;
    return true;
}

/* The free block after a used one starts at boundary + d. */
static void free_block_starts_near_a_boundary(int d)
{
    char *b = spanning_block();
    uintptr_t c = boundary_after(b, 2), header = (uintptr_t)mt_tlsf_of(b);
    size_t keep = c + d - header - MT_TLSF_HDR + MT_TLSF_OVERLAP; /* block ends at c + d */
    CHECK(t_realloc(b, keep) == b && t_malloc_usable_size(b) == keep);
    fill(b, keep, 0x5a);
    size_t before = stats().heap_bytes;
    t_malloc_trim(0);
    mt_tlsf_stats s = stats();
    CHECK(holds(b, keep, 0x5a));
    if (!holds(b, keep, 0x5a))
        fprintf(stderr, "d = %d: bytes of the block before the free one changed\n", d);
    CHECK(s.heap_bytes < before); /* the chunks after the next boundary went back */
    CHECK(tlsf_glk_chunk_at((uintptr_t)mt_tlsf_of(b)) != NULL);
    t_free(b);
}

/* The free block before a used one ends at boundary + d. */
static void free_block_ends_near_a_boundary(int d)
{
    char *b = spanning_block();
    uintptr_t e = boundary_after(b, 2), header = (uintptr_t)mt_tlsf_of(b);
    size_t keep = e + d - header - MT_TLSF_HDR + MT_TLSF_OVERLAP;
    CHECK(t_realloc(b, keep) == b);
    char *after = t_malloc(1000); /* the head of the free tail: at e + d */
    CHECK((uintptr_t)mt_tlsf_of(after) == e + d);
    fill(after, 1000, 0x3c);
    t_free(b);
    size_t before = stats().heap_bytes;
    t_malloc_trim(0);
    mt_tlsf_stats s = stats();
    CHECK(holds(after, 1000, 0x3c));
    CHECK(s.heap_bytes < before && s.used_blocks == 1);
    t_free(after);
}

int main(void)
{
    for (int d = -64; d <= 64; d += 16) {
        free_block_starts_near_a_boundary(d);
        free_block_ends_near_a_boundary(d);
    }
    t_malloc_trim(0);
    mt_tlsf_stats s = stats();
    CHECK(s.regions == 0 && s.heap_bytes == 0);
    return check_report("tlsf_purge_test");
}

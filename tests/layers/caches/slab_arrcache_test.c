/* slab_arrcache: blocks freed from several slabs in turn are kept grouped by
 * slab, and allocations then drain one slab after another (span switches =
 * slabs - 1, where a LIFO cache switches on every allocation); a free from a
 * fifth slab evicts the least recently used group to the layer below; a full
 * group gives its older half back; a thread's groups go back at its exit;
 * malloc_trim empties the cache; requests it does not cover pass through;
 * fork works under load.
 * model: mmap_heap::segfit_lk(sync=spinlock)::slab_arrcache(size_handle=[0, 4096], cache_size=2MB, slab_size=64KB)::custom_socket(prefix=s_) */
#include <mortise/mortise.h>
#include <mortise/os/mmap_heap.h>

#define MT_SYNC spinlock
#include <mortise/layers/segfit_lk.h>

#define MT_SIZE_HANDLE 0, 4096
#define MT_CACHE_SIZE (2 << 20)
#define MT_SLAB_SIZE (64 << 10)
#include <mortise/layers/slab_arrcache.h>

#define MT_PREFIX s_
#include <mortise/sockets/custom_socket.h>

MT_COMPOSE(mmap_heap, segfit_lk, slab_arrcache, custom_socket)

#include "../../common/addons.h"

#define SIZE 1024
static size_t cls(size_t size) { return mt_szcls_log2b_index(size); }
static uintptr_t slab(const void *p) { return (uintptr_t)p >> 16; }
static bool below_free(void *p) { return list_has(segfit_lk_state.cls[segfit_lk_span_of(p)->cls].free, p); }
static size_t cached(size_t c)
{
    size_t n = slab_arrcache_tl.front[c].mag.n;
    for (size_t i = 0; i < slab_arrcache_backs; i++)
        n += slab_arrcache_backs_of(c)[i].mag.n;
    return n;
}

/* Up to `want` live blocks of each of `count` different slabs out of blocks[]. */
static size_t pick_slabs(void **blocks, size_t n, size_t count, size_t want, void *out[][64])
{
    size_t found = 0;
    uintptr_t seen[64];
    for (size_t i = 0; i < n && found < count; i++) {
        uintptr_t s = slab(blocks[i]);
        bool known = false;
        for (size_t k = 0; k < found; k++)
            known |= seen[k] == s;
        if (known)
            continue;
        size_t got = 0;
        for (size_t j = 0; j < n && got < want; j++)
            if (blocks[j] && slab(blocks[j]) == s)
                out[found][got++] = blocks[j];
        if (got == want)
            seen[found++] = s;
    }
    return found;
}

static void *other_thread(void *arg)
{
    void **info = arg;
    void *p[8];
    for (int i = 0; i < 8; i++)
        p[i] = s_malloc(SIZE);
    for (int i = 0; i < 8; i++)
        s_free(p[i]);
    info[0] = p[0];
    info[1] = slab_arrcache_tl.store; /* the groups' block */
    return NULL;
}

static void child(void)
{
    void *p = s_malloc(SIZE);
    CHECK(p != NULL);
    s_free(p);
    CHECK(s_malloc(SIZE) == p);
}

static void *m_alloc(size_t n) { return s_malloc(n); }
static void m_free(void *p) { s_free(p); }

int main(void)
{
    size_t c = cls(SIZE), L = slab_arrcache_group_cap(c);
    CHECK(L == 2097152 / (cls(4095) + 1) / 1024 / 4); /* 18 */

    /* 384 live blocks: six 64 KiB spans of segfit_lk's 1 KiB class */
    static void *blocks[384];
    for (int i = 0; i < 384; i++)
        blocks[i] = s_malloc(SIZE);
    s_malloc_trim(0); /* the cache starts empty */
    CHECK(cached(c) == 0);
    static void *by_slab[6][64];
    CHECK(pick_slabs(blocks, 384, 5, L + 1, by_slab) == 5);

    /* free L blocks of slabs A, B, C, D in turn: four groups take them, none
     * goes below */
    for (size_t j = 0; j < L; j++)
        for (int s = 0; s < 4; s++)
            s_free(by_slab[s][j]);
    CHECK(cached(c) == 4 * L);
    bool none_below = true;
    for (size_t j = 0; j < L; j++)
        for (int s = 0; s < 4; s++)
            none_below &= !below_free(by_slab[s][j]);
    CHECK(none_below);
    CHECK(slab_arrcache_tl.front[c].slab == slab(by_slab[0][0]));

    /* allocations drain one slab after another: 3 switches for 4 slabs
     * (a LIFO cache would switch 4L - 1 times) */
    size_t switches = 0, mine = 0;
    void *prev = NULL;
    for (size_t i = 0; i < 4 * L; i++) {
        void *p = s_malloc(SIZE);
        for (size_t j = 0; j < L; j++)
            for (int s = 0; s < 4; s++)
                mine += p == by_slab[s][j];
        if (prev && slab(p) != slab(prev))
            switches++;
        prev = p;
    }
    CHECK(mine == 4 * L);
    CHECK(switches == 3);
    /* the most recently used slab leads after the front: D, then C, then B */
    CHECK(slab(prev) == slab(by_slab[1][0]));

    /* a fifth slab with every group taken: the least recently used group
     * (B's) is emptied below, E takes its place */
    for (int s = 0; s < 5; s++)
        s_free(by_slab[s][0]);
    CHECK(below_free(by_slab[1][0]));
    CHECK(!below_free(by_slab[0][0]) && !below_free(by_slab[2][0]) && !below_free(by_slab[3][0]) &&
          !below_free(by_slab[4][0]));
    CHECK(cached(c) == 4);
    for (int s = 0; s < 5; s++)
        if (s != 1)
            CHECK(s_malloc(SIZE) != NULL);
    CHECK(cached(c) == 0);

    /* a full group gives its older half back below */
    for (size_t j = 0; j <= L; j++)
        s_free(by_slab[0][j]);
    CHECK(cached(c) == L + 1 - (L + 1) / 2);
    bool older_below = true;
    for (size_t j = 0; j < (L + 1) / 2; j++)
        older_below &= below_free(by_slab[0][j]);
    CHECK(older_below && !below_free(by_slab[0][L]));

    /* not covered: larger sizes and aligned requests go below; foreign
     * pointers are ignored */
    void *big = s_malloc(10000), *al = s_aligned_alloc(256, 100);
    CHECK(big && al && ((uintptr_t)al & 255) == 0);
    s_free(big);
    CHECK(below_free(big));
    s_free(al);
    int local = 7;
    s_free(&local);
    CHECK(local == 7);

    /* another thread's groups and blocks go back at its exit */
    void *info[2];
    in_thread(other_thread, info);
    CHECK(below_free(info[0]) && below_free(info[1]));

    CHECK(fork_under_load(m_alloc, m_free, child, 50) == 0);

    /* malloc_trim empties the calling thread's groups */
    CHECK(s_malloc_trim(0) == 1);
    size_t left = 0;
    for (size_t k = cls(1); k <= cls(4095); k++)
        left += cached(k);
    CHECK(left == 0);
    return check_report("slab_arrcache_test");
}

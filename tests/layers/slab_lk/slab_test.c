/* slab_lk from the inside, over mmap_heap: the invariant checker after
 * random operation sequences (one thread and several), usable sizes and
 * the class hint, getmeta of every block start of a slab and of pointers
 * that are not block starts, empty slabs going back below (page-map owner
 * and RSS), one empty slab kept per class until purge, aligned requests,
 * foreign pointers. Built once per sync policy (TSB_SYNC).
 * model: mmap_heap(large_keep=0)::slab_lk(sync=TSB_SYNC, size_handle=[0, 32768])::custom_socket(prefix=t_) */
#include <mortise/mortise.h>
#define MT_LARGE_KEEP 0 /* slabs given back reach the OS at once: RSS shows slab_lk's returns */
#include <mortise/os/mmap_heap.h>

#define MT_SYNC TSB_SYNC
#define MT_SIZE_HANDLE 0, 32768
#include <mortise/layers/slab_lk.h>

#define MT_PREFIX t_
#include <mortise/sockets/custom_socket.h>

MT_COMPOSE(mmap_heap, slab_lk, custom_socket)

#include "../../common/tsb.h"
#include <sys/mman.h>

static size_t check(void) { return tsb_check(); }
static slab_lk_class *class_of_size(size_t size) { return &slab_lk_state.cls[mt_szcls_tc_index(size)]; }
static slab_lk_slab *slab_of(void *p)
{
    return (slab_lk_slab *)mt_payload_ptr(mt_entry_payload(mt_pagemap_get(p)));
}

/* Every class empty: nothing partial, full or cached. */
static bool all_empty(void)
{
    bool empty = true;
    for (size_t i = 0; i < MT_SZCLS_tc_CLASSES; i++)
        empty &= !slab_lk_state.cls[i].partial && !slab_lk_state.cls[i].full && !slab_lk_state.cls[i].empty;
    return empty;
}

static void test_random(void)
{
    CHECK(tsb_random_ops(1, 200000, 2000, 40000, 4000, check) == 0);
    CHECK(tsb_random_ops(2, 50000, 64, 32767, 1, check) == 0); /* checker after every operation */
    CHECK(t_malloc_trim(0) == 1);
    CHECK(all_empty());
    CHECK(check() == 0);
}

static void test_threads(void)
{
    CHECK(tsb_threads(4, 40000, 33000, check) == 0);
    CHECK(check() == 0);
    t_malloc_trim(0);
    CHECK(all_empty());
}

/* usable = the tc class; getmeta reports the class and tc's key */
static void test_classes(void)
{
    size_t wrong = 0;
    for (size_t size = 0; size < 32768; size += 1 + size / 64) {
        void *p = t_malloc(size), *answer;
        mt_ctx q = tsb_meta(p, &answer);
        size_t cls = mt_szcls_tc_index(size);
        wrong += answer != p || q.owner != slab_lk_id || q.usable != mt_szcls_tc_size(cls) ||
                 q.szcls != cls || q.szcls_key != MT_SZCLS_tc_KEY;
        t_free(p);
    }
    CHECK(wrong == 0);
    /* 32768 and above are not ours: mmap_heap's */
    void *big = t_malloc(32768);
    CHECK(big && tsb_owner(big) != slab_lk_id && t_malloc_usable_size(big) >= 32768);
    t_free(big);
}

/* Fill exactly one slab of a class: every block start answers getmeta,
 * nothing else in the slab does, and free ignores what is not a block. */
static void test_block_starts(void)
{
    const size_t size = 96;
    slab_lk_class *c = class_of_size(size);
    void *first = t_malloc(size);
    slab_lk_slab *s = slab_of(first);
    CHECK(s && s->csize == size && s->inuse == 1);
    size_t n = s->capacity;
    void **blocks = malloc(n * sizeof *blocks);
    blocks[0] = first;
    for (size_t i = 1; i < n; i++)
        blocks[i] = t_malloc(size);
    CHECK(s->inuse == n && s->where == MT_SLAB_FULL);
    size_t starts = 0, others = 0;
    for (size_t off = 0; off < s->len; off += 16) {
        char *p = s->base + off;
        size_t usable = t_malloc_usable_size(p);
        if (off < s->used && off % size == 0)
            starts += usable == size;
        else
            others += usable != 0;
    }
    CHECK(starts == n);
    CHECK(others == 0);
    /* interior pointers, the unused tail and the record: free ignores them */
    t_free(s->base + 16);
    t_free(s->base + s->used);
    t_free((char *)s);
    t_free(s->base + s->len - 16);
    CHECK(s->inuse == n && s->where == MT_SLAB_FULL && check() == 0);
    for (size_t i = 0; i < n; i++)
        t_free(blocks[i]);
    CHECK(c->empty == s && s->inuse == 0 && check() == 0);
    free(blocks);
}

/* Empty slabs go back below at once, except one per class, which purge
 * gives back too. Measured by the page map and by RSS. */
static void test_return(void)
{
    const size_t size = 16384, total = (size_t)64 << 20, n = total / size;
    slab_lk_class *c = class_of_size(size);
    void **blocks = malloc(n * sizeof *blocks);
    size_t before = tsb_rss();
    for (size_t i = 0; i < n; i++) {
        blocks[i] = t_malloc(size);
        memset(blocks[i], 0x5A, size);
    }
    size_t peak = tsb_rss(), slabs = c->nfull + c->npartial;
    CHECK(peak >= before + total);
    CHECK(slabs >= n / 8 && slab_of(blocks[0])->len == 131072); /* 7 blocks per 128 KiB slab */
    char **bases = malloc(slabs * sizeof *bases);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (slab_of(blocks[i])->base == (char *)blocks[i])
            bases[k++] = blocks[i];
    CHECK(k == slabs);
    for (size_t i = 0; i < n; i++)
        t_free(blocks[i]);
    size_t after = tsb_rss();
    CHECK(c->nfull == 0 && c->npartial == 0 && c->empty != NULL);
    size_t ours = 0;
    for (size_t i = 0; i < k; i++)
        ours += tsb_owner(bases[i]) == slab_lk_id;
    CHECK(ours == 1); /* the cached empty slab */
    CHECK(after < before + ((size_t)2 << 20));
    printf("slab_test: RSS %zu KiB -> %zu KiB with 64 MiB of 16 KiB blocks -> %zu KiB after free\n",
           before >> 10, peak >> 10, after >> 10);
    char *kept = c->empty->base;
    CHECK(t_malloc_trim(0) == 1);
    CHECK(c->empty == NULL && tsb_owner(kept) != slab_lk_id);
    CHECK(check() == 0);
    free(bases);
    free(blocks);
}

/* An alignment above 16 takes the smallest class that is a multiple of it
 * (so up to 32 KiB); larger ones, or none left in range, go to mmap_heap. */
static void test_aligned(void)
{
    size_t bad = 0, ours_small = 0, ours_huge = 0;
    for (size_t align = 32; align <= 131072; align *= 2) {
        for (size_t size = 1; size < 32768; size = size * 3 + 7) {
            void *p = t_memalign(align, size);
            bool ours = tsb_owner(p) == slab_lk_id;
            bad += !p || ((uintptr_t)p & (align - 1)) || t_malloc_usable_size(p) < size;
            bad += ours != (slab_lk_class_for(size, align) != SIZE_MAX);
            ours_small += ours && align <= 4096 && size <= 4096;
            ours_huge += ours && align > 32768;
            t_free(p);
        }
    }
    CHECK(bad == 0);
    CHECK(ours_small == 8 * 7 && ours_huge == 0); /* 8 alignments and 7 sizes up to 4 KiB */
    CHECK(check() == 0);
}

static char static_block[256];

/* Pointers nobody handed out: usable 0, free leaves them alone. */
static void test_foreign(void)
{
    char local[256];
    char *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    memset(local, 0x11, sizeof local);
    memset(page, 0x22, 4096);
    void *foreign[] = {local,      static_block + 32,     page,
                       page + 100, (void *)(uintptr_t)16, (void *)(uintptr_t)0xffff800000000000ull};
    size_t bad = 0;
    for (size_t i = 0; i < sizeof foreign / sizeof foreign[0]; i++) {
        bad += t_malloc_usable_size(foreign[i]) != 0;
        t_free(foreign[i]);
    }
    CHECK(bad == 0);
    CHECK(local[0] == 0x11 && page[0] == 0x22 && page[100] == 0x22);
    munmap(page, 4096);
    CHECK(check() == 0);
}

/* A corrupted count is found: the checker is not vacuous. */
/* is_block's one compare against plain arithmetic, for every class's slab
 * geometry: offsets around and inside the slab (also below its base, where
 * the offset wraps) and far away. No memory is touched. */
static void test_is_block_every_class(void)
{
    size_t wrong = 0, starts = 0;
    uint64_t x = 0x9e3779b97f4a7c15u;
    for (size_t i = 0; i < slab_lk_classes_used(); i++) {
        size_t csize = slab_lk_class_size(i), len = slab_lk_slab_len(csize);
        slab_lk_slab rec;
        char *base = (char *)((uintptr_t)0x7f1200000000u);
        slab_lk_layout(&rec, base, csize, len);
        size_t room = len - slab_lk_reserve(base, len);
        CHECK(rec.capacity * csize <= room && (rec.capacity + 1) * csize > room);
        for (int64_t off = -(int64_t)len; off < 2 * (int64_t)len; off += 16) {
            bool start = off >= 0 && (uint64_t)off < rec.used && off % (int64_t)csize == 0;
            starts += start;
            wrong += slab_lk_is_block(&rec, base + off) != start;
        }
        for (int k = 0; k < 4096; k++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            uintptr_t off = (uintptr_t)x & ~(uintptr_t)15; /* anywhere in the address space */
            bool start = off < rec.used && off % csize == 0;
            wrong += slab_lk_is_block(&rec, (char *)((uintptr_t)base + off)) != start;
        }
    }
    CHECK(wrong == 0);
    CHECK(starts > 0);
}

static void test_checker_finds(void)
{
    void *p = t_malloc(48);
    slab_lk_slab *s = slab_of(p);
    s->inuse++;
    CHECK(check() != 0);
    s->inuse--;
    CHECK(check() == 0);
    t_free(p);
}

int main(void)
{
    test_classes();
    test_block_starts();
    test_is_block_every_class();
    test_return();
    test_aligned();
    test_foreign();
    test_checker_finds();
    test_random();
    test_threads();
    return check_report("slab_test(" MT_STR(TSB_SYNC) ")");
}

/* kernel_socket over buddy_glk and slab_lk (comp_kernel.c): the Linux
 * interface's answers on this target — kmalloc sizes and alignment,
 * kzalloc zero-filled, kmalloc(0), pages aligned to their order, a cache
 * with a constructor, exhaustion answered with NULL and memory back after
 * the frees, every block filled and checked. */
#include "selftest.h"
#define MT_PREFIX bm_
#include <mortise/sockets/kernel_api.h>
#undef MT_PREFIX

static int constructed;
static void construct(void *object)
{
    constructed++;
    ((unsigned char *)object)[0] = 0x5a;
}

static bool filled_and_intact(unsigned char *p, size_t size, unsigned char tag)
{
    for (size_t i = 0; i < size; i++)
        p[i] = (unsigned char)(tag + i);
    for (size_t i = 0; i < size; i++)
        if (p[i] != (unsigned char)(tag + i))
            return false;
    return true;
}

/* kmalloc(60000) until it fails, then free them all: how many fitted. */
static unsigned fill_until_null(unsigned char **block, unsigned cap)
{
    unsigned n = 0;
    while (n < cap && (block[n] = bm_kmalloc(60000, MT_GFP_KERNEL)))
        n++;
    for (unsigned i = 0; i < n; i++)
        bm_kfree(block[i]);
    return n;
}

void bm_kernel_test(void)
{
    unsigned before_failures = bm_failures;
    static unsigned char *block[64];
    for (unsigned i = 0; i < 64; i++) {
        size_t size = (size_t)8 << (i % 12); /* 8 B .. 16 KiB, powers of two */
        block[i] = bm_kmalloc(size, MT_GFP_KERNEL);
        if (!BM_CHECK(block[i] != NULL))
            break;
        BM_CHECK(((uintptr_t)block[i] & (size < 4096 ? size - 1 : 4095)) ==
                 0); /* power of two up to a page: self-aligned */
        BM_CHECK(bm_ksize(block[i]) >= size);
        BM_CHECK(filled_and_intact(block[i], size, (unsigned char)i));
    }
    for (unsigned i = 0; i < 64; i++)
        bm_kfree(block[i]);

    unsigned char *z = bm_kzalloc(3000, MT_GFP_KERNEL);
    bool zero = z != NULL;
    for (size_t i = 0; z && i < 3000; i++)
        zero &= z[i] == 0;
    BM_CHECK(zero);
    bm_kfree(z);
    BM_CHECK(bm_kmalloc(0, MT_GFP_KERNEL) == MT_ZERO_SIZE_PTR);
    bm_kfree(MT_ZERO_SIZE_PTR);
    bm_kfree(NULL);
    BM_CHECK(bm_kcalloc(SIZE_MAX / 2, 4, MT_GFP_KERNEL) == NULL);

    for (unsigned order = 0; order <= 4; order++) {
        unsigned char *page = bm_page_alloc(order);
        size_t bytes = (size_t)4096 << order;
        if (BM_CHECK(page != NULL)) {
            BM_CHECK(((uintptr_t)page & (bytes - 1)) == 0);
            BM_CHECK(filled_and_intact(page, bytes, (unsigned char)order));
            bm_page_free(page, order);
        }
    }

    mt_kmem_cache *cache = bm_kmem_cache_create("node", 40, 0, MT_SLAB_HWCACHE_ALIGN, construct);
    if (BM_CHECK(cache != NULL)) {
        unsigned char *object[32];
        for (int i = 0; i < 32; i++) {
            object[i] = bm_kmem_cache_alloc(cache, MT_GFP_KERNEL);
            BM_CHECK(object[i] && ((uintptr_t)object[i] & 63) == 0 && object[i][0] == 0x5a);
        }
        BM_CHECK(constructed == 32);
        for (int i = 0; i < 32; i++)
            bm_kmem_cache_free(cache, object[i]);
        bm_kmem_cache_shrink(cache); /* the empty slabs of every class go back below */
        bm_kmem_cache_destroy(cache);
    }

    /* exhaustion of the 2 MiB pool: 64 KiB buddy blocks until NULL (the
     * pool holds one 1 MiB buddy chunk beside the record granule), and after
     * the frees exactly as many again: everything came back */
    unsigned first = fill_until_null(block, 64), second = fill_until_null(block, 64);
    BM_CHECK(first >= 8 && first < 64 && second == first);
    bm_print("     exhaustion:");
    bm_print_num("blocks_of_60000", first);
    bm_print_num("again", second);
    bm_print_line("");

    bm_print_line(bm_failures == before_failures
                      ? "ok   kernel_socket kmalloc, kzalloc, pages, caches, exhaustion"
                      : "FAIL kernel_socket");
}

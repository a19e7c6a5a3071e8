/* Runs the two allocators compiled freestanding (freestanding_kernel.c,
 * freestanding_pool.c) from an ordinary program: code built without a C
 * library must still behave — kmalloc and caches over a static pool, pages
 * naturally aligned, the pool exhausted cleanly. */
#define MT_PREFIX fs_
#include <mortise/sockets/kernel_api.h>
#undef MT_PREFIX
#include "../../common/check.h"
#include <stdint.h>
#include <string.h>

void *pool_take(size_t size);
void pool_give(void *p);
size_t pool_room(void *p);

#define G ((size_t)65536)

static int constructed;
static void construct(void *object)
{
    constructed++;
    memset(object, 0x11, 8);
}

static void test_kernel_socket(void)
{
    char *a = fs_kmalloc(100, MT_GFP_KERNEL);
    CHECK(a && fs_ksize(a) == 112);
    memset(a, 0xab, 100);
    fs_kfree(a);
    char *z = fs_kzalloc(100, MT_GFP_KERNEL);
    CHECK(z == a && z[0] == 0 && z[99] == 0);
    fs_kfree(z);
    void *page = fs_page_alloc(2);
    CHECK(page && ((uintptr_t)page & (4 * 4096 - 1)) == 0);
    fs_page_free(page, 2);
    CHECK(fs_page_alloc(10) == NULL); /* 4 MiB does not fit beside segfit's own granules */
    mt_kmem_cache *cache = fs_kmem_cache_create("node", 40, 0, MT_SLAB_HWCACHE_ALIGN, construct);
    CHECK(cache && cache->size == 64);
    char *node = fs_kmem_cache_alloc(cache, MT_GFP_KERNEL);
    CHECK(node && ((uintptr_t)node & 63) == 0 && constructed == 1 && node[7] == 0x11);
    fs_kmem_cache_free(cache, node);
    fs_kmem_cache_destroy(cache);
    /* exhaustion: a NULL, not a crash, and memory comes back after frees */
    void *chunk[64];
    int n = 0;
    while (n < 64 && (chunk[n] = fs_kmalloc(60000, MT_GFP_KERNEL)))
        n++;
    CHECK(n > 40 && n < 64);
    while (n--)
        fs_kfree(chunk[n]);
    CHECK((a = fs_kmalloc(60000, MT_GFP_KERNEL)) != NULL);
    fs_kfree(a);
}

static void test_pool_socket(void)
{
    char *block[17];
    int n = 0;
    while (n < 17 && (block[n] = pool_take(G)))
        n++;
    CHECK(n == 16);
    CHECK(pool_room(block[3]) == G && pool_room(&n) == 0);
    pool_give(block[3]);
    CHECK(pool_take(G) == block[3]);
    for (int i = 0; i < 16; i++)
        pool_give(block[i]);
    CHECK(pool_take(16 * G) == block[0]);
}

int main(void)
{
    test_kernel_socket();
    test_pool_socket();
    return check_report("freestanding_driver");
}

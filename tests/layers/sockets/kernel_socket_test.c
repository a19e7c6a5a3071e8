/* kernel_socket: pages naturally aligned per order and refused past the
 * maximum order; kmalloc's alignment, MT_ZERO_SIZE_PTR and zeroing; flags
 * reaching the layers in ctx->gfp (a probe layer records them); caches with
 * alignment, constructor and zeroing; NULL for bad arguments. */
#define MT_CTX_EXTRA unsigned gfp;
#include <mortise/mortise.h>
#include <mortise/os/mmap_heap.h>

#define MT_SYNC spinlock
#define MT_SIZE_HANDLE 0, 65536
#include <mortise/layers/segfit_lk.h>

#define PROBE_READS_GFP
#include "request_probe.h"

#define MT_PREFIX t_
#include <mortise/sockets/kernel_socket.h>

MT_COMPOSE(mmap_heap, segfit_lk, probe, kernel_socket)

#include "../../common/check.h"
#include <string.h>

static void test_pages(void)
{
    for (unsigned order = 0; order <= MT_KERNEL_MAX_ORDER; order++) {
        size_t len = MT_PAGE_SIZE << order;
        char *p = t_page_alloc(order);
        CHECK(p && ((uintptr_t)p & (len - 1)) == 0 && t_ksize(p) >= len);
        p[0] = p[len - 1] = 1;
        t_page_free(p, order);
    }
    CHECK(t_page_alloc(MT_KERNEL_MAX_ORDER + 1) == NULL);
    char *p = t_page_alloc(1);
    t_page_free(p, 1);
    CHECK(t_page_alloc(1) == p); /* freed pages are reused */
    t_page_free(p, 1);
}

static void test_kmalloc(void)
{
    CHECK(t_kmalloc(0, MT_GFP_KERNEL) == MT_ZERO_SIZE_PTR);
    t_kfree(MT_ZERO_SIZE_PTR);
    t_kfree(NULL);
    CHECK(t_ksize(MT_ZERO_SIZE_PTR) == 0 && t_ksize(NULL) == 0);
    for (size_t size = 1; size <= MT_PAGE_SIZE; size *= 2) {
        char *p = t_kmalloc(size, MT_GFP_KERNEL);
        CHECK(p && ((uintptr_t)p & (size - 1)) == 0 && t_ksize(p) >= size); /* natural alignment */
        t_kfree(p);
    }
    char *p = t_kmalloc(200, MT_GFP_ATOMIC);
    CHECK(p && probe_seen.alloc_gfp == MT_GFP_ATOMIC); /* the flags reach the layers */
    memset(p, 0xcd, 200);
    t_kfree(p);
    char *z = t_kzalloc(200, MT_GFP_ATOMIC);
    CHECK(z == p && probe_seen.alloc_gfp == (MT_GFP_ATOMIC | MT_GFP_ZERO));
    CHECK(z[0] == 0 && z[199] == 0);
    t_kfree(z);
    char *c = t_kcalloc(10, 30, MT_GFP_KERNEL);
    CHECK(c && c[0] == 0 && c[299] == 0 && t_ksize(c) >= 300);
    t_kfree(c);
    CHECK(t_kcalloc(SIZE_MAX / 2, 3, MT_GFP_KERNEL) == NULL);
    CHECK(t_kmalloc((size_t)PTRDIFF_MAX + 1, MT_GFP_KERNEL) == NULL);
    char *big = t_kmalloc(300000, MT_GFP_KERNEL); /* beyond segfit: the OS layer */
    CHECK(big && t_ksize(big) >= 300000 && mt_entry_owner(mt_pagemap_get(big)) == mmap_heap_id);
    t_kfree(big);
}

static int constructed;
static void construct(void *object)
{
    constructed++;
    memcpy(object, "ctor", 5);
}

static void test_caches(void)
{
    mt_kmem_cache *plain = t_kmem_cache_create("plain", 24, 0, 0, NULL);
    CHECK(plain && plain->size == 32 && plain->align == MT_MIN_ALIGN && strcmp(plain->name, "plain") == 0);
    void *objects[100];
    for (int i = 0; i < 100; i++) {
        objects[i] = t_kmem_cache_alloc(plain, MT_GFP_KERNEL);
        CHECK(objects[i] && ((uintptr_t)objects[i] & 15) == 0 && t_ksize(objects[i]) >= 24);
    }
    for (int i = 0; i < 100; i++)
        t_kmem_cache_free(plain, objects[i]);
    /* all 100 objects free: segfit's spans go back to mmap_heap, whose
     * counters see the bytes handed out fall */
    mt_os_stats before, after;
    mt_os_stats_read(&before);
    CHECK(t_kmem_cache_shrink(plain) == 1);
    mt_os_stats_read(&after);
    CHECK(after.handed_out < before.handed_out);
    t_kmem_cache_destroy(plain);

    mt_kmem_cache *lines = t_kmem_cache_create("lines", 10, 0, MT_SLAB_HWCACHE_ALIGN, construct);
    CHECK(lines && lines->align == 64 && lines->size == 64);
    char *o = t_kmem_cache_alloc(lines, MT_GFP_KERNEL);
    CHECK(o && ((uintptr_t)o & 63) == 0 && constructed == 1 && strcmp(o, "ctor") == 0);
    memset(o, 0xee, 64);
    t_kmem_cache_free(lines, o);
    char *zo = t_kmem_cache_zalloc(lines, MT_GFP_KERNEL);
    CHECK(zo == o && constructed == 2 && strcmp(zo, "ctor") == 0 && zo[5] == 0 && zo[63] == 0);
    t_kmem_cache_free(lines, zo);
    t_kmem_cache_destroy(lines);

    mt_kmem_cache *wide = t_kmem_cache_create("wide", 100, 4096, 0, NULL);
    char *w = t_kmem_cache_alloc(wide, MT_GFP_KERNEL);
    CHECK(wide && wide->size == 4096 && w && ((uintptr_t)w & 4095) == 0);
    t_kmem_cache_free(wide, w);
    t_kmem_cache_destroy(wide);
    t_kmem_cache_destroy(NULL);

    CHECK(t_kmem_cache_create("bad", 0, 0, 0, NULL) == NULL);
    CHECK(t_kmem_cache_create("bad", 16, 24, 0, NULL) == NULL);
    CHECK(t_kmem_cache_create("bad", 16, (size_t)1 << 20, 0, NULL) == NULL);
}

int main(void)
{
    test_pages();
    test_kmalloc();
    test_caches();
    return check_report("kernel_socket_test");
}

/* Composition: the same layer type twice with different policies, requests
 * routed by size_handle, frees routed by the page map to the owner, fake
 * layers transparent, aligned rounding. */
#include <mortise/mortise.h>
#include <mortise/os/mmap_heap.h>

#define MT_NAME small
#define MT_SYNC spinlock
#define MT_SIZE_HANDLE 0, 1024
#include <mortise/layers/segfit_lk.h>

#include <mortise/layers/fake.h>

#define MT_NAME medium
#define MT_SYNC posix_mutex
#define MT_SIZECLASS interval
#define MT_SIZECLASS_STEP 256
#define MT_SIZE_HANDLE 1024, 65536
#include <mortise/layers/segfit_lk.h>

#define MT_NAME line
#define MT_ALIGNMENT 64
#define MT_SIZE_HANDLE 100, 200
#include <mortise/layers/aligned.h>

#define MT_PREFIX t_
#include <mortise/sockets/custom_socket.h>

MT_COMPOSE(mmap_heap, small, fake, medium, line, custom_socket)

#include "../common/check.h"
#include <string.h>

static uintptr_t owner_of(void *p) { return mt_entry_owner(mt_pagemap_get(p)); }

int main(void)
{
    void *a = t_malloc(10), *b = t_malloc(5000), *c = t_malloc(100000), *d = t_malloc(150);
    CHECK(a && b && c && d);
    CHECK(owner_of(a) == small_id);
    CHECK(owner_of(b) == medium_id);
    CHECK(owner_of(c) == mmap_heap_id);
    CHECK(owner_of(d) == small_id);
    CHECK((int)small_id != (int)medium_id);
    /* interval(step=256) in medium: 5000 rounds to 5120 */
    CHECK(t_malloc_usable_size(b) == 5120);
    /* log2b in small: 10 rounds to 16 */
    CHECK(t_malloc_usable_size(a) == 16);
    /* aligned(alignment=64) on [100, 200): 150 → 192, 64-aligned */
    CHECK(((uintptr_t)d & 63) == 0 && t_malloc_usable_size(d) == 192);
    CHECK(t_malloc_usable_size(c) == 131072);
    CHECK(owner_of(&a) == 0); /* the stack is nobody's */
    memset(a, 1, 10);
    memset(b, 2, 5000);
    memset(c, 3, 100000);
    t_free(a);
    t_free(b);
    t_free(c);
    t_free(d);
    /* a freed small block is reused by its owner */
    void *a2 = t_malloc(16);
    CHECK(a2 == a);
    t_free(a2);

    size_t n;
    const char *const *names = mt_chain_layer_names(&n);
    CHECK(n == 6 && strcmp(names[0], "mmap_heap") == 0 && strcmp(names[5], "custom_socket") == 0);
    return check_report("compose_test");
}

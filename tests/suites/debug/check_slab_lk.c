/* slab_lk's check catches a broken count and a free-list link outside its
 * slab, and holds again once they are repaired.
 * model: mmap_heap::slab_lk::custom_socket(prefix=t_) */
#include <mortise/mortise.h>
#include <mortise/os/mmap_heap.h>
#include <mortise/layers/slab_lk.h>
#define MT_PREFIX t_
#include <mortise/sockets/custom_socket.h>
MT_COMPOSE(mmap_heap, slab_lk, custom_socket)
#include "check_catch.h"

int main(void)
{
    void *a = t_malloc(64), *b = t_malloc(64), *c = t_malloc(64);
    CHECK(a && b && c);
    t_free(b); /* b heads its slab's free list */
    EXPECT_HOLDS();
    slab_lk_slab *s = (slab_lk_slab *)mt_payload_ptr(mt_entry_payload(mt_pagemap_get(a)));
    s->inuse++;
    EXPECT_BROKEN("slab_lk", "free + uncarved + in-use blocks != capacity");
    s->inuse--;
    EXPECT_HOLDS();
    void *link = *(void **)b;
    *(void **)b = (char *)s->bump + 4096 * 64; /* past the carved blocks */
    EXPECT_BROKEN("slab_lk", "free-list block outside its slab's carved blocks");
    *(void **)b = link;
    EXPECT_HOLDS();
    t_free(a);
    t_free(c);
    EXPECT_HOLDS();
    return check_report("check_slab_lk");
}

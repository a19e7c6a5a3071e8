/* The three custom_socket compositions of this image (comp_*.c), as a table
 * the shadow-model test walks. */
#include "selftest.h"

#define BM_DECLARE_FAMILY(p)                           \
    void *p##malloc(size_t size);                      \
    void *p##calloc(size_t n, size_t each);            \
    void *p##aligned_alloc(size_t align, size_t size); \
    void *p##realloc(void *ptr, size_t size);          \
    void p##free(void *ptr);                           \
    size_t p##malloc_usable_size(void *ptr);           \
    int p##malloc_trim(size_t pad);                    \
    const char *p##check(void);
#define BM_FAMILY(p, pool, max, budget)                                                         \
    {                                                                                           \
#p, p##malloc, p##calloc, p##aligned_alloc, p##realloc, p##free, p##malloc_usable_size, \
            p##malloc_trim, p##check, pool, max, budget                                         \
    }

BM_DECLARE_FAMILY(bm_tlsf_)
BM_DECLARE_FAMILY(bm_slab_)
BM_DECLARE_FAMILY(bm_buddy_)

/* Budgets leave room for what each trunk keeps beside the live bytes:
 * slab_lk a slab of 64 to 256 KiB per size class in use (and one empty one
 * cached), buddy_glk up to twice a request, in 1 MiB chunks. */
#define KIB ((size_t)1 << 10)
#define MIB ((size_t)1 << 20)
const bm_allocator bm_allocators[] = {
    BM_FAMILY(bm_tlsf_, 2 * MIB, 64 * KIB, 384 * KIB),
    BM_FAMILY(bm_slab_, 6 * MIB, 48 * KIB, 512 * KIB), /* above 32 KiB: buddy_glk */
    BM_FAMILY(bm_buddy_, 4 * MIB, 96 * KIB, 384 * KIB),
};
const size_t bm_allocator_count = sizeof bm_allocators / sizeof bm_allocators[0];

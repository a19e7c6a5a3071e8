/* The firmware's self-test: what its parts share. Each part checks with
 * BM_CHECK, which prints the failed condition with its file and line and
 * counts it; main.c turns the count into the exit status. */
#ifndef BAREMETAL_SELFTEST_H
#define BAREMETAL_SELFTEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One custom_socket composition, by its entry points. */
typedef struct {
    const char *name;
    void *(*malloc)(size_t size);
    void *(*calloc)(size_t n, size_t each);
    void *(*aligned_alloc)(size_t align, size_t size);
    void *(*realloc)(void *p, size_t size);
    void (*free)(void *p);
    size_t (*usable_size)(void *p);
    int (*trim)(size_t pad);
    const char *(*check)(void);
    size_t pool_size;   /* sheap_glk's pool */
    size_t max_request; /* the largest size the random sequence asks for */
    size_t live_budget; /* at most this many bytes live at once: far from exhaustion */
} bm_allocator;

extern const bm_allocator bm_allocators[];
extern const size_t bm_allocator_count;

extern unsigned bm_failures;
bool bm_check(bool ok, const char *what, const char *file, int line);
#define BM_CHECK(cond) bm_check((cond), #cond, __FILE__, __LINE__)

void bm_print(const char *text);
void bm_print_num(const char *label, uint32_t value); /* " label=value" */
void bm_print_line(const char *text);                 /* text and a newline */

uint32_t bm_random(void); /* xorshift32: no 64-bit division on 32-bit targets */
void bm_random_seed(uint32_t seed);

void bm_shadow_test(const bm_allocator *a, unsigned ops);
void bm_foreign_pointers(const bm_allocator *a);
void bm_tlsf_step_test(const bm_allocator *tlsf);
void bm_kernel_test(void);

#endif

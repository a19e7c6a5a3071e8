/* malloc_heap white-box, straight under the socket. The symbol look-up is
 * replaced by one that allocates through the allocator under test first (as
 * an older glibc's dlsym does), and a constructor that runs before
 * malloc_heap's allocates too. Checks: both are served from the bootstrap
 * buffer (two granules here); a third request during the look-up gets NULL
 * instead of recursing into the look-up; later blocks come from the C
 * library (libc's own malloc_usable_size knows them); bootstrap blocks never
 * reach libc's free; alignment, ownership, realloc, errno, threads. */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <malloc.h>

void *t_malloc(size_t size);
void t_free(void *p);

static void *early_block, *lookup_block, *overflow_block;
static int lookups;
static void (*libc_free)(void *);
static void *freed_by_libc[64];
static int libc_frees;

static void counting_free(void *p)
{
    if (libc_frees < 64)
        freed_by_libc[libc_frees] = p;
    libc_frees++;
    libc_free(p);
}

static bool was_freed_by_libc(const void *p)
{
    for (int i = 0; i < libc_frees && i < 64; i++)
        if (freed_by_libc[i] == p)
            return true;
    return false;
}

/* dlsym, after allocating through the chain like an allocating dlsym. */
static void *allocating_lookup(const char *name)
{
    /* the first look-up's block takes the bootstrap buffer's last granule;
     * the second finds it used up and must get NULL, not a recursive look-up */
    if (lookups++ == 0)
        lookup_block = t_malloc(100);
    else
        overflow_block = t_malloc(100);
    void *symbol = dlsym(RTLD_NEXT, name);
    if (strcmp(name, "free") == 0) {
        void (*counting)(void *) = counting_free;
        memcpy(&libc_free, &symbol, sizeof symbol);
        memcpy(&symbol, &counting, sizeof symbol);
    }
    return symbol;
}

#define MT_MALLOC_HEAP_LOOKUP(name) allocating_lookup(name)
#define MT_MALLOC_HEAP_BOOTSTRAP ((size_t)2 << 16) /* two granules: early_block, lookup_block */

#include <mortise/mortise.h>
#include <mortise/os/malloc_heap.h>

#define MT_PREFIX t_
#include <mortise/sockets/custom_socket.h>

MT_COMPOSE(malloc_heap, custom_socket)

#include "../../common/check.h"
#include "os_test.h"

/* Priority 101 runs before malloc_heap's (unprioritised) constructor. */
__attribute__((constructor(101))) static void allocate_before_start(void) { early_block = t_malloc(200); }

#define G MT_GRANULE

static void test_bootstrap(void)
{
    CHECK(lookups == 2);
    CHECK(mt_load_relaxed(&malloc_heap_libc.phase) == malloc_heap_ready);
    CHECK(early_block && malloc_heap_from_bootstrap(early_block));
    CHECK(lookup_block && malloc_heap_from_bootstrap(lookup_block));
    CHECK(early_block != lookup_block);
    CHECK(overflow_block == NULL); /* bootstrap used up during the look-up: no recursion */
    CHECK(owner_of(early_block) == malloc_heap_id && owner_of(lookup_block) == malloc_heap_id);
    CHECK(is_granule_aligned(early_block) && t_malloc_usable_size(early_block) == G);
    t_free(early_block);
    t_free(lookup_block);
    CHECK(owner_of(early_block) == 0);
    CHECK(!was_freed_by_libc(early_block) && !was_freed_by_libc(lookup_block));
}

static void test_blocks_from_libc(void)
{
    char *p = t_malloc(3 * G - 5);
    CHECK(p && !malloc_heap_from_bootstrap(p) && is_granule_aligned(p));
    CHECK(owner_of(p) == malloc_heap_id && payload_of(p) == 3);
    CHECK(t_malloc_usable_size(p) == 3 * G);
    CHECK(malloc_usable_size(p) >= 3 * G); /* the C library's own view of the block */
    memset(p, 3, 3 * G);
    int frees = libc_frees;
    t_free(p);
    CHECK(libc_frees == frees + 1 && was_freed_by_libc(p));
    CHECK(owner_of(p) == 0);

    char *aligned = t_aligned_alloc((size_t)1 << 20, 10);
    CHECK(aligned && ((uintptr_t)aligned & (((size_t)1 << 20) - 1)) == 0);
    t_free(aligned);
}

static void test_realloc_and_errors(void)
{
    char *p = t_malloc(G);
    CHECK(p);
    memset(p, 9, G);
    char *q = t_realloc(p, 5 * G); /* no in-place growth: moved by the socket */
    CHECK(q && t_malloc_usable_size(q) == 5 * G && q[G - 1] == 9 && q[0] == 9);
    errno = 4321;
    t_free(q);
    CHECK(errno == 4321);
    errno = 0;
    CHECK(t_malloc((size_t)1 << 46) == NULL && errno == ENOMEM);
    mt_os_stats s;
    mt_os_stats_read(&s);
    CHECK(s.mapped >= s.handed_out && s.large == 0);
}

static void *churn(void *arg)
{
    unsigned seed = (unsigned)(uintptr_t)arg;
    long bad = 0;
    for (int i = 0; i < 2000; i++) {
        size_t len = (1 + next_random(&seed) % 3) * G;
        char *p = t_malloc(len);
        if (!p || owner_of(p) != malloc_heap_id) {
            bad++;
            continue;
        }
        p[0] = p[len - 1] = (char)i;
        t_free(p);
    }
    return (void *)bad;
}

static void test_threads(void) { CHECK(on_two_threads(churn, 11)); }

int main(void)
{
    test_bootstrap();
    test_blocks_from_libc();
    test_realloc_and_errors();
    test_threads();
    return check_report("malloc_heap_test");
}

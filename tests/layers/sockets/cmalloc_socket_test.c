/* cmalloc_socket: the CPU id reaches the layers (a probe layer records it)
 * on alloc, free and realloc; negative ids mean "none" (-1); calloc, aligned,
 * realloc and usable_size behave as their malloc(3) counterparts, with errno. */
#include <mortise/mortise.h>
#include <mortise/os/mmap_heap.h>

#define MT_SYNC spinlock
#define MT_SIZE_HANDLE 0, 65536
#include <mortise/layers/segfit_lk.h>

#include "request_probe.h"

#define MT_PREFIX t_
#include <mortise/sockets/cmalloc_socket.h>

MT_COMPOSE(mmap_heap, segfit_lk, probe, cmalloc_socket)

#include "../../common/check.h"
#include <string.h>

static void test_cpu_reaches_layers(void)
{
    char *p = t_cmalloc(100, 3);
    CHECK(p && probe_seen.alloc_cpu == 3);
    t_cmalloc_free(p, 5);
    CHECK(probe_seen.free_cpu == 5);
    p = t_cmalloc(100, -7);
    CHECK(p && probe_seen.alloc_cpu == -1);  /* any negative id: no preference */
    char *q = t_cmalloc_realloc(p, 5000, 2); /* leaves its class: resize, then a move */
    CHECK(q && probe_seen.resize_cpu == 2 && probe_seen.alloc_cpu == 2 && probe_seen.free_cpu == 2);
    t_cmalloc_free(q, 0);
    CHECK(probe_seen.free_cpu == 0);
    char *z = t_cmalloc_calloc(10, 10, 1);
    CHECK(z && probe_seen.alloc_cpu == 1);
    t_cmalloc_free(z, 1);
    char *a = t_cmalloc_aligned(4096, 10, 6);
    CHECK(a && probe_seen.alloc_cpu == 6);
    t_cmalloc_free(a, 6);
}

static void test_malloc_semantics(void)
{
    char *p = t_cmalloc(10, 0);
    CHECK(p && t_cmalloc_usable_size(p) == 16);
    memset(p, 0x77, 16);
    t_cmalloc_free(p, 0);
    char *z = t_cmalloc_calloc(2, 8, 0); /* same block back, dirty: must be cleared */
    CHECK(z == p && z[0] == 0 && z[15] == 0);
    t_cmalloc_free(z, 0);

    errno = 0;
    CHECK(t_cmalloc_calloc(SIZE_MAX / 2, 3, 0) == NULL && errno == ENOMEM);
    errno = 0;
    CHECK(t_cmalloc((size_t)PTRDIFF_MAX + 1, 0) == NULL && errno == ENOMEM);
    errno = 0;
    CHECK(t_cmalloc_aligned(48, 16, 0) == NULL && errno == EINVAL);
    char *a = t_cmalloc_aligned(65536, 100, 0);
    CHECK(a && ((uintptr_t)a & 65535) == 0);
    t_cmalloc_free(a, 0);

    char *r = t_cmalloc_realloc(NULL, 40, 0);
    CHECK(r && t_cmalloc_usable_size(r) == 48);
    strcpy(r, "kept");
    r = t_cmalloc_realloc(r, 3000, 0);
    CHECK(r && strcmp(r, "kept") == 0);
    CHECK(t_cmalloc_realloc(r, 0, 0) == NULL); /* frees */

    int on_stack;
    errno = 0;
    CHECK(t_cmalloc_realloc(&on_stack, 10, 0) == NULL && errno == EINVAL);
    errno = 99;
    int frees = probe_seen.frees;
    t_cmalloc_free(&on_stack, 0); /* foreign: ignored before any layer */
    t_cmalloc_free(NULL, 0);
    CHECK(errno == 99 && probe_seen.frees == frees);
    CHECK(t_cmalloc_usable_size(&on_stack) == 0 && t_cmalloc_usable_size(NULL) == 0);
}

int main(void)
{
    test_cpu_reaches_layers();
    test_malloc_semantics();
    return check_report("cmalloc_socket_test");
}

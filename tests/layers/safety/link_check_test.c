/* link_check (layers/safety/link_check.h) in each layer that has it, alone
 * or with the trunk below (LINK_LAYER picks the composition, prefix t_):
 *   1 slab_wf   2 segfit_lf   3 slab_lk   4 thread_cache over segfit_lk
 *   5 tlsf_glk  6 segfit_lk   7 buddy_glk (16-byte smallest blocks, every size)
 * Two blocks of a run are freed and the newer one's link (its first word)
 * is forged: a wild address, then a global array. The next allocations must
 * report it once (corrupted-metadata, the layer's name, the block), never
 * hand out the forged address, and the allocator must go on working. */
#include <mortise/mortise.h>

/* err_handle=callback, link_check=1: set before each layer's header (its
 * end clears its slots) */
#if LINK_LAYER == 1
#include <mortise/os/mmap_heap.h>
#define MT_ERR_HANDLE callback
#define MT_LINK_CHECK 1
#include <mortise/layers/slab_wf.h>
#define LINK_CHAIN mmap_heap, slab_wf
#define LINK_LAYERS "slab_wf"
#elif LINK_LAYER == 2
#include <mortise/os/mmap_heap.h>
#define MT_ERR_HANDLE callback
#define MT_LINK_CHECK 1
#include <mortise/layers/segfit_lf.h>
#define LINK_CHAIN mmap_heap, segfit_lf
#define LINK_LAYERS "segfit_lf"
#elif LINK_LAYER == 3
#include <mortise/os/mmap_heap.h>
#define MT_ERR_HANDLE callback
#define MT_LINK_CHECK 1
#include <mortise/layers/slab_lk.h>
#define LINK_CHAIN mmap_heap, slab_lk
#define LINK_LAYERS "slab_lk"
#elif LINK_LAYER == 4
#include <mortise/os/mmap_heap.h>
#define MT_ERR_HANDLE callback
#define MT_LINK_CHECK 1
#include <mortise/layers/segfit_lk.h>
#define MT_ERR_HANDLE callback
#define MT_LINK_CHECK 1
#include <mortise/layers/thread_cache.h>
#define LINK_CHAIN mmap_heap, segfit_lk, thread_cache
#define LINK_LAYERS "thread_cache segfit_lk"
#elif LINK_LAYER == 5
#include <mortise/os/brk_heap.h>
#define MT_SYNC spinlock
#define MT_ERR_HANDLE callback
#define MT_LINK_CHECK 1
#include <mortise/layers/tlsf_glk.h>
#define LINK_CHAIN brk_heap, tlsf_glk
#define LINK_LAYERS "tlsf_glk"
#elif LINK_LAYER == 6
#include <mortise/os/mmap_heap.h>
#define MT_ERR_HANDLE callback
#define MT_LINK_CHECK 1
#include <mortise/layers/segfit_lk.h>
#define LINK_CHAIN mmap_heap, segfit_lk
#define LINK_LAYERS "segfit_lk"
#elif LINK_LAYER == 7
#include <mortise/os/mmap_heap.h>
#define MT_SIZE_HANDLE 0, SIZE_MAX
#define MT_BUDDY_MIN_SHIFT 4
#define MT_ERR_HANDLE callback
#define MT_LINK_CHECK 1
#include <mortise/layers/buddy_glk.h>
#define LINK_CHAIN mmap_heap, buddy_glk
#define LINK_LAYERS "buddy_glk"
#else
#error "LINK_LAYER: 1 to 7"
#endif
#define MT_PREFIX t_
#include <mortise/sockets/custom_socket.h>
#define LINK_COMPOSE(...) MT_COMPOSE(__VA_ARGS__) /* expands LINK_CHAIN first */
LINK_COMPOSE(LINK_CHAIN, custom_socket)

#include "../../common/check.h"
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int reports;
static mortise_error last;

static void on_bug(const mortise_error *e, void *arg)
{
    (void)arg;
    reports++;
    last = *e;
}

static _Alignas(64) unsigned char forged_target[4096];

/* Free blocks 3 and 5 of a run of 8, forge block 5's link, allocate: as many
 * blocks as a layer may hand out before it reuses freed ones (slab_wf takes
 * them once its bin of up to 16 carved blocks has run dry). */
static void forged_link(void *forged, const char *what)
{
    enum { N = 8, M = 64, SIZE = 48 };
    void *run[N], *got[M];
    for (int i = 0; i < N; i++)
        run[i] = t_malloc(SIZE);
    t_free(run[3]);
    t_free(run[5]);
    memcpy(run[5], &forged, sizeof forged);
    reports = 0;
    for (int i = 0; i < M; i++) {
        got[i] = t_malloc(SIZE);
        CHECK_MSG(got[i] != NULL && got[i] != forged && got[i] != (void *)forged_target, "%s: block %d", what, i);
    }
    CHECK_MSG(reports == 1, "%s: %d reports, expected one", what, reports);
    CHECK_MSG(last.kind == MORTISE_BUG_CORRUPTED_METADATA && strstr(LINK_LAYERS, last.layer) &&
               (uintptr_t)run[5] - (uintptr_t)last.ptr <= 32,
           "%s: report %s by %s at %p (block %p)", what, mt_bug_class_name(last.kind), last.layer, last.ptr,
           run[5]);
    for (int i = 0; i < M; i++)
        t_free(got[i]);
    for (int i = 0; i < N; i++)
        if (i != 3 && i != 5)
            t_free(run[i]);
}

int main(void)
{
    mt_report_set_handler(on_bug, NULL);
    forged_link((void *)(uintptr_t)0x4141414141414140ull, "wild link");
    forged_link(forged_target, "link to a global");
    /* the allocator goes on: no report for ordinary use */
    reports = 0;
    for (int i = 0; i < 10000; i++) {
        void *p = t_malloc(16 + (size_t)(i % 64) * 16), *q = t_malloc(48);
        CHECK(p && q);
        memset(p, 0x5a, 16);
        t_free(q);
        t_free(p);
    }
    CHECK_MSG(reports == 0, "%d reports in ordinary use", reports);
    return check_report("link_check");
}

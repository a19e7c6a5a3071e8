/* A trunk layer above tlsf_glk takes its spans from it: segfit_lf's spans of
 * the 20 KiB class are 192 KiB (three granules), tlsf_glk blocks aligned to a
 * granule, which segfit_lf claims in the page map and, on purge, hands back
 * with mt_span_release — which clears every granule of the span but the
 * first. tlsf_glk must then take those granules back: blocks it later places
 * there must be found (free, malloc_usable_size, realloc), and its checker
 * must hold with segfit_lf's spans out and after they came back.
 * model: mmap_heap::tlsf_glk(sync=spinlock, max_block=SIZE_MAX)
 *          ::segfit_lf(size_handle=[0, 65536])::custom_socket(prefix=t_) */
#include <mortise/mortise.h>
#include <mortise/os/mmap_heap.h>

#define MT_SYNC spinlock
#define MT_MAX_BLOCK SIZE_MAX
#include <mortise/layers/tlsf_glk.h>

#define MT_SIZE_HANDLE 0, 65536
#include <mortise/layers/segfit_lf.h>

#define MT_PREFIX t_
#include <mortise/sockets/custom_socket.h>

MT_COMPOSE(mmap_heap, tlsf_glk, segfit_lf, custom_socket)

#include "../../common/check.h"
#include "../../common/trunk_test.h"
#include <string.h>

static bool tlsf_ok(const char *when) { return invariants_hold("t_check", t_check(), when); }

int main(void)
{
    enum { SMALL = 600, BIG = 200 };
    static void *small[SMALL], *big[BIG], *pin[SMALL / 8];
    mt_tlsf_stats s;

    /* segfit_lf's spans come from tlsf_glk, between blocks of tlsf_glk's own
     * that keep every chunk in use (so purge cannot simply give it back) */
    for (int i = 0; i < SMALL; i++) {
        small[i] = t_malloc(20000);
        if (i % 8 == 0)
            pin[i / 8] = t_malloc(65536);
    }
    CHECK(owner_of(small[0]) == segfit_lf_id);
    CHECK(owner_of(segfit_lf_span_of(small[0])) == segfit_lf_id);
    CHECK(owner_of(pin[0]) == tlsf_glk_id);
    CHECK(tlsf_glk_walk(&s) == NULL && s.used_blocks >= SMALL / 8 + SMALL / 8);
    CHECK(tlsf_ok("spans taken by the layer above"));

    /* ... and go back on purge (the span's granules but the first cleared) */
    for (int i = 0; i < SMALL; i++)
        t_free(small[i]);
    size_t spans = s.used_blocks;
    t_malloc_trim(0);
    CHECK(tlsf_ok("spans given back"));
    CHECK(tlsf_glk_walk(&s) == NULL && s.used_blocks < spans);
    size_t held = s.used_blocks - SMALL / 8; /* the span segfit_lf is still carving */

    /* tlsf_glk's own blocks in that memory are its own again */
    size_t unowned = 0, unsized = 0;
    for (int i = 0; i < BIG; i++) {
        big[i] = t_malloc(65536 + (size_t)i * 1000);
        memset(big[i], i, 65536);
        unowned += owner_of(big[i]) != tlsf_glk_id;
        unsized += t_malloc_usable_size(big[i]) < 65536 + (size_t)i * 1000;
    }
    CHECK(unowned == 0 && unsized == 0);
    for (int i = 0; i < BIG; i += 2)
        big[i] = t_realloc(big[i], 70000 + (size_t)i * 1000);
    CHECK(tlsf_ok("blocks where the spans were"));
    for (int i = 0; i < BIG; i++)
        t_free(big[i]);
    for (int i = 0; i < SMALL / 8; i++)
        t_free(pin[i]);
    CHECK(tlsf_glk_walk(&s) == NULL && s.used_blocks == held);
    t_malloc_trim(0);
    CHECK(tlsf_glk_walk(&s) == NULL && s.used_blocks == held && s.free_blocks <= 2 * s.regions);
    return check_report("tlsf_spans_test");
}

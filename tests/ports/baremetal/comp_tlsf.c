/* model: sheap_glk(pool_size=2MB, sync=none)::tlsf_glk(sync=none, max_block=SIZE_MAX, pool_size=1MB)::custom_socket(prefix=bm_tlsf_)
 * Every size stays in TLSF (max_block=SIZE_MAX), so every request has the
 * O(1) bound; the steps are counted for the self-test (MT_TLSF_STEP). */
#include "steps.h"
#define MT_TLSF_STEP() (bm_tlsf_steps++)

#include <mortise/mortise.h>

#define MT_POOL_SIZE ((size_t)2 << 20)
#define MT_SYNC none
#include <mortise/os/sheap_glk.h>

#define MT_SYNC none
#define MT_MAX_BLOCK SIZE_MAX
#define MT_POOL_SIZE ((size_t)1 << 20)
#include <mortise/layers/tlsf_glk.h>

#define MT_PREFIX bm_tlsf_
#include <mortise/sockets/custom_socket.h>

MT_COMPOSE(sheap_glk, tlsf_glk, custom_socket)

/* What the self-test reads of the heap: bytes tlsf_glk holds from below
 * (unchanged while steps are counted: growing is not part of the bound). */
size_t bm_tlsf_heap_bytes(void);
size_t bm_tlsf_heap_bytes(void)
{
    mt_tlsf_stats stats;
    return tlsf_glk_walk(&stats) ? 0 : stats.heap_bytes;
}

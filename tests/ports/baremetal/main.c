/* The firmware's self-test, the same on every target: the shadow model over
 * each custom_socket composition, foreign pointers, tlsf_glk's step bound,
 * the kernel socket. The last line says PASS or FAIL, and so does the exit
 * status (the runner checks both). */
#include "selftest.h"

#ifndef BM_SHADOW_OPS
#define BM_SHADOW_OPS 12000
#endif

int main(void)
{
    bm_print("mortise bare-metal self-test:");
    bm_print_num("pointer_bits", (uint32_t)sizeof(void *) * 8);
    bm_print_line("");
    for (size_t i = 0; i < bm_allocator_count; i++) {
        bm_shadow_test(&bm_allocators[i], BM_SHADOW_OPS);
        bm_foreign_pointers(&bm_allocators[i]);
    }
    bm_tlsf_step_test(&bm_allocators[0]);
    bm_kernel_test();
    bm_print_line(bm_failures ? "mortise bare-metal self-test: FAIL" : "mortise bare-metal self-test: PASS");
    return bm_failures ? 1 : 0;
}

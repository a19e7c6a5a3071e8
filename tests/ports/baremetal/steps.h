/* The step counter tlsf_glk's composition increments (MT_TLSF_STEP) and the
 * self-test reads around each operation. */
#ifndef BAREMETAL_STEPS_H
#define BAREMETAL_STEPS_H
extern unsigned long bm_tlsf_steps;
#endif

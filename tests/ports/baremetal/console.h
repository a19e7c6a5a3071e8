/* What a target gives the self-test: a line out and an exit status. Each
 * target's startup code defines them (cortex_m4/startup.c: semihosting;
 * riscv/startup.c: the virt board's UART and test finisher). */
#ifndef BAREMETAL_CONSOLE_H
#define BAREMETAL_CONSOLE_H

void bm_write(const char *text);
__attribute__((noreturn)) void bm_exit(int status); /* 0: passed */

#endif

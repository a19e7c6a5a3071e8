/* RISC-V virt board: clear .bss, run the self-test; the console is the
 * board's 16550 UART and the exit status goes to its test device (SiFive
 * "test finisher"), which stops QEMU with that status. Any trap (an access
 * fault, an illegal instruction) reports and exits non-zero: a crash inside
 * the allocator fails the run instead of hanging it. */
#include "../console.h"
#include <stdint.h>

int main(void);
__attribute__((noreturn)) void reset_handler(void);
__attribute__((noreturn)) void trap_handler(void);

extern char __bss_start[], __bss_end[];

#define UART ((volatile uint8_t *)0x10000000)
#define UART_LSR 5
#define UART_LSR_THR_EMPTY 0x20
#define FINISHER ((volatile uint32_t *)0x100000)
enum { FINISHER_PASS = 0x5555, FINISHER_FAIL = 0x3333 };

void bm_write(const char *text)
{
    for (; *text; text++) {
        while (!(UART[UART_LSR] & UART_LSR_THR_EMPTY))
            ;
        UART[0] = (uint8_t)*text;
    }
}

void bm_exit(int status)
{
    *FINISHER = status == 0 ? FINISHER_PASS : (uint32_t)status << 16 | FINISHER_FAIL;
    for (;;)
        ;
}

void reset_handler(void)
{
    for (volatile char *p = __bss_start; p < __bss_end; p++) /* volatile: not a call to memset */
        *p = 0;
    bm_exit(main());
}

void trap_handler(void)
{
    bm_write("FAIL: trap (access fault, misaligned access or illegal instruction)\n");
    bm_exit(1);
}

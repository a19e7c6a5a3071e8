/* Cortex-M4 start-up for QEMU's mps2-an386 board: the vector table, the
 * reset handler (copy .data, clear .bss, run the self-test) and the console
 * over semihosting (QEMU with -semihosting-config enable=on,target=native).
 * Every fault lands in one handler that reports it and exits non-zero, so a
 * crash inside the allocator fails the run instead of hanging it. */
#include "../console.h"
#include <stdint.h>

int main(void);

extern uint32_t __data_load[], __data_start[], __data_end[], __bss_start[], __bss_end[], __stack_top[];

enum { SEMIHOSTING_WRITE0 = 0x04, SEMIHOSTING_EXIT = 0x18 };
enum { ADP_STOPPED_APPLICATION_EXIT = 0x20026, ADP_STOPPED_RUNTIME_ERROR = 0x20023 };

static uintptr_t semihosting(uintptr_t op, uintptr_t arg)
{
    register uintptr_t r0 __asm__("r0") = op;
    register uintptr_t r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

void bm_write(const char *text) { semihosting(SEMIHOSTING_WRITE0, (uintptr_t)text); }

/* On 32-bit ARM, SYS_EXIT takes the reason itself: QEMU exits 0 for
 * ApplicationExit and 1 for anything else. */
void bm_exit(int status)
{
    semihosting(SEMIHOSTING_EXIT, status == 0 ? ADP_STOPPED_APPLICATION_EXIT : ADP_STOPPED_RUNTIME_ERROR);
    for (;;)
        ;
}

__attribute__((noreturn)) void reset_handler(void)
{
    for (uint32_t *src = __data_load, *dst = __data_start; dst < __data_end;)
        *dst++ = *src++;
    for (uint32_t *dst = __bss_start; dst < __bss_end;)
        *dst++ = 0;
    bm_exit(main());
}

__attribute__((noreturn)) static void fault_handler(void)
{
    bm_write("FAIL: processor fault (HardFault, MemManage, BusFault or UsageFault)\n");
    bm_exit(1);
}

/* Initial stack pointer, reset, then NMI, HardFault, MemManage, BusFault,
 * UsageFault; the rest of the exceptions are never enabled here. */
__attribute__((section(".vectors"), used)) static void (*const vectors[16])(void) = {
    (void (*)(void))__stack_top,
    reset_handler,
    fault_handler,
    fault_handler,
    fault_handler,
    fault_handler,
    fault_handler,
};

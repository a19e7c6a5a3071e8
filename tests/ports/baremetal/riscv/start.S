/* RISC-V start-up for QEMU's virt board (-bios none: this image runs in
 * machine mode from 0x80000000 on hart 0): the global pointer, the stack, a
 * trap vector, then C (riscv/startup.c). Same source for rv32 and rv64. */
    .section .text.start
    .globl _start
_start:
    .option push
    .option norelax
    la gp, __global_pointer$
    .option pop
    la sp, __stack_top
    la t0, trap_entry
    .insn i 0x73, 1, x0, t0, 0x305  /* csrw mtvec, t0: spelled out, as the
                                       * rv32imac/rv64imac multilibs' assembler
                                       * wants Zicsr named for the mnemonic */
    call reset_handler
1:  j 1b

    .align 4
trap_entry:
    la sp, __stack_top
    call trap_handler
2:  j 2b

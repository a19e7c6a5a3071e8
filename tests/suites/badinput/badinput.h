/* tests/suites/badinput/badinput.h — what every program of the bad-input corpus
 * shares (docs/badinput.md).
 *
 * Each program commits one memory bug against the malloc family it gets
 * from LD_PRELOAD and tells the driver (run_case.py) what it did on stdout:
 *   block 0x<address> size <n>   the block the bug is about, before the bug
 *                                (the safety layers' report must name it);
 *   result <text>                the answer of a call that must be refused
 *                                (NULL and errno, a return code, a size);
 *   reached end                  the program survived; it then exits 0.
 * stdout is flushed at every line: a report or an abort must find the lines
 * before it already written.
 *
 * The compiler must not see the bug: it would warn (-Werror) or fold the
 * call away. Pointers pass through bi_hide(), sizes through volatile
 * variables, and the family is called through test_family, a volatile table
 * (tests/common/family_calls.h). */
#ifndef MORTISE_TESTS_BADINPUT_H
#define MORTISE_TESTS_BADINPUT_H

#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/family_calls.h"

static inline void *bi_hide(void *p)
{
    __asm__ volatile("" : "+r"(p));
    return p;
}

static volatile size_t bi_size_max = SIZE_MAX;

/* mingw-w64 checks formats against msvcrt's printf unless told otherwise */
#if defined(__MINGW_PRINTF_FORMAT)
#define BI_PRINTF_FORMAT __MINGW_PRINTF_FORMAT
#else
#define BI_PRINTF_FORMAT printf
#endif
static inline void bi_line(const char *fmt, ...) __attribute__((format(BI_PRINTF_FORMAT, 1, 2)));

#include <stdarg.h>
static inline void bi_line(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    fflush(stdout);
}

/* The block the bug is about: its address and the size asked for (long
 * long: a long has 32 bits on 64-bit Windows). */
static inline void bi_block(const void *p, size_t size)
{
    bi_line("block %#llx size %zu", (unsigned long long)(uintptr_t)p, size);
}

/* An address the bug is about, with no size. */
static inline void bi_block_at(uintptr_t a) { bi_line("block %#llx", (unsigned long long)a); }

static inline const char *bi_errno_name(int e)
{
    switch (e) {
    case 0: return "0";
    case ENOMEM: return "ENOMEM";
    case EINVAL: return "EINVAL";
    default: return "other";
    }
}

/* The answer of an allocation call that must fail: "result NULL ENOMEM".
 * BI_RESULT reads errno after the call (an argument list would not order
 * the two). */
#define BI_RESULT(call)                  \
    __extension__({                      \
        errno = 0;                       \
        void *bi_answer = (call);        \
        bi_result_ptr(bi_answer, errno); \
    })

static inline void *bi_result_ptr(void *p, int err)
{
    if (p)
        bi_line("result block");
    else
        bi_line("result NULL %s", bi_errno_name(err));
    return p;
}

static inline int bi_end(void)
{
    bi_line("reached end");
    return 0;
}

/* The bugs several programs commit, each on a block of `size` bytes from
 * malloc, named by a block line first. */

/* One byte past the request flipped, then the block freed. */
static inline void bi_overflow_1(size_t size)
{
    unsigned char *p = test_family.malloc(size);
    bi_block(p, size);
    ((unsigned char *)bi_hide(p))[size] ^= 0x5a;
    test_family.free(p);
}

/* The block freed twice in a row; returns it (dangling). */
static inline void *bi_double_free(size_t size)
{
    void *p = test_family.malloc(size);
    bi_block(p, size);
    test_family.free(p);
    test_family.free(bi_hide(p));
    return p;
}

/* free of a pointer `offset` bytes inside a live block, then of the block. */
static inline void bi_free_inside(size_t size, size_t offset)
{
    unsigned char *p = test_family.malloc(size);
    void *inside = p + offset;
    bi_block_at((uintptr_t)inside);
    test_family.free(bi_hide(inside));
    test_family.free(p);
}

/* `bytes` written just before a 64-byte block (where a header would be),
 * then the block freed. A block of the same size is allocated first and
 * kept (the underflow may have hit its last words), so the bytes before the
 * victim are heap memory (the victim may start a fresh mapping otherwise,
 * and the write itself would fault). */
static inline void bi_underflow(size_t bytes)
{
    size_t size = 64;
    void *before = test_family.malloc(size);
    unsigned char *p = test_family.malloc(size);
    bi_block(p, size);
    memset((unsigned char *)bi_hide(p) - bytes, 0x41, bytes);
    test_family.free(p);
    (void)before;
}

/* Frees 128 KiB in 2 KiB blocks, more than the quarantine of any safety
 * instance holds (64 KiB): a block freed before leaves the quarantine for
 * the layer below (a cache's list or a trunk's free list). The blocks are
 * of another size class, so they never reuse that block's memory. */
static inline void bi_push_out_of_quarantine(void)
{
    void *blocks[64];
    for (int i = 0; i < 64; i++)
        blocks[i] = test_family.malloc(2048);
    for (int i = 0; i < 64; i++)
        test_family.free(blocks[i]);
}

/* Two blocks of `size`, b right after a: close enough that `reach` bytes
 * written past a's request cover b's first word. Memory that code before
 * main freed can leave a hole that holds a but not b; such pairs are kept
 * (never freed) and the next pair tried, so that a case about the block
 * after a meets that block and not whatever the hole bordered (there may
 * be many such holes: up to 1024 pairs are tried). After that
 * the last pair is used as it is. */
static inline void bi_adjacent_pair(size_t size, size_t reach, unsigned char **a, unsigned char **b)
{
    for (int i = 0; i < 1024; i++) {
        *a = test_family.malloc(size);
        *b = test_family.malloc(size);
        uintptr_t first = (uintptr_t)*a, second = (uintptr_t)*b;
        if (first && second > first && second - first + sizeof(void *) <= size + reach)
            return;
    }
}

#endif

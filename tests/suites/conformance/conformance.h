/* tests/suites/conformance/conformance.h — the shared helpers of the conformance
 * suite (docs/conformance.md): the check counters, the proof that the process
 * really runs on a Mortise allocator, a seeded random generator, block
 * patterns, RSS and clock readers, and the case table.
 *
 * The suite is one program per allocator and link mode; its first argument
 * names the case to run (`all` runs every case). Every case first calls
 * conf_require_mortise(): a run that is not served by Mortise fails at once,
 * so no case can pass on the C library's malloc by accident.
 *
 * Usable from C11 and C++17 (cxx_new_test.cc shares it).
 */
#ifndef MORTISE_TEST_CONFORMANCE_H
#define MORTISE_TEST_CONFORMANCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- checks: thread-safe counters, a line on stderr per failure ---- */
void conf_pass(void);
void conf_fail(const char *file, int line, const char *what);
void conf_failf(const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int conf_failures(void);

#define CHECK(cond) ((cond) ? conf_pass() : conf_fail(__FILE__, __LINE__, #cond))
/* CHECKF(cond, "fmt", args): on failure print the formatted detail too. */
#define CHECKF(cond, ...) ((cond) ? conf_pass() : conf_failf(__FILE__, __LINE__, __VA_ARGS__))

/* Prints "conformance: N passed, N failed" (the last line of every run) and
 * returns the exit status. */
int conf_report(void);

/* ---- is this process served by Mortise? ---- */
/* Checks, as CHECKs: malloc_info reports Mortise; in dynamic builds every
 * malloc-family symbol (and, with `cxx`, operator new/delete) resolves into
 * the library named by $MORTISE_CONFORMANCE_LIB (default "libmortise");
 * the C library's own allocations (strdup) are Mortise blocks. Returns 1 if
 * all hold; callers stop when it returns 0. */
int conf_require_mortise(int cxx);
/* 1 if `addr` lies in the library under test ($MORTISE_CONFORMANCE_LIB,
 * default "libmortise"); prints what it found otherwise. Dynamic builds only. */
int conf_in_mortise(const char *what, const void *addr);
/* malloc_info(0, ...) written into buf (NUL-terminated); returns its result,
 * or -2 if no stream could be opened. */
int conf_malloc_info(char *buf, size_t size);
/* The object file that defines the code at `addr` ("" if unknown or static). */
const char *conf_object_of(const void *addr);
/* A malloc-family symbol by name: dlsym in dynamic builds, a weak reference in
 * static ones (for names the C library's headers do not declare). */
void *conf_symbol(const char *name);

/* ---- deterministic randomness (splitmix64), one state per thread ---- */
typedef struct {
    uint64_t s;
} conf_rng;
uint64_t conf_next(conf_rng *r);
/* uniform in [lo, hi] */
size_t conf_range(conf_rng *r, size_t lo, size_t hi);
/* a request size from tiny to `max` bytes, skewed toward small sizes */
size_t conf_size(conf_rng *r, size_t max);

/* ---- block patterns: byte i of block `id` is a function of (id, i) ---- */
void conf_fill(void *p, size_t from, size_t to, uint64_t id);
/* offset of the first byte in [from, to) that differs, or SIZE_MAX if none */
size_t conf_verify(const void *p, size_t from, size_t to, uint64_t id);
/* offset of the first nonzero byte, or SIZE_MAX */
size_t conf_first_nonzero(const void *p, size_t len);

/* ---- process state ---- */
size_t conf_rss(void); /* resident bytes (/proc/self/statm) */
double conf_now(void); /* monotonic seconds */
/* scaled duration for time-bound stress: seconds * $MORTISE_CONFORMANCE_SCALE */
double conf_seconds(double seconds);
/* Under a CPU emulator (MORTISE_CONFORMANCE_EMULATED=D, qemu-user): n / D,
 * at least 1, for the thread and fork counts of churn and fork; else n.
 * (random runs a fifth of its operations under any D.) */
int conf_count(int n);
bool conf_emulated(void);
/* The non-negative integer in environment variable `name` (all of it a
 * number), else `fallback`. */
int conf_env_count(const char *name, int fallback);
/* the page that is never a Mortise block: freshly mmap'd, munmap'd by caller */
void *conf_foreign_page(void);

/* Keep the compiler from eliding or reordering an allocation. */
#define CONF_ESCAPE(p) __asm__ __volatile__("" : : "r"(p) : "memory")
#define CONF_KIB ((size_t)1 << 10)
#define CONF_MIB ((size_t)1 << 20)

/* ---- cases ---- */
typedef void conf_case_fn(void);
void conf_case_api(void);
void conf_case_align(void);
void conf_case_errno(void);
void conf_case_bad(void);
void conf_case_random(void);
void conf_case_threads(void);
void conf_case_churn(void);
void conf_case_fork(void);
void conf_case_trim(void);
void conf_case_order(void);

#ifdef __cplusplus
}
#endif
#endif

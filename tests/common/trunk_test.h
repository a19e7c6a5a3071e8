/* tests/common/trunk_test.h — what the white-box tests of tlsf_glk
 * and segfit_lf share: a seeded xorshift generator (every run makes the same
 * choices), reporting a broken invariant, and a pointer's owner in the page
 * map. Included after the composition (the page map is the composition's). */
#ifndef MORTISE_TEST_TRUNK_TEST_H
#define MORTISE_TEST_TRUNK_TEST_H
#include "xorshift.h"
#include <stdio.h>

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static inline uint64_t rng(void) { return xorshift(&rng_state); }

/* `broken` is a checker's answer (NULL: every invariant holds). */
static inline bool invariants_hold(const char *checker, const char *broken, const char *when)
{
    if (broken)
        fprintf(stderr, "%s after %s: %s\n", checker, when, broken);
    return broken == NULL;
}

static inline uintptr_t owner_of(const void *p) { return mt_entry_owner(mt_pagemap_get(p)); }
#endif

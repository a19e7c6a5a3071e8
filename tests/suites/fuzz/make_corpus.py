#!/usr/bin/env python3
"""Writes the small seed corpus of fuzz_ops (tests/suites/fuzz/corpus/). Each seed
is a list of 5-byte operations (see fuzz_ops.c); run again after changing
the encoding."""
import os
import struct

# must match enum op_kind in tests/suites/sanitize/ops.h
(MALLOC, CALLOC, REALLOC, REALLOCARRAY, ALIGNED_ALLOC, MEMALIGN, POSIX_MEMALIGN, VALLOC, PVALLOC,
 FREE, FREE_SIZED, USABLE, TRIM) = range(13)
TINY, SMALL, MEDIUM, LARGE = 0, 1, 2, 3


def op(kind, slot, v, ss=TINY, align_log2=0):
    return struct.pack("<BBHB", kind, slot, v, ss << 6 | align_log2)


SEEDS = {
    "malloc_free": [op(MALLOC, s, 8 * s) for s in range(32)] + [op(FREE, s, 0) for s in range(0, 32, 2)]
    + [op(MALLOC, s, 300 + s, SMALL) for s in range(0, 32, 2)] + [op(FREE_SIZED, s, 0) for s in range(32)],
    "calloc_usable": [op(CALLOC, s, 100 * s + 3, SMALL) for s in range(16)]
    + [op(USABLE, s, 0) for s in range(16)] + [op(CALLOC, s, 50000, MEDIUM) for s in range(2)],
    "realloc_chain": [op(REALLOC, 1, v, ss) for ss, v in
                      [(TINY, 1), (TINY, 200), (SMALL, 4000), (MEDIUM, 60000), (LARGE, 65535),
                       (LARGE, 20000), (MEDIUM, 100), (TINY, 0), (TINY, 5)]]
    + [op(REALLOCARRAY, 2, v, SMALL) for v in (10, 1000, 3000, 30)],
    "aligned": [op(k, s, 100 + s, SMALL if s % 2 else TINY, s % 23)
                for s in range(40) for k in (ALIGNED_ALLOC, MEMALIGN, POSIX_MEMALIGN)]
    + [op(VALLOC, 50, 5000, SMALL), op(PVALLOC, 51, 1, TINY)],
    "trim_large": [op(MALLOC, s, 60000, LARGE) for s in range(3)] + [op(FREE, 1, 0), op(TRIM, 0, 0)]
    + [op(MALLOC, s, 1000, SMALL) for s in range(10, 40)] + [op(FREE, s, 0) for s in range(10, 40, 3)]
    + [op(TRIM, 0, 0)],
}

if __name__ == "__main__":
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
    os.makedirs(out, exist_ok=True)
    for name, ops in SEEDS.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(b"".join(ops))

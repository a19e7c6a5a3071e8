"""Allocation-heavy Python workload for tests/suites/programs (run under LD_PRELOAD
with PYTHONMALLOC=malloc, so every object goes through the allocator).

Builds and drops millions of dicts, lists, tuples, strings and bytes in
several phases and folds what it saw into a checksum that does not depend on
addresses, hash randomisation or the allocator. Prints "checksum N"; the
driver compares N with EXPECTED, computed once under the system allocator
(recompute it when the workload changes: python3 py_workload.py).
"""
import sys

M = (1 << 61) - 1
N_DEFAULT = 600000
EXPECTED = 1744517930387996914  # for N_DEFAULT


def mix(acc, v):
    return (acc * 1000003 + v) % M


def run(n):
    acc = 0
    # phase 1: a dict of records (dict + list + str + tuple per entry)
    table = {}
    for i in range(n):
        table["k%d" % i] = [i, str(i * 7), (i, i & 255), {"v": i % 97}]
    for i in range(0, n, 2):  # drop half, interleaved: holes everywhere
        del table["k%d" % i]
    for key, rec in table.items():  # insertion order: deterministic
        acc = mix(acc, rec[0] + len(rec[1]) + rec[2][1] + rec[3]["v"] + len(key))
    del table

    # phase 2: growing and shrinking lists of strings (realloc-heavy)
    rows = []
    for i in range(n // 4):
        s = "x" * (i % 300)
        s += str(i)
        rows.append(s)
        if i % 5 == 4:
            rows.pop(len(rows) // 2)
    acc = mix(acc, len(rows))
    acc = mix(acc, sum(len(s) for s in rows))
    joined = ",".join(rows)
    acc = mix(acc, len(joined))
    parts = joined.split(",")
    acc = mix(acc, len(parts))
    del rows, joined, parts

    # phase 3: many short-lived small containers (object churn)
    total = 0
    for i in range(n):
        t = (i, [i, i + 1], {i: i})
        total += t[1][1] + t[2][i]
    acc = mix(acc, total % M)

    # phase 4: bytes and bytearrays of many sizes (small to a few hundred KiB)
    blobs = []
    for i in range(2000):
        size = (i * 2654435761) % (1 << (6 + i % 13))
        b = bytearray(size)
        if size:
            b[0] = i & 255
            b[-1] = (i >> 3) & 255
        blobs.append(bytes(b))
        if len(blobs) > 64:
            old = blobs.pop(0)
            acc = mix(acc, len(old) + (old[0] if old else 0) + (old[-1] if old else 0))
    del blobs

    # phase 5: a tree of nested dicts, built and walked
    def build(depth, seed):
        if depth == 0:
            return [seed]
        return {"l": build(depth - 1, seed * 2), "r": build(depth - 1, seed * 2 + 1), "s": str(seed)}

    def walk(node):
        if isinstance(node, list):
            return node[0]
        return walk(node["l"]) + walk(node["r"]) + len(node["s"])

    for rep in range(4):
        acc = mix(acc, walk(build(15, rep + 1)))
    return acc


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else N_DEFAULT
    print("checksum %d" % run(n))

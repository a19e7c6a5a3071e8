#!/usr/bin/env python3
"""Unit tests of tools/scaling_bench.py's report: the ratio of medians, the
noise mark against the larger spread, CPU time shown or missing, and the
allocator and workload arguments. ctest: bench_harness.scaling."""
import os
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

import scaling_bench  # noqa: E402

ALLOCS = [("tlsf", "/a.so"), ("tlsfcc", "/b.so")]
WORKLOADS = [("server", ["bench_server"])]


def row_of(text, threads):
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if cells[0] == "server" and cells[1] == str(threads):
            return cells
    raise AssertionError("no row for %d threads in\n%s" % (threads, text))


class Report(unittest.TestCase):
    def report(self, base, other, cpu=(0.5, 0.4)):
        times = {("server", 2, "tlsf"): base, ("server", 2, "tlsfcc"): other}
        cpus = {("server", 2, "tlsf"): [cpu[0]] * len(base), ("server", 2, "tlsfcc"): [cpu[1]] * len(other)}
        return scaling_bench.report(times, cpus, WORKLOADS, ALLOCS, [2], len(base))

    def test_ratio_outside_spread_is_not_noise(self):
        cells = row_of(self.report([1.0, 1.01, 0.99], [0.5, 0.51, 0.49]), 2)
        self.assertEqual(cells[2:6], ["1.000 (2 %)", "0.500", "0.500 (4 %)", "0.400"])
        self.assertEqual(cells[-1], "2.000")

    def test_ratio_within_spread_is_noise(self):
        # tlsfcc's runs spread 40 %: a 10 % difference cannot be told from none
        cells = row_of(self.report([1.0, 1.0, 1.0], [0.9, 0.7, 1.1]), 2)
        self.assertEqual(cells[-1], "1.111 noise")

    def test_cpu_time_missing_without_runstat(self):
        times = {("server", 2, "tlsf"): [1.0, 1.0], ("server", 2, "tlsfcc"): [2.0, 2.0]}
        cpus = {("server", 2, "tlsf"): [None, None], ("server", 2, "tlsfcc"): [None, None]}
        cells = row_of(scaling_bench.report(times, cpus, WORKLOADS, ALLOCS, [2], 2), 2)
        self.assertEqual((cells[3], cells[5]), ("—", "—"))
        self.assertEqual(cells[-1], "0.500")


class Arguments(unittest.TestCase):
    def test_named_path_and_built_instance(self):
        with tempfile.TemporaryDirectory() as build:
            os.makedirs(os.path.join(build, "lib"))
            built = os.path.join(build, "lib", "libmortise-tlsf.so")
            other = os.path.join(build, "old.so")
            for p in (built, other):
                open(p, "w").close()
            self.assertEqual(scaling_bench.allocator_paths(build, "tlsf,old=" + other),
                             [("tlsf", built), ("old", other)])
            with self.assertRaises(SystemExit):
                scaling_bench.allocator_paths(build, "nosuch")

    def test_only_multithreaded_workloads(self):
        argv = dict(scaling_bench.workload_args("/b", "server", 0.1))["server"]
        self.assertEqual(argv[0], "/b/bin/bench_server")
        self.assertEqual(argv[-2:], ["-s", "0.1"])
        self.assertNotIn("-t", argv)
        with self.assertRaises(SystemExit):
            scaling_bench.workload_args("/b", "churn", None)  # st: one thread only


if __name__ == "__main__":
    unittest.main()

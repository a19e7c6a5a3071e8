#!/usr/bin/env python3
"""Unit tests of the benchmark harness's parts (tools/bench_lib): the
arithmetic, the output protocol, the progress line, manifests and selection,
one run's outcome, the targets. ctest: bench_harness.unit."""
import io
import os
import re
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

from bench_lib import report, runner, stats, suite, wcet  # noqa: E402
from bench_lib.allocators import Allocator  # noqa: E402
from bench_lib.results import Results  # noqa: E402

PLAIN_LINE = re.compile(r"^\[ *\d+/\d+\] \S+ × \S+ run \d+/\d+: \d+\.\d{3} s \d+ KB "
                        r"(ok|failed|crashed|timeout)( \(.*\))? \| ETA \d+:\d\d$")


class Math(unittest.TestCase):
    def test_median(self):
        self.assertEqual(stats.median([3, 1, 2]), 2)
        self.assertEqual(stats.median([4, 1, 3, 2]), 2.5)
        with self.assertRaises(ValueError):
            stats.median([])

    def test_geomean_known_values(self):
        self.assertAlmostEqual(stats.geomean([1, 4, 16]), 4.0)
        self.assertAlmostEqual(stats.geomean([2, 8]), 4.0)
        self.assertAlmostEqual(stats.geomean([0.5, 2.0]), 1.0)
        with self.assertRaises(ValueError):
            stats.geomean([1, 0])
        with self.assertRaises(ValueError):
            stats.geomean([])

    def test_ratio_geomean_leaves_out_missing_pairs(self):
        med = {("a", "x"): 2.0, ("a", "glibc"): 1.0, ("b", "x"): 1.0, ("b", "glibc"): 4.0,
               ("c", "glibc"): 3.0}  # c: x failed
        g, used, left = stats.ratio_geomean(med, "x", "glibc", ["a", "b", "c"])
        self.assertAlmostEqual(g, (2.0 * 0.25) ** 0.5)
        self.assertEqual(used, ["a", "b"])
        self.assertEqual(left, ["c"])
        self.assertEqual(stats.ratio_geomean(med, "y", "glibc", ["a"])[0], None)


class OkLine(unittest.TestCase):
    def test_protocol(self):
        self.assertEqual(runner.parse_ok_line("noise\nok checksum=ab n=3\n"),
                         ("ok", "checksum=ab n=3", {"checksum": "ab", "n": "3"}))
        status, detail, _ = runner.parse_ok_line("FAIL sum 3, expected 4\n")
        self.assertEqual((status, detail), ("failed", "FAIL sum 3, expected 4"))
        self.assertEqual(runner.parse_ok_line("")[0], "failed")
        self.assertEqual(runner.parse_ok_line("ok\nsomething after\n")[0], "failed")


class ProgressLine(unittest.TestCase):
    def test_plain_lines_when_not_a_tty(self):
        out = io.StringIO()
        p = runner.Progress(12, out, tty=False)
        p.starting("larson", "wfslab", 1, 3, 75)  # nothing on a log
        self.assertEqual(out.getvalue(), "")
        p.finished("larson", "wfslab", 1, 3, runner.RunResult("ok", 1.5, 2048), 75)
        p.finished("larson", "glibc", 1, 3, runner.RunResult("crashed", 0.25, 900, "killed by SIGSEGV"), 3725)
        lines = out.getvalue().splitlines()
        self.assertEqual(lines[0], "[ 1/12] larson × wfslab run 1/3: 1.500 s 2048 KB ok | ETA 1:15")
        self.assertEqual(lines[1], "[ 2/12] larson × glibc run 1/3: 0.250 s 900 KB crashed "
                                   "(killed by SIGSEGV) | ETA 1:02:05")
        self.assertTrue(PLAIN_LINE.match(lines[0]), lines[0])
        self.assertNotIn("\r", out.getvalue())

    def test_live_line_on_a_tty(self):
        out = io.StringIO()
        p = runner.Progress(2, out, tty=True)
        p.starting("strbuf", "mimalloc", 2, 2, 61)
        self.assertRegex(out.getvalue(), r"^\r\[1/2\] strbuf × mimalloc run 2/2  elapsed 0:00  ETA 1:01")
        p.finished("strbuf", "mimalloc", 2, 2, runner.RunResult("ok", 1.0, 1), 0)
        self.assertNotIn("\n", out.getvalue())  # an ok run leaves no line behind

    def test_eta_uses_the_same_benchmark_first(self):
        e = runner.Estimator(guess=9)
        self.assertEqual(e.remaining(["a", "b"]), 18)
        e.add("a", 2)
        e.add("b", 4)
        e.add("a", 4)
        self.assertEqual(e.expect("a"), 3)
        self.assertAlmostEqual(e.expect("c"), 10 / 3)

    def test_eta_family_then_prior(self):
        e = runner.Estimator(priors={"program": 2.0, "workload": 0.5})
        self.assertEqual(e.remaining([("redis", "program"), ("bignum", "workload")]), 2.5)
        e.add("python", 4.0, "program")
        self.assertEqual(e.expect("redis", "program"), 4.0)  # a finished program beats the prior
        self.assertEqual(e.expect("bignum", "workload"), 0.5)


class Manifests(unittest.TestCase):
    def write(self, text):
        f = tempfile.NamedTemporaryFile("w", suffix=".tsv", delete=False)
        f.write(text)
        f.close()
        self.addCleanup(os.unlink, f.name)
        return f.name

    def test_threads_and_variants(self):
        path = self.write("# comment\nchurn\tst\tsmall churn\t-s 1\t-s 10\n"
                          "larson\tmt\tserver\t-s 2 -t 7\t-s 20\n")
        quick = suite.manifest_benches(path, suite.WORKLOAD, lambda n: "/b/bench_" + n, 2, False, None)
        self.assertEqual([(b.name, b.argv, b.threads) for b in quick],
                         [("churn", ["/b/bench_churn", "-s", "1", "-t", "1"], 1),
                          ("larson", ["/b/bench_larson", "-s", "2", "-t", "2"], 2)])
        full = suite.manifest_benches(path, suite.WORKLOAD, lambda n: n, 2, True, 0.5)
        self.assertEqual([(b.name, b.argv) for b in full],
                         [("churn", ["churn", "-s", "0.5", "-t", "1"]), ("larson", ["larson", "-s", "0.5", "-t", "2"]),
                          ("larson@4t", ["larson", "-s", "0.5", "-t", "4"])])

    def test_bad_manifest(self):
        with self.assertRaises(ValueError):
            suite.read_manifest(self.write("a\tst\tonly three\n"))
        with self.assertRaises(ValueError):
            suite.read_manifest(self.write("a\tpar\td\t\t\n"))

    def test_select(self):
        bs = [suite.Bench("churn", suite.WORKLOAD, "st", [], 1), suite.Bench("larson", suite.WORKLOAD, "mt", [], 2),
              suite.Bench("larson@4t", suite.WORKLOAD, "mt", [], 4), suite.Bench("redis", suite.PROGRAM, "st", [], 1),
              suite.Bench("malloc_test:256@2t", suite.SWEEP, "mt", [], 2)]
        names = lambda spec: [b.name for b in suite.select(bs, spec)]  # noqa: E731
        self.assertEqual(names("larson"), ["larson", "larson@4t"])
        self.assertEqual(names("mt"), ["larson", "larson@4t"])
        self.assertEqual(names("-larson,-programs"), ["churn", "malloc_test:256@2t"])
        self.assertEqual(names("malloc_test,churn"), ["malloc_test:256@2t", "churn"])
        with self.assertRaises(ValueError):
            suite.select(bs, "nosuch")


class OneRun(unittest.TestCase):
    def run_sh(self, script, timeout=30):
        d = tempfile.mkdtemp()
        return runner.run_once(["/bin/sh", "-c", script], dict(os.environ), timeout, d)

    def test_outcomes(self):
        r = self.run_sh("echo ok n=1")
        self.assertEqual((r.status, r.metrics), ("ok", {"n": "1"}))
        self.assertGreater(r.maxrss_kb, 0)
        r = self.run_sh("echo FAIL wrong sum; exit 1")
        self.assertEqual((r.status, r.detail), ("failed", "exit 1: FAIL wrong sum"))
        r = self.run_sh("echo ok; kill -SEGV $$")
        self.assertEqual((r.status, r.detail), ("crashed", "killed by SIGSEGV"))
        r = self.run_sh("echo ok; exit 3")
        self.assertEqual(r.status, "failed")
        r = self.run_sh("echo not the protocol")
        self.assertEqual(r.status, "failed")
        r = self.run_sh("sleep 30 & sleep 30; echo ok", timeout=0.5)  # the whole group is killed
        self.assertEqual(r.status, "timeout")
        self.assertLess(r.wall_s, 10)

    def test_driver_reported_numbers_replace_wait4(self):
        r = self.run_sh("echo ok wall_s=1.25 maxrss_kb=777 requests=9")
        self.assertEqual((r.wall_s, r.maxrss_kb, r.source), (1.25, 777, "driver"))


class WcetJson(unittest.TestCase):
    def test_percentiles_in_microseconds(self):
        ops = {op: {"count": 80, "samples": 10, "max_ns": 9000,
                    "percentiles_ns": {"p90": 1000 * k, "p99.9999": 8000 * k}}
               for op, k in (("alloc", 1), ("free", 2))}
        ops["resize"] = {"count": 0, "samples": 0, "max_ns": 0, "percentiles_ns": {}}
        doc = {"mortise_stats": 1, "layers": [{"kind": "perf_stat", "ops": {}},
                                              {"kind": "wcet_stat", "ops": ops}]}
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            import json
            json.dump(doc, f)
        self.addCleanup(os.unlink, f.name)
        got = wcet.percentiles(f.name)
        self.assertEqual((got["malloc_p90"], got["malloc_p99.9999"], got["free_p99.9999"], got["free_max"]),
                         (1.0, 8.0, 16.0, 9.0))
        doc["layers"].pop()
        with open(f.name, "w") as g:
            json.dump(doc, g)
        with self.assertRaises(ValueError):
            wcet.percentiles(f.name)

    def test_lowest_tail_target(self):
        table = {"wcet_test@2t": {"wfslab": {"malloc_p99.9999": 5.0, "free_p99.9999": 9.0},
                                  "mimalloc": {"malloc_p99.9999": 7.0, "free_p99.9999": 3.0}}}
        rows = report.wcet_targets(table)
        self.assertEqual(rows[0][3], "met")
        self.assertIn("missed", rows[1][3])
        self.assertIn("3.00× the lowest", rows[1][3])


def fake_results(times):
    """Results of one ok run per (bench, kind, alloc): time."""
    res = Results()
    allocs = {}
    for (bench, kind, alloc), t in times.items():
        a = allocs.setdefault(alloc, Allocator(alloc, "peer"))
        res.add(suite.Job(suite.Bench(bench, suite.WORKLOAD, kind, [], 1), a, 1, 1),
                runner.RunResult("ok", t, int(1000 * t)))
    return res


class Targets(unittest.TestCase):
    def test_speedup_met_and_hslab_missed(self):
        res = fake_results({("x", "mt", "tlsf"): 4.0, ("x", "mt", "tlsfcc"): 2.0,
                            ("y", "mt", "tlsf"): 3.0, ("y", "mt", "tlsfcc"): 1.5,
                            ("z", "st", "tlsf"): 1.0, ("z", "st", "tlsfcc"): 1.0,
                            ("x", "mt", "hslab"): 1.0, ("x", "mt", "tcmalloc"): 1.0,
                            ("y", "mt", "hslab"): 1.0, ("y", "mt", "tcmalloc"): 1.0,
                            ("z", "st", "hslab"): 1.0, ("z", "st", "tcmalloc"): 1.0})
        an = report.Analysis(res)
        rows = {r[0].split(" (")[0]: r for r in an.targets({}, {})[1]}
        speed = rows["tlsfcc speed-up over tlsf"]
        self.assertTrue(speed[1].startswith("2.000× over 2 benchmarks"), speed)  # st workload z left out
        self.assertEqual(speed[3], "met")
        hs = rows["hslab time / tcmalloc time"]
        self.assertTrue(hs[1].startswith("1.000×"))
        self.assertIn("missed", hs[3])
        self.assertIn("17.6 %", hs[3])  # 1.0 / 0.85 - 1
        self.assertIn("not measured", rows["wfslab time / mimalloc time"][3])

    def test_failed_pair_left_out_of_the_geomean(self):
        res = fake_results({("a", "st", "glibc"): 1.0, ("a", "st", "x"): 2.0,
                            ("b", "st", "glibc"): 1.0, ("b", "st", "x"): 0.5})
        x = [a for a in res.allocators() if a.name == "x"][0]
        res.add(suite.Job(res.benches()[1], x, 2, 2), runner.RunResult("crashed", 0.1, 1, "killed by SIGSEGV"))
        an = report.Analysis(res)
        g, used, left = an.geo("x", "glibc")
        self.assertEqual((g, used, left), (2.0, ["a"], ["b"]))


if __name__ == "__main__":
    unittest.main(verbosity=1)

#!/usr/bin/env python3
"""Unit tests of the benchmark harness's parts (tools/bench_lib): the
arithmetic, the output protocol, the progress line, manifests and selection,
one run's outcome, Table 4's views (glibc, mimalloc, wfslab), the targets,
the missed targets' profiles (a fake valgrind, callgrind_annotate on the
file it writes), the malloc_test sweep's modes, samples and SVG charts.
ctest: bench_harness.unit."""
import io
import os
import re
import shutil
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

sys.dont_write_bytecode = True
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

from bench_lib import allocators, needs, profile, report, runner, stats, suite, svg, sweep, wcet  # noqa: E402
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
        # profiled at a twentieth of the quick -s whatever the mode and --scale, at most 2 threads
        self.assertEqual([profile.profile_argv(b) for b in full],
                         [["churn", "-s", "0.05", "-t", "1"], ["larson", "-s", "0.1", "-t", "2"],
                          ["larson", "-s", "0.1", "-t", "2"]])

    def test_programs_need_their_commands(self):
        path = self.write("prog\tst\td\t-s 1\t-s 2\tno-such-cmd-x:no-such-pkg-x sh\nplain\tst\td\t-s 1\t-s 2\n")
        benches = suite.manifest_benches(path, suite.PROGRAM, lambda n: n + ".sh", 2, False, None)
        self.assertEqual([b.needs for b in benches], [[("no-such-cmd-x", "no-such-pkg-x"), ("sh", "sh")], []])
        calls, notes = [], []
        real = (allocators.may_install, allocators.apt_install)
        self.addCleanup(setattr, allocators, "may_install", real[0])
        self.addCleanup(setattr, allocators, "apt_install", real[1])
        allocators.apt_install = lambda pkgs, log: calls.append(pkgs) or True
        # installing off: not run, and the note names the package
        kept = needs.runnable(benches, False, "/dev/null", lambda m: None, notes)
        self.assertEqual([b.name for b in kept], ["plain"])
        self.assertEqual(notes, ["prog not run: no-such-cmd-x not installed "
                                 "(package no-such-pkg-x; installing is off)"])
        # not root: the same, with why nothing was installed
        allocators.may_install = lambda: False
        notes.clear()
        self.assertEqual([b.name for b in needs.runnable(benches, True, "/dev/null", lambda m: None, notes)], ["plain"])
        self.assertEqual(notes, ["not root or no apt-get: cannot install no-such-pkg-x",
                                 "prog not run: no-such-cmd-x not installed (package no-such-pkg-x)"])
        # root with apt-get: the missing package is installed (apt_install runs apt-get update first)
        allocators.may_install = lambda: True
        notes.clear()
        needs.runnable(benches, True, "/dev/null", lambda m: None, notes)
        self.assertEqual(calls, [["no-such-pkg-x"]])

    def test_program_manifest_names_the_packages(self):
        rows = {r["name"]: r["needs"] for r in suite.read_manifest(os.path.join(ROOT, "bench", "programs",
                                                                                "programs.tsv"))}
        self.assertEqual(rows["redis"], [("redis-server", "redis-server"), ("redis-cli", "redis-tools"),
                                         ("redis-benchmark", "redis-tools")])
        self.assertEqual(rows["sqlite"], [("sqlite3", "sqlite3")])

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


def fake_results(times, families=None, cpu=None):
    """Results of ok runs per (bench, kind, alloc): a time (one run) or a
    list of times (one run each). families: {bench: family} for those that
    are not workloads. The ready instances' names are Mortise instances,
    glibc the system's, the rest peers. cpu: each run's CPU seconds as a
    multiple of its time (None: unknown, as without runstat)."""
    res = Results()
    allocs, benches = {}, {}
    for (bench, kind, alloc), ts in times.items():
        a = allocs.setdefault(alloc, Allocator(alloc, "mortise" if alloc in allocators.READY
                                               else "system" if alloc == "glibc" else "peer"))
        b = benches.setdefault(bench, suite.Bench(bench, (families or {}).get(bench, suite.WORKLOAD), kind,
                                                  ["/bin/bench_" + bench, "-s", "0.1", "-t", "2"], 2))
        ts = ts if isinstance(ts, list) else [ts]
        for run, t in enumerate(ts, 1):
            r = runner.RunResult("ok", t, int(1000 * t))
            r.cpu_s = None if cpu is None else cpu * t
            res.add(suite.Job(b, a, run, len(ts)), r)
    return res


class WeakCells(unittest.TestCase):
    """Each instance's time against the best peer's, per benchmark: above 1.10
    beyond the noise is a weak cell, marked in the tables and listed."""

    TIMES = {("x", "mt", "glibc"): [2.0, 2.0, 2.0], ("x", "mt", "tcmalloc"): [1.0, 1.01, 1.02],
             ("x", "mt", "mimalloc"): [1.2, 1.2, 1.2], ("x", "mt", "wfslab"): [1.5, 1.5, 1.51],
             ("x", "mt", "hslab"): [1.05, 1.05, 1.05],
             ("y", "st", "glibc"): [0.5, 0.5, 0.5], ("y", "st", "tcmalloc"): [0.6, 0.6, 0.6],
             ("y", "st", "mimalloc"): [0.7, 0.7, 0.7], ("y", "st", "wfslab"): [0.5, 0.6, 0.7],
             ("y", "st", "hslab"): [0.4, 0.4, 0.4]}

    def test_best_peer_includes_glibc_and_never_an_instance(self):
        an = report.Analysis(fake_results(self.TIMES))
        self.assertEqual(an.best_peer("x"), ("tcmalloc", 1.01))
        self.assertEqual(an.best_peer("y"), ("glibc", 0.5))  # hslab is faster, but it is no peer

    def test_weak_beyond_the_noise_and_noise_inside_it(self):
        an = report.Analysis(fake_results(self.TIMES))
        cells = an.weak_cells()
        # x × wfslab: 1.5 / 1.01 = 1.485, spreads 2 % and 1 %: weak; y × wfslab: 0.6 / 0.5 = 1.2,
        # its own spread 33 %: noise; hslab (1.04, 0.8) and the peers are never listed
        self.assertEqual([(b, a, v) for b, a, _, _, _, v in cells], [("x", "wfslab", "weak"), ("y", "wfslab", "noise")])
        self.assertAlmostEqual(cells[0][2], 1.5 / 1.01)
        self.assertEqual(cells[0][3], "tcmalloc")

    def test_tables_mark_them(self):
        res = fake_results(self.TIMES)
        an = report.Analysis(res)
        x = report.bench_section(res, an, an.geo_benches[0])
        self.assertIn("| wfslab | 1.500 | 1.500–1.510 |", x)
        self.assertIn("| **1.485 weak** |", x)
        self.assertIn("| hslab | 1.050 | 1.050–1.050 | 0.0 % | 0.525 | 1.040 |", x)
        self.assertIn("| glibc | 2.000 | 2.000–2.000 | 0.0 % | 1.000 | 1.980 |", x)  # peers: the ratio, no mark
        y = report.bench_section(res, an, an.geo_benches[1])
        self.assertIn("| 1.200 (noise) |", y)
        section = an.weak_section()
        self.assertIn("1 weak, 1 inside the noise, over 2 benchmarks × 2 instances", section)
        self.assertIn("| x | wfslab | **1.485** | tcmalloc | 2.0 % | weak |", section)
        self.assertIn("| y | wfslab | 1.200 | glibc | 33.3 % | noise |", section)

    def test_without_peers_or_instances(self):
        only = {k: v for k, v in self.TIMES.items() if k[2] in allocators.READY}
        self.assertIn("Not measured: no peer", report.Analysis(fake_results(only)).weak_section())
        peers = {k: v for k, v in self.TIMES.items() if k[2] not in allocators.READY}
        self.assertIsNone(report.Analysis(fake_results(peers)).weak_section())

    def test_report_and_summary(self):
        res = fake_results(self.TIMES, cpu=2.0)
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d, True)
        an, wcet_, fast = report.write(os.path.join(d, "report.md"), res, [], [], [], "")
        with open(os.path.join(d, "report.md")) as f:
            text = f.read()
        self.assertIn("## Weak cells: instances above 1.10× the best peer", text)
        summary = report.summary_text(res, an, wcet_, fast, "report.md")
        self.assertIn("weak cells (an instance above 1.10× the best peer, beyond the noise): 1 — x × wfslab 1.49",
                      summary)


class CpuTime(unittest.TestCase):
    """CPU time (user + system) beside the wall time: per benchmark and as geometric means."""

    def test_per_benchmark_and_geomean(self):
        times = {("x", "mt", "glibc"): [1.0, 1.0], ("x", "mt", "mimalloc"): [0.5, 0.5],
                 ("x", "mt", "wfslab"): [0.25, 0.25]}
        res = fake_results(times, cpu=2.0)
        an = report.Analysis(res)
        self.assertEqual(an.cpu[("x", "wfslab")], 0.5)
        self.assertIn("| 0.250 | 0.250–0.250 | 0.0 % | 0.250 | 0.500 | 0.500 |",
                      report.bench_section(res, an, an.geo_benches[0]))
        headers, rows = an.cpu_table()
        self.assertEqual(headers, ["allocator", "CPU time ×glibc", "CPU time ×mimalloc", "benchmarks"])
        self.assertEqual({r[0]: r[1:] for r in rows}["wfslab"], ["0.250", "0.500", "1/1"])

    def test_unknown_cpu_leaves_the_pair_out(self):
        res = fake_results({("x", "mt", "glibc"): 1.0, ("x", "mt", "wfslab"): 0.5})
        an = report.Analysis(res)
        self.assertEqual(an.cpu, {})
        self.assertEqual(an.cpu_table()[1][1][1:], ["—", "—", "0/1"])
        self.assertIn("| 0.500 | 0.500–0.500 | — (one run) | 0.500 | 0.500 | — |",
                      report.bench_section(res, an, an.geo_benches[0]))


class Noise(unittest.TestCase):
    """A difference nearer its bar than the run-to-run spread is noise, not met or missed."""

    def test_spread_arithmetic(self):
        self.assertAlmostEqual(stats.rel_spread([0.9, 1.0, 1.1]), 0.2)
        self.assertAlmostEqual(stats.rel_spread([2.0, 3.0]), 0.4)  # median 2.5
        self.assertIsNone(stats.rel_spread([1.0]))
        spreads = {("x", "a"): 0.1, ("x", "b"): 0.3, ("y", "a"): 0.05, ("y", "b"): 0.02, ("z", "a"): None}
        self.assertAlmostEqual(stats.pair_spread(spreads, "a", "b", ["x", "y", "z"]), (0.3 + 0.05) / 2)
        self.assertIsNone(stats.pair_spread(spreads, "a", "b", ["z"]))
        self.assertTrue(stats.within_noise(1.047, 1.03, 0.1))
        self.assertFalse(stats.within_noise(1.047, 1.03, 0.01))
        self.assertFalse(stats.within_noise(1.047, 1.03, None))  # one run: the verdict stands

    @staticmethod
    def rows(times):
        an = report.Analysis(fake_results(times))
        rows = {r[0].split(" (")[0]: r for r in an.targets({}, {})[1]}
        return an, rows

    def test_twin_gap_inside_the_spread_is_noise(self):
        # wfslabfl 4.7 % faster than wfslab, whose runs spread over 20 %
        an, rows = self.rows({("x", "mt", "wfslab"): [0.9, 1.0, 1.1], ("x", "mt", "wfslabfl"): [0.952, 0.953, 0.954]})
        row = rows["zero overhead: wfslabfl time / wfslab time"]
        self.assertEqual(row[3], "noise: 1.8 % from the bar, inside the 20.0 % spread")  # 0.953 / 0.97
        self.assertEqual(row[4], "20.0 %")
        self.assertEqual(an.misses, [])

    def test_twin_gap_outside_the_spread_is_missed(self):
        an, rows = self.rows({("x", "mt", "wfslab"): [0.995, 1.0, 1.005],
                              ("x", "mt", "wfslabfl"): [0.952, 0.953, 0.954]})
        row = rows["zero overhead: wfslabfl time / wfslab time"]
        self.assertEqual((row[3], row[4]), ("**missed**: -4.7 %", "1.0 %"))
        self.assertEqual([m.title for m in an.misses], ["zero overhead: wfslabfl time / wfslab time"])

    def test_twin_within_the_bar_and_the_spread_is_met(self):
        _, rows = self.rows({("x", "mt", "wfslab"): [0.999, 1.0, 1.001], ("x", "mt", "wfslabfl"): [1.0, 1.0, 1.0]})
        self.assertEqual(rows["zero overhead: wfslabfl time / wfslab time"][3], "met")

    def test_ratio_target_miss_inside_the_spread_is_noise(self):
        # hslab = tcmalloc: 17.6 % above the 0.85 bar; runs spread 30 % on one side, 5 % on the other
        an, rows = self.rows({("x", "mt", "hslab"): [0.85, 1.0, 1.15], ("x", "mt", "tcmalloc"): [0.98, 1.0, 1.03],
                              ("y", "st", "hslab"): [0.85, 1.0, 1.15], ("y", "st", "tcmalloc"): [0.98, 1.0, 1.03]})
        row = rows["hslab time / tcmalloc time"]
        self.assertEqual(row[3], "noise: 17.6 % from the bar, inside the 30.0 % spread")
        self.assertEqual(an.misses, [])

    def test_ratio_target_outside_the_spread_is_met_or_missed(self):
        an, rows = self.rows({("x", "mt", "hslab"): [0.98, 1.0, 1.02], ("x", "mt", "tcmalloc"): [0.99, 1.0, 1.01],
                              ("x", "mt", "tlsf"): [3.9, 4.0, 4.1], ("x", "mt", "tlsfcc"): [1.95, 2.0, 2.05]})
        self.assertEqual(rows["hslab time / tcmalloc time"][3:], ["**missed** by 17.6 %", "4.0 %"])
        self.assertEqual(rows["tlsfcc speed-up over tlsf"][3:], ["met", "5.0 %"])  # 2.0× is 33 % over 1.5×
        self.assertEqual([m.title for m in an.misses], ["hslab time / tcmalloc time"])

    def test_met_inside_the_spread_is_noise_too(self):
        _, rows = self.rows({("x", "mt", "tlsf"): [3.0, 4.0, 5.0], ("x", "mt", "tlsfcc"): [1.95, 2.0, 2.05]})
        self.assertEqual(rows["tlsfcc speed-up over tlsf"][3], "noise: 33.3 % from the bar, inside the 50.0 % spread")

    def test_one_run_keeps_the_verdict(self):
        _, rows = self.rows({("x", "mt", "hslab"): 1.0, ("x", "mt", "tcmalloc"): 1.0})
        self.assertEqual(rows["hslab time / tcmalloc time"][3:], ["**missed** by 17.6 %", "— (one run)"])

    def test_latency_gap_inside_the_spread_is_noise(self):
        res = fake_results({})
        bench = suite.Bench("wcet_test@2t", suite.WCET, "mt", ["/b/bench_wcet_test"], 2)
        for alloc, xs in (("wfslab", [5.0, 6.0, 7.0]), ("mimalloc", [5.9, 6.0, 6.1]), ("hslab", [9.0, 9.1, 9.2])):
            for run, x in enumerate(xs, 1):
                res.add(suite.Job(bench, Allocator(alloc, "peer"), run, 3),
                        runner.RunResult("ok", 1, 1, metrics={"malloc_p99.9999": str(x), "free_p99.9999": str(x)}))
        wcet = report.wcet_table(res)
        rows = report.wcet_targets(wcet, [], res)
        self.assertEqual(rows[0][3:], ["noise: 0.0 % from the bar, inside the 33.3 % spread", "33.3 %"])
        self.assertEqual(report.wcet_targets(wcet)[0][3:], ["met", "— (one run)"])  # no runs known: no spread

    def test_report_states_the_spread(self):
        an = report.Analysis(fake_results({("x", "mt", "glibc"): [0.9, 1.0, 1.1], ("x", "mt", "wfslab"): [1.0, 1.0]}))
        self.assertIn("median 10.0 % over 2 benchmark × allocator pairs, largest 20.0 % (x × glibc)",
                      an.spread_summary())
        headers, rows = an.table4()
        self.assertEqual((headers[-1], rows[0][-1], rows[1][-1]), ("time spread", "20.0 %", "0.0 %"))
        self.assertEqual(rows[1][1], "1.000 (noise)")  # wfslab = glibc inside glibc's 20 %
        self.assertEqual(rows[0][1], "1.000")  # glibc against itself: nothing to judge
        an = report.Analysis(fake_results({("x", "mt", "glibc"): [0.99, 1.0, 1.01], ("x", "mt", "wfslab"): [2.0, 2.0]}))
        self.assertEqual(an.table4()[1][1][1], "2.000")
        self.assertIn("| wfslab | 2.000 | 2.000–2.000 | 0.0 % | 2.000 |", report.bench_section(an.results, an,
                                                                                         an.geo_benches[0]))
        self.assertIn("unknown, one run", report.Analysis(fake_results({("x", "mt", "glibc"): 1.0})).spread_summary())


class Table4Views(unittest.TestCase):
    """Table 4 normalized to glibc, to mimalloc and, as the paper prints it, to wfslab."""

    TIMES = {("x", "mt", "glibc"): 4.0, ("x", "mt", "mimalloc"): 1.0, ("x", "mt", "wfslab"): 2.0,
             ("y", "st", "glibc"): 1.0, ("y", "st", "mimalloc"): 1.0, ("y", "st", "wfslab"): 0.5}

    def test_wfslab_view_beside_glibc_and_mimalloc(self):
        an = report.Analysis(fake_results(self.TIMES))
        headers, rows = an.table4()
        self.assertEqual(headers[1:7], ["time ×glibc", "RSS ×glibc", "time ×mimalloc", "RSS ×mimalloc",
                                        "time ×wfslab", "RSS ×wfslab"])
        by = {r[0]: dict(zip(headers, r)) for r in rows}
        self.assertEqual((by["wfslab"]["time ×wfslab"], by["wfslab"]["RSS ×wfslab"]), ("1.000", "1.000"))
        # glibc / wfslab: 4/2 and 1/0.5, geomean 2; mimalloc / wfslab: 1/2 and 1/0.5, geomean 1
        self.assertEqual((by["glibc"]["time ×wfslab"], by["mimalloc"]["time ×wfslab"]), ("2.000", "1.000"))
        self.assertEqual(by["wfslab"]["time ×glibc"], "0.500")  # the other views are unchanged
        mt_heads, mt_rows = an.kind_table("mt")
        self.assertEqual(mt_heads, ["allocator", "time ×glibc", "RSS ×glibc", "time ×wfslab", "RSS ×wfslab"])
        self.assertEqual({r[0]: r[3] for r in mt_rows}, {"glibc": "2.000", "mimalloc": "0.500", "wfslab": "1.000"})

    def test_report_and_summary_show_it(self):
        res = fake_results(self.TIMES)
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d, True)
        an, wcet_, fast = report.write(os.path.join(d, "report.md"), res, [], [], [], "")
        with open(os.path.join(d, "report.md")) as f:
            text = f.read()
        self.assertRegex(text, r"\| allocator \| time ×glibc \| RSS ×glibc \| time ×mimalloc \| RSS ×mimalloc "
                               r"\| time ×wfslab \| RSS ×wfslab \| benchmarks \| time spread \|")
        self.assertIn("| wfslab | 0.500 | 0.500 | 1.000 | 1.000 | 1.000 | 1.000 | 2/2 |", text)
        self.assertIn("time ×wfslab", report.summary_text(res, an, wcet_, fast, "report.md"))

    def test_absent_wfslab_leaves_the_view_empty(self):
        _, rows = report.Analysis(fake_results({("x", "mt", "glibc"): 1.0})).table4()
        self.assertEqual(rows[0][5:7], ["—", "—"])


def sweep_results(samples):
    """Results of malloc_test runs: samples {(bench, alloc): [[(t, lps), ...] per run]}."""
    res = Results()
    allocs, benches = {}, {}
    for (name, alloc), runs in samples.items():
        a = allocs.setdefault(alloc, Allocator(alloc, "peer"))
        if name not in benches:
            mode = suite.RANDOM if "rand-" in name else suite.FRAGMENTATION if "frag-" in name else suite.FIXED
            benches[name] = suite.Bench(name, suite.SWEEP, "mt", ["/b/bench_malloc_test"], 2, "malloc_test")
            benches[name].sweep_mode, benches[name].max_size = mode, 4096
        for run, s in enumerate(runs, 1):
            lps = stats.median([v for _, v in s]) if s else 1.0
            res.add(suite.Job(benches[name], a, run, len(runs)),
                    runner.RunResult("ok", 1.0, 1000, metrics={"samples": sweep.encode(s), "loops_per_sec": str(lps),
                                                               "rss_kb": "2048"}))
    return res


class Sweep(unittest.TestCase):
    """malloc_test in three modes; its samples over time in SVG charts."""

    def test_quick_and_full_modes(self):
        quick = suite.sweep_benches("/b/mt", 2, False, ["-c", "6"], ["-f", "300"])
        self.assertEqual([b.name for b in quick], ["malloc_test:256@2t", "malloc_test:65536@2t",
                                                   "malloc_test:rand-4096@2t", "malloc_test:frag-4096@2t"])
        fixed, _, rand, frag = quick
        self.assertEqual(fixed.argv, ["/b/mt", "-t", "2", "-m", "256", "-c", "6"])
        self.assertEqual(rand.argv, ["/b/mt", "-t", "2", "-m", "4096", "-r", "-c", "6"])
        self.assertEqual(frag.argv, ["/b/mt", "-t", "2", "-m", "4096", "-r", "-s", "1", "-f", "300"])
        self.assertEqual([(b.sweep_mode, b.max_size) for b in quick],
                         [("fixed", 256), ("fixed", 65536), ("random", 4096), ("fragmentation", 4096)])
        full = suite.sweep_benches("/b/mt", 2, True, [], [])
        count = {m: sum(b.sweep_mode == m for b in full) for m in ("fixed", "random", "fragmentation")}
        self.assertEqual(count, {"fixed": 15, "random": 15, "fragmentation": 3})  # 5 sizes × 1, 2, 4 pairs
        self.assertEqual(names_of(suite.select(quick, "malloc_test")), [b.name for b in quick])

    def test_samples_from_the_output(self):
        out = ("sample 1: 843 loops/s at 0.101 s\nsample 2: 2210 loops/s at 0.202 s\n"
               "ok loops_per_sec=2210.0 rss_kb=1920 loops=300\n")
        self.assertEqual(sweep.parse_samples(out), [(0.101, 843.0), (0.202, 2210.0)])
        self.assertEqual(sweep.encode(sweep.parse_samples(out)), "0.101:843 0.202:2210")
        self.assertEqual(sweep.decode("0.101:843 0.202:2210"), [(0.101, 843.0), (0.202, 2210.0)])
        self.assertEqual(sweep.parse_samples("ok loops_per_sec=1\n"), [])

    def test_series_is_the_median_per_sample(self):
        res = sweep_results({("malloc_test:256@2t", "glibc"): [[(0.1, 100), (0.2, 900), (0.3, 1000)],
                                                             [(0.1, 300), (0.2, 1100)]]})
        got = sweep.series(res, res.benches()[0])
        self.assertEqual(got, {"glibc": [(0.1, 200.0), (0.2, 1000.0), (0.3, 1000.0)]})
        self.assertAlmostEqual(sweep.ramp(got["glibc"]), 0.2)  # 200 / median(200, 1000, 1000)

    def test_chart_has_a_line_per_allocator_with_the_ramp(self):
        ramp_up = [(0.1, 100), (0.2, 800), (0.3, 1000), (0.4, 1000)]
        res = sweep_results({("malloc_test:rand-4096@2t", "glibc"): [ramp_up],
                             ("malloc_test:rand-4096@2t", "wfslab"): [[(0.1, 1000), (0.2, 1000)]],
                             ("malloc_test:rand-4096@2t", "tlsf"): [[]]})
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d, True)
        made = sweep.draw(d, res)
        self.assertEqual(made, ["malloc_test-samples-rand-4096-2t.svg"])
        root = ET.parse(os.path.join(d, made[0])).getroot()
        ns = "{http://www.w3.org/2000/svg}"
        groups = {g.get("data-label"): g for g in root.iter(ns + "g") if g.get("class") == "series"}
        self.assertEqual(sorted(groups), ["glibc", "tlsf", "wfslab"])
        pts = [tuple(map(float, p.split(","))) for p in groups["glibc"].find(ns + "polyline").get("points").split()]
        self.assertEqual(len(pts), 4)
        self.assertEqual([x for x, _ in pts], sorted(x for x, _ in pts))  # over time, left to right
        self.assertGreater(pts[0][1], pts[2][1])  # the first sample lower on the chart (SVG y grows down)
        self.assertEqual(len(groups["wfslab"].find(ns + "polyline").get("points").split()), 2)
        self.assertIsNone(groups["tlsf"].find(ns + "polyline"))
        self.assertIn("tlsf (no samples)", "".join(groups["tlsf"].itertext()))

    def test_section_by_mode_with_the_ramp(self):
        res = sweep_results({("malloc_test:256@2t", "glibc"): [[(0.1, 500), (0.2, 1000), (0.3, 1000)]],
                             ("malloc_test:rand-4096@2t", "glibc"): [[(0.1, 1000), (0.2, 1000)]],
                             ("malloc_test:frag-4096@2t", "glibc"): [[]]})
        text = sweep.section(res, ["glibc"], report.md_table)
        for heading in ("### Every block the maximum size", "### Random sizes up to the maximum",
                        "### Fragmentation (the article's Table 2)", "### Samples over time"):
            self.assertIn(heading, text)
        self.assertIn("| allocator | frag-4096@2t |", text)
        self.assertIn("| glibc | 0.50 | 1.00 | — |", text)  # first / median; the fragmentation run had none

    def test_nice_ticks(self):
        self.assertEqual(svg.nice_ticks(0, 0.61), [0, 0.2, 0.4, 0.6, 0.8])
        self.assertEqual(svg.nice_ticks(0, 2210), [0, 500, 1000, 1500, 2000, 2500])
        self.assertEqual(svg.nice_ticks(0, 0), [0, 0.2, 0.4, 0.6, 0.8, 1.0])  # no points: an axis still


def names_of(benches):
    return [b.name for b in benches]


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


class MissedTargets(unittest.TestCase):
    def test_worst_workload_first_and_profiled(self):
        res = fake_results({("x", "mt", "hslab"): 1.0, ("x", "mt", "tcmalloc"): 1.0,
                            ("y", "mt", "hslab"): 3.0, ("y", "mt", "tcmalloc"): 1.0,
                            ("redis", "st", "hslab"): 5.0, ("redis", "st", "tcmalloc"): 1.0,
                            ("z", "st", "hslab"): 1.5, ("z", "st", "tcmalloc"): 1.0},
                           families={"redis": suite.PROGRAM})
        an = report.Analysis(res)
        an.targets({}, {})
        [miss] = an.misses
        self.assertEqual((miss.mine, miss.ref, miss.doc), ("hslab", "tcmalloc", "hslab"))
        self.assertEqual([b for b, _ in miss.contributions], ["redis", "y", "z", "x"])
        self.assertEqual(miss.contributions[0][1], "5.000")
        self.assertEqual(miss.bench.name, "y")  # redis is a real program: the worst workload instead
        self.assertIn("real program", miss.why_not)

    def test_speedup_worst_is_the_smallest(self):
        res = fake_results({("x", "mt", "tlsf"): 1.0, ("x", "mt", "tlsfcc"): 0.5,
                            ("y", "mt", "tlsf"): 1.0, ("y", "mt", "tlsfcc"): 1.25})
        an = report.Analysis(res)
        an.targets({}, {})
        [miss] = an.misses
        self.assertEqual(miss.contributions, [("y", "0.800"), ("x", "2.000")])
        self.assertEqual((miss.bench.name, miss.mine, miss.ref), ("y", "tlsfcc", "tlsf"))

    def test_met_targets_and_rss_misses(self):
        res = fake_results({("x", "mt", "wfslab"): 1.0, ("x", "mt", "mimalloc"): 1.0,
                            ("x", "mt", "wfslabs"): 1.05})
        res.records[0][1].maxrss_kb = 5000  # wfslab's RSS 5x mimalloc's
        an = report.Analysis(res)
        an.targets({}, {})
        self.assertEqual([m.title for m in an.misses], ["wfslab max RSS / mimalloc max RSS"])
        self.assertIsNone(an.misses[0].bench)
        self.assertIn("not resident pages", an.misses[0].why_not)

    def test_zero_overhead_miss_either_way_and_fastpath(self):
        res = fake_results({("x", "mt", "wfslab"): 1.0, ("x", "mt", "wfslabm"): 0.9})
        res.add(suite.Job(suite.Bench("fastpath", suite.FASTPATH, "st", ["fastpath.sh", "--only", "NAME", "/b"], 1),
                          Allocator("hslab", "mortise"), 1, 1), runner.RunResult("ok", 1, 1))
        an = report.Analysis(res)
        rows = an.targets({}, {"hslab": 62.0, "mimalloc": 52.9, "wfslab": 52.0})[1]
        fast_rows = [r for r in rows if r[0].startswith("fast path")]
        verdicts = {r[0].split()[2]: r[3] for r in fast_rows}  # one row per ready instance
        self.assertEqual(list(verdicts), ["tlsf", "tlsfcc", "hslab", "wfslab", "wfslabfl", "wfslabm", "wfslabs",
                                          "hslabd", "tlsfccsd"])
        self.assertEqual((verdicts["hslab"], verdicts["wfslab"]), ("**missed** by 9.1 instructions", "met"))
        self.assertEqual(verdicts["tlsf"], "not measured: tlsf not in this run")
        self.assertEqual(verdicts["wfslabm"], "not measured: no wfslabm count")  # ran, but its count failed
        self.assertEqual(report.fastpath_targets({})[0][3], "not measured: no fast-path counts")
        titles = [m.title for m in an.misses]
        self.assertEqual(titles, ["zero overhead: wfslabm time / wfslab time",
                                  "fast path: hslab instructions per pair (in-call)"])
        fast = an.misses[1]
        self.assertEqual((fast.mine, fast.ref, fast.ops), ("hslab", "mimalloc", profile.FASTPATH_ITERATIONS * 64))
        self.assertEqual(profile.profile_argv(fast.bench), ["/b/bin/fastpath", str(profile.FASTPATH_ITERATIONS)])

    def test_latency_miss_profiles_wcet_against_the_lowest(self):
        res = fake_results({})
        res.add(suite.Job(suite.Bench("wcet_test@2t", suite.WCET, "mt", ["/b/bench_wcet_test", "-t", "2", "-s", "4"],
                                      2), Allocator("wfslab", "mortise"), 1, 1), runner.RunResult("ok", 1, 1))
        misses = []
        report.wcet_targets({"wcet_test@2t": {"wfslab": {"malloc_p99.9999": 9.0},
                                              "tcmalloc": {"malloc_p99.9999": 3.0}}}, misses, res)
        [miss] = misses
        self.assertEqual((miss.mine, miss.ref, miss.bench.name), ("wfslab", "tcmalloc", "wcet_test@2t"))
        self.assertEqual(profile.profile_argv(miss.bench), ["/b/bench_wcet_test", "-s", "0.02", "-t", "2"])

    def test_ir_in_the_library_counts_unmapped_code(self):
        p = profile.Profile("tcmalloc", "/l/libtc.so.4", functions=[("free", "???", 30), ("x", "libtc.so.4", 10),
                                                                   ("y", "libc.so.6", 60)], total=100)
        self.assertEqual(p.in_library(p.lib), (40, 30))
        self.assertIsNone(p.in_library(None))  # glibc: nothing preloaded

    def test_doc_pointers_name_real_headings(self):
        self.assertEqual(profile.anchor("Targets (docs/design.md §6: ≥ 1.5×)"),
                         "targets-docsdesignmd-6--15")
        for key, pointers in profile.DOC_POINTERS.items():
            for path, heading in pointers:
                with open(os.path.join(ROOT, path)) as f:
                    heads = [line.lstrip("#").strip() for line in f if line.startswith("#")]
                self.assertIn(heading, heads, "%s: %s has no heading %r" % (key, path, heading))


@unittest.skipUnless(shutil.which("callgrind_annotate"), "callgrind_annotate not installed")
class Profiling(unittest.TestCase):
    VALGRIND = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fake_valgrind.sh")

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        os.environ.pop("FAKE_VALGRIND_HANG", None)
        self.tmp.cleanup()

    @staticmethod
    def miss(title="safety: hslabd time / hslab time", mine="hslabd", ref="hslab"):
        bench = suite.Bench("server", suite.WORKLOAD, "mt", ["/bin/true", "-s", "1.5", "-t", "4"], 4)
        return profile.Miss(title, "**missed** by 50 %", mine, ref, "safety", [("server", "1.650")], bench)

    def test_pair_profiled_at_small_scale_and_reused(self):
        allocs = {"hslabd": Allocator("hslabd", "mortise", "/x/libmortise-hslabd.so"),
                  "hslab": Allocator("hslab", "mortise", "/x/libmortise-hslab.so")}
        first, second = self.miss(), self.miss("other target", "hslab", "hslabd")  # shares both runs
        profile.run_profiles([first, second], allocs, self.tmp.name, None, valgrind=self.VALGRIND)
        p = first.profiles["hslabd"]
        self.assertTrue(p.ok, p.detail)
        self.assertEqual(p.total, 1000)
        # the two file:function rows of one function are added up
        self.assertEqual(p.functions[0], ("work_in_libmortise-hslabd.so", "libmortise-hslabd.so", 800))
        self.assertEqual((p.ops, p.ops_key, p.per_op(p.total)), (50.0, "blocks", 20.0))
        folder = os.path.join(self.tmp.name, "profiles", first.slug)
        self.assertTrue(os.path.exists(os.path.join(folder, "hslab.callgrind.out")))
        with open(os.path.join(folder, "runs", "hslab", "stdout")) as f:
            self.assertIn("/bin/true_-s_0.02_-t_2", f.read())  # the profiling scale, 2 threads
        self.assertIs(second.profiles["hslab"].shared_with, first.profiles["hslab"])
        self.assertTrue(os.path.islink(os.path.join(self.tmp.name, "profiles", second.slug, "hslab.callgrind.out")))
        text = profile.section([first], self.tmp.name, "", report.md_table)
        self.assertIn("## Missed targets: where the time goes", text)
        self.assertIn("| hslabd | 1,000 | 20.0 per block | 800 (80.0 %%), 16.0 per block | "
                      "`profiles/%s/hslabd.callgrind.out` |" % first.slug, text)
        self.assertIn("hslabd executes 1.00× hslab's instructions per operation", text)
        self.assertIn("| work_in_libmortise-hslabd.so (libmortise-hslabd.so) | 800 | 80.0 % | 16.0 |", text)
        self.assertIn("docs/bench.md#safety-layers-the-cost-of-delayed_free", text)
        self.assertIn("Largest differences (hslabd − hslab, self Ir per op): ", text)
        self.assertIn("work_in_libmortise-hslabd.so +16.0", text)
        self.assertIn("work_in_libmortise-hslab.so −16.0", text)
        self.assertEqual(profile.base_function("tlsf_glk_cs_free.isra.0"), "tlsf_glk_cs_free")
        self.assertEqual(profile.base_function("slab_wf_serve.constprop.0.cold"), "slab_wf_serve")

    def test_timeout_recorded(self):
        os.environ["FAKE_VALGRIND_HANG"] = "1"
        miss = self.miss()
        profile.run_profiles([miss], {"hslabd": Allocator("hslabd", "peer"), "hslab": Allocator("hslab", "peer")},
                             self.tmp.name, None, valgrind=self.VALGRIND, timeout=0.5)
        self.assertEqual(miss.profiles["hslabd"].status, "timeout")
        self.assertIn("**timeout**: callgrind still running after 0.5 s, killed",
                      profile.section([miss], self.tmp.name, "", report.md_table))


if __name__ == "__main__":
    unittest.main(verbosity=1)

#!/usr/bin/env python3
"""`mortise tune` (tools/mortise_lib/tune.py) on a program whose best
composition is known by arithmetic, by max RSS (deterministic, unlike time).

tune_oneclass.c allocates only 2064-byte blocks; starting from the ready
instance slab (slab_lk, sizeclass=tc: 2304-byte blocks) and varying only the
size-class policy, the search must find sizeclass=interval (exact 2064).
Then: the same command again resumes from the state file and runs nothing;
a search cut short by its budget goes on with a larger one; candidates
that hang or crash are dropped;
a candidate whose output differs from glibc's (interval under --usable)
and one a --check refuses are dropped, reported, never picked (the next
best, prime, wins); through a driver (--driver, tune_driver.py) the same
answer, and a driver's FAIL drops the candidate; a program whose output differs between two glibc runs
is refused; the budget, Pareto and slot-value helpers; the rank test and the
racing rule on made-up runs.
"""
import argparse
import json
import os
import pathlib
import re
import shlex
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

ROOT = pathlib.Path(__file__).resolve().parents[2]
MORTISE = ROOT / "tools" / "mortise"
sys.path.insert(0, str(ROOT / "tools"))
from mortise_lib import tune  # noqa: E402
from mortise_lib.registry import Registry  # noqa: E402

failures = []


def check(what, ok, out=""):
    print("%s: %s" % ("ok  " if ok else "FAIL", what))
    if not ok:
        failures.append(what)
        if out:
            print("    | " + out.replace("\n", "\n    | "))


def mortise_tune(tmp, args, command):
    r = subprocess.run([sys.executable, str(MORTISE), "tune", "--objective", "rss",
                        "--instances", "slab", "--slots", "sizeclass", "--budget", "240s",
                        "--final-runs", "3", "--state", str(tmp / "state"),
                        "-o", str(tmp / "libtuned.so")] + args + ["--"] + command,
                       capture_output=True, text=True, timeout=600, cwd=tmp)
    return r.returncode, r.stdout, r.stderr


def winner(out):
    m = re.search(r"^Winner .*\n  (.*)$", out, re.M)
    return m.group(1) if m else ""


def state_files(tmp):
    return sorted((tmp / "state").glob("tune-*.json"))


def run_counts(path):
    return {s: len(c["runs"]) for s, c in json.loads(path.read_text())["candidates"].items()}


def helpers():
    check("budget units", [tune.parse_budget(t) for t in ("90s", "10m", "1.5h", "45")]
          == [90, 600, 5400, 45])
    try:
        tune.parse_budget("10 minutes")
        check("a bad budget is refused", False)
    except ValueError:
        check("a bad budget is refused", True)
    pts = [("a", 1.0, 50), ("b", 2.0, 10), ("c", 2.0, 60), ("d", 0.5, 80), ("e", 1.0, 50)]
    check("Pareto front: the undominated points by time", tune.pareto_front(pts) == ["d", "a", "e", "b"])
    reg = Registry(ROOT / "include")
    slot = reg.layers["slab_lk"].slots["sync"]
    check("sync values are the registry's policies, less the current one and none",
          tune.slot_values(reg, slot, "spinlock", False) ==
          [p for p in reg.policy_names("sync") if p not in ("spinlock", "none")])
    check("--single-thread admits sync=none", "none" in tune.slot_values(reg, slot, "spinlock", True))
    keep = reg.layers["mmap_heap"].slots["large_keep"]
    check("sizes step from the current value, and the contract's special 0",
          tune.slot_values(reg, keep, 32 << 20, False) == ["8MiB", "16MiB", "64MiB", "128MiB", "0"])


def racing():
    """The rank test and the racing rule on made-up runs."""
    from mortise_lib import ranktest
    low, high = [1, 2, 3, 4, 5], [6, 7, 8, 9, 10]
    check("rank test: 5 runs all above 5 others, p = 1/252 (exact)",
          abs(ranktest.p_larger(high, low) - 1 / 252) < 1e-12)
    check("rank test: one-sided", ranktest.p_larger(low, high) == 1.0)
    check("rank test: one neighbouring pair swapped, p = 2/252",
          abs(ranktest.p_larger([5, 7, 8, 9, 10], [1, 2, 3, 4, 6]) - 2 / 252) < 1e-12)
    xs, ys = [1.0 + i / 100 for i in range(12)], [1.05 + i / 100 for i in range(12)]
    exact = ranktest.p_larger(ys, xs)
    ranktest.EXACT_MAX_RUNS, saved = 0, ranktest.EXACT_MAX_RUNS
    approx = ranktest.p_larger(ys, xs)
    ranktest.EXACT_MAX_RUNS = saved
    check("rank test: the normal approximation near the exact p at 12 runs",
          abs(approx - exact) < 0.3 * exact, f"{approx} vs {exact}")
    check("rank test: tied samples are no evidence", ranktest.p_larger([3] * 6, [3] * 6) == 1.0)
    check("rank test: ties within each sample only (max RSS)",
          ranktest.p_larger([101] * 5, [100] * 5) < 0.01)

    def tuner(runs, max_runs=8):
        t = object.__new__(tune.Tuner)
        t.args = argparse.Namespace(objective="time", alpha=0.01, min_runs=5, max_runs=max_runs)
        t.max_rss_kib = None
        cands = {k: {"status": "live", "runs": [{"seconds": x, "rss_kib": 1} for x in v]}
                 for k, v in runs.items()}
        t.state = {"phase": "neighbours", "incumbent": "inc", "candidates": cands}
        return t, list(runs)

    # The leader's one slow run (an outlier) no longer shields the clearly
    # slower candidate, as the best-against-worst rule did; the equal one stays.
    t, specs = tuner({"inc": [1.00, 1.01, 1.02, 0.99, 1.60, 1.00, 1.01, 1.00],
                      "slow": [1.10, 1.11, 1.12, 1.09, 1.13, 1.10, 1.11, 1.12],
                      "same": [1.01, 0.99, 1.00, 1.02, 1.00, 1.30, 1.01, 1.02]}, max_runs=12)
    t.eliminate(specs)
    status = {k: c["status"] for k, c in t.state["candidates"].items()}
    check("racing: slower beyond the noise is out, despite the leader's outlier",
          status == {"inc": "live", "slow": "out", "same": "live"}, str(status))
    # At --max-runs, a neighbour that leads by a hair does not replace the
    # incumbent; one that is faster beyond the noise does.
    t, specs = tuner({"inc": [1.00, 1.01, 1.02, 0.99, 1.60, 1.00, 1.01, 1.00],
                      "hair": [0.99, 1.00, 1.01, 0.98, 1.00, 1.02, 1.00, 0.99]})
    t.eliminate(specs)
    check("racing: a lead inside the noise keeps the incumbent",
          [t.state["candidates"][k]["status"] for k in specs] == ["live", "retired"])
    t, specs = tuner({"inc": [1.00, 1.01, 1.02, 0.99, 1.60, 1.00, 1.01, 1.00],
                      "fast": [0.90, 0.91, 0.92, 0.89, 1.40, 0.90, 0.91, 0.92]})
    t.eliminate(specs)
    check("racing: a neighbour faster beyond the noise replaces the incumbent",
          [t.state["candidates"][k]["status"] for k in specs] == ["out", "live"])


def max_rss_floor():
    """Through runstat a small program's max RSS is its own, not the size
    of the Python process that started it (Linux keeps a forked process's
    high-water mark across exec)."""
    from mortise_lib import cli
    from mortise_lib.paths import Paths
    launcher = tune.runstat_launcher(Paths(), cli)
    check("runstat is built for tune", launcher is not None)
    ballast = bytearray(64 << 20)  # this process: over 64 MiB resident
    ballast[::4096] = b"x" * len(ballast[::4096])
    with tempfile.TemporaryDirectory(prefix="mortise-tune-rss-") as t:
        out = pathlib.Path(t) / "run.out"
        direct = tune.run_once(["true"], None, out, 10.0)
        launched = tune.run_once(["true"], None, out, 10.0, launcher=launcher)
    check("forked from Python, `true` reports Python's size (the floor runstat avoids)",
          direct.rss_kib > 64 << 10, str(direct.rss_kib))
    check("through runstat, `true` reports its own few MiB", launched.status == 0 and
          launched.rss_kib < 16 << 10, str(launched.rss_kib))
    del ballast


def command_line():
    r = subprocess.run([sys.executable, str(MORTISE), "tune", "--help"], capture_output=True, text=True)
    check("tune --help names the objectives, the budget and the state",
          r.returncode == 0 and all(o in r.stdout for o in ("--objective", "time+rss", "--budget",
                                                              "--state", "--check", "--max-rss")), r.stdout)
    for args, what in (([], "no command"), (["--budget", "soon", "--", "true"], "a bad budget"),
                       (["--min-runs", "1", "--", "true"], "--min-runs 1"),
                       (["--slots", "colour", "--", "true"], "an unknown slot")):
        r = subprocess.run([sys.executable, str(MORTISE), "tune"] + args, capture_output=True, text=True)
        check(f"{what} is refused (exit 2)", r.returncode == 2 and "mortise tune" in r.stderr,
              r.stdout + r.stderr)


def main():
    helpers()
    racing()
    max_rss_floor()
    command_line()
    cc = shlex.split(os.environ.get("CC", "cc"))
    with tempfile.TemporaryDirectory(prefix="mortise-tune-") as t:
        tmp = pathlib.Path(t)
        prog = tmp / "oneclass"
        subprocess.run(cc + ["-O1", "-o", str(prog), str(ROOT / "tests" / "tools" / "tune_oneclass.c")],
                       check=True)

        code, out, err = mortise_tune(tmp, [], [str(prog)])
        both = out + err
        check("tune ends with status 0", code == 0, both)
        check("the winner is slab_lk with sizeclass=interval", "sizeclass=interval" in winner(out)
              and "slab_lk" in winner(out), both)
        check("the step from the instance is named", "sizeclass=tc → interval" in out, both)
        check("the winner is built", (tmp / "libtuned.so").is_file(), both)
        check("the final round names glibc and the best ready instance",
              re.search(r"^  glibc ", out, re.M) and re.search(r"^  best ready instance ", out, re.M), both)
        peers, missing = tune.peer_libraries(ROOT / "tools")
        check("the final round names every peer, run or left out",
              all(re.search(r"^  %s " % name, out, re.M) for name, _ in peers)
              and all("  %s: not installed, left out" % m in out for m in missing)
              and len(peers) + len(missing) == 4, both)
        files = state_files(tmp)
        check("one state file", len(files) == 1, both)
        glibc_seconds = json.loads(files[0].read_text())["reference"]["seconds"] if files else 0
        check("a run under 0.3 s is warned about, a longer one not",
              ("below 0.3 s" in err) == (glibc_seconds < 0.3), both)
        svgs = list((tmp / "state").glob("tune-*-pareto.svg"))
        labels = [g.get("data-label") for g in ET.parse(svgs[0]).getroot().iter("{http://www.w3.org/2000/svg}g")] \
            if svgs else []
        check("the Pareto plot is SVG with the front and the winner",
              "Pareto front" in labels and "winner" in labels, both)
        svg_text = svgs[0].read_text() if svgs else ""
        others = re.search(r'data-label="other candidates".*?</g>', svg_text, re.S)
        check("the other candidates are points, not a line",
              others and "<circle" in others.group(0) and "<polyline" not in others.group(0), svg_text)

        before = run_counts(files[0])
        code, out, err = mortise_tune(tmp, [], [str(prog)])
        check("the same command again resumes the finished search",
              code == 0 and "resuming" in err and "sizeclass=interval" in winner(out), out + err)
        check("... and runs nothing again", run_counts(files[0]) == before, out + err)

        # A budget too small to finish (the builds are cached by now): the
        # search stops, and with a larger one goes on from where it stopped.
        cut = ["--state", str(tmp / "cut"), "--budget"]
        code, out, err = mortise_tune(tmp, cut + ["0.5s"], [str(prog)])
        check("a budget that ends the search says so",
              (code == 2 and "budget ended before any instance" in err) or
              (code == 0 and "the budget ended the search" in out), out + err)
        code, out, err = mortise_tune(tmp, cut + ["240s"], [str(prog)])
        check("... and a larger one goes on to the answer",
              code == 0 and "resuming" in err and "sizeclass=interval" in winner(out), out + err)

        code, out, err = mortise_tune(tmp, [], [str(prog), "--usable"])
        both = out + err
        check("output gate: interval's different output drops it",
              re.search(r"^  #\d+ slab_lk: sizeclass=tc → interval: output differs", out, re.M), both)
        check("output gate: the next best (prime) wins", code == 0 and "sizeclass=prime" in winner(out), both)

        refuse = tmp / "refuse_interval.sh"
        refuse.write_text('case "$MORTISE_TUNE_SPEC" in *sizeclass=interval*) echo "interval refused"; '
                          'exit 1;; esac\ncmp -s "$1" "$MORTISE_TUNE_REFERENCE"\n')
        code, out, err = mortise_tune(tmp, ["--check", f"sh {refuse}"], [str(prog)])
        both = out + err
        check("--check: the refused candidate is dropped with the check's words",
              re.search(r"sizeclass=tc → interval: --check failed \(exit 1\): interval refused", out), both)
        check("--check: prime wins", code == 0 and "sizeclass=prime" in winner(out), both)

        # --driver: the library reaches the driver's program alone, the
        # measure is the driver's last line, a FAIL line drops the candidate.
        driver = [sys.executable, str(ROOT / "tests" / "tools" / "tune_driver.py"), str(prog)]
        dstate = ["--driver", "--state", str(tmp / "driver")]
        code, out, err = mortise_tune(tmp, dstate, driver)
        both = out + err
        check("--driver: the winner is sizeclass=interval", code == 0 and "sizeclass=interval" in winner(out)
              and "the driver's measured program" in out, both)
        files = sorted((tmp / "driver").glob("tune-*.json"))
        runs = [r for c in json.loads(files[0].read_text())["candidates"].values() for r in c["runs"]] \
            if files else []
        check("--driver: a run's max RSS is the program's (the driver's python is larger)",
              runs and max(r["rss_kib"] for r in runs) < 60 * 1024, both)
        code, out, err = mortise_tune(tmp, dstate, driver + ["--usable"])
        both = out + err
        check("--driver: a candidate the driver reports FAIL for is dropped with its words",
              re.search(r"sizeclass=tc → interval: the driver reported: FAIL usable size exact", out), both)
        check("--driver: prime wins", code == 0 and "sizeclass=prime" in winner(out), both)

        # Preloaded (every candidate, never glibc): a hang, then a crash.
        for what, action, reason in (("hangs", "sleep 30", "hung: killed after --timeout 2 s"),
                                     ("crashes", "kill -SEGV $$", "crashed: signal 11 (SIGSEGV)")):
            script = f'test -n "$LD_PRELOAD" && {action}; echo done'
            code, out, err = mortise_tune(tmp, ["--timeout", "2"], ["sh", "-c", script])
            check(f"a candidate that {what} is dropped, none picked (exit 2)",
                  code == 2 and f"#1 instance slab: {reason}" in err
                  and "no ready instance ran correctly" in err, out + err)

        code, out, err = mortise_tune(tmp, [], ["sh", "-c", "echo $$"])
        check("output that differs between glibc runs is refused (exit 2)",
              code == 2 and "differs between two runs" in err, out + err)
    print("%d failed" % len(failures) if failures else "all passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

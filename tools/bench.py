#!/usr/bin/env python3
"""Mortise benchmark harness: every selected benchmark under every selected
allocator, several runs each, side by side; a CSV, a Markdown report with the
normalized geometric means (paper Table 4) and the targets of docs/design.md §6, plots.

    tools/bench.py [options] [BUILD_DIR]        (`make bench` runs it)

Allocators (--allocators, comma list):
  default       the ready instances the build has (tlsf tlsfcc hslab wfslab
                wfslabfl wfslabm wfslabs hslabd tlsfccsd), glibc, and the peers
                the targets compare with: tcmalloc mimalloc (--full: every peer
                found, jemalloc tbbmalloc and scudo too)
  NAME          a Mortise instance (BUILD_DIR/lib/libmortise-NAME.so) or a peer
  PATH.so       any malloc library to preload (named after its file)
  instances     every built instance
  peers         glibc and every peer found
Workloads (--workloads, comma list; '-NAME' removes):
  all (default), workloads, programs, st, mt, malloc_test, wcet_test,
  fastpath, or names from bench/workloads/workloads.tsv and
  bench/programs/programs.tsv (see --list). The real programs' commands
  (packages redis-server, redis-tools, sqlite3, gcc) are installed with
  apt-get like the peers; a program whose commands are missing is not run
  (a note names the package).
Noise: each ratio and target is judged against the run-to-run spread,
  (max - min) / median of the runs; a value nearer its bar than that reads
  'noise', neither met nor missed (docs/bench.md, "Noise").
Missed targets (--profiles, default in --full): after the measurements,
  the worst benchmark of each missed target (docs/design.md §6) runs under callgrind
  for the two allocators it compares; the report shows where the
  instructions go (profiles/TARGET/ALLOCATOR.callgrind.out).
Results go to bench/results/<timestamp>/ (see docs/bench.md).
"""
from __future__ import annotations

import argparse
import datetime
import os
import platform
import shlex
import shutil
import sys
import time
from typing import Optional

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from bench_lib import allocators as alloc_mod  # noqa: E402
from bench_lib import needs, plots, profile, report, runner, suite, sweep  # noqa: E402
from bench_lib.results import Results  # noqa: E402
from bench_lib.suite import Bench, Job  # noqa: E402

QUICK_RUNS, FULL_RUNS = 3, 5
QUICK_BUDGET = 600  # seconds: `make bench` on 2 cores (docs/bench.md)
QUICK_TIMEOUT, FULL_TIMEOUT = 60, 900  # a quick run takes seconds: a hang must not eat the budget
# malloc_test and wcet_test arguments besides -t (and -m for the sweep).
# malloc_test: -c samples of -i seconds, loops per second their median, so
# one run already repeats itself: quick mode runs it once and gives the
# budget to the workloads' three runs. wcet_test: -s scales the 2·10^5
# objects per thread and group (the paper: -s 50); quick -s 0.3 runs about
# 0.3 s under glibc, three times so the latency target has a spread to be
# judged against. Full mode is sized for about an hour on 2 cores
# (docs/bench.md): wcet_test at -s 4 makes 11.2 M mallocs at 2 threads,
# 1.4 M of them timed (1 in 8).
# Six samples a run (the same 0.6 s and 0.9 s as three of 0.2 s and 0.3 s),
# so the plot of the samples over time shows the start-up ramp. The
# fragmentation run: a fixed number of loops of random sizes up to 4 KB, each
# block memset, sampled at the same pace meanwhile.
SWEEP_ARGS = {False: ["-c", "6", "-i", "0.1"], True: ["-c", "6", "-i", "0.15"]}
FRAGMENTATION_ARGS = {False: ["-f", "300", "-i", "0.1"], True: ["-f", "800", "-i", "0.15"]}
SWEEP_RUNS = {False: 1, True: 2}
WCET_ARGS = {False: ["-s", "0.3"], True: ["-s", "4"]}
WCET_RUNS = {False: 3, True: 3}


def parse_args(argv: list[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="bench.py", description=__doc__.split("\n\n")[0],
                                 epilog=__doc__.split("\n\n", 2)[2],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build", nargs="?", default=os.path.join(ROOT, "build"), help="build directory (default: build)")
    ap.add_argument("-a", "--allocators", default="default", help="allocators to compare (see below)")
    ap.add_argument("-w", "--workloads", default="all", help="benchmarks to run (see below)")
    ap.add_argument("-r", "--runs", type=int, help="runs per measurement (quick %d, full %d; the malloc_test "
                    "sweep quick %d, full %d)" % (QUICK_RUNS, FULL_RUNS, SWEEP_RUNS[False], SWEEP_RUNS[True]))
    ap.add_argument("-t", "--threads", type=int, help="threads of the multithreaded benchmarks "
                    "(default: the core count; --full adds twice as many)")
    ap.add_argument("-s", "--scale", type=float, help="override each workload's and program's -s SCALE")
    ap.add_argument("--full", action="store_true", help="the thorough suite: full arguments, more runs, "
                    "oversubscribed variants, the whole malloc_test sweep")
    ap.add_argument("--no-install", action="store_true", help="never apt-get install missing peers, "
                    "the real programs (redis-server, redis-tools, sqlite3), valgrind or matplotlib "
                    "(skip them with a note)")
    ap.add_argument("--timeout", type=float, help="seconds before one run is killed and recorded as a timeout "
                    "(default: quick %d, full %d)" % (QUICK_TIMEOUT, FULL_TIMEOUT))
    ap.add_argument("--out", help="results directory (default: bench/results/<timestamp>)")
    ap.add_argument("--manifest", default=os.path.join(ROOT, "bench", "workloads", "workloads.tsv"),
                    help="workload manifest (programs BIN_DIR/bench_NAME)")
    ap.add_argument("--programs", default=os.path.join(ROOT, "bench", "programs", "programs.tsv"),
                    help="real-program manifest (drivers bench/programs/NAME.sh)")
    ap.add_argument("--bin-dir", help="where the bench_NAME programs are (default: BUILD_DIR/bin)")
    ap.add_argument("--progress", choices=["auto", "tty", "plain"], default="auto",
                    help="live progress line (tty) or one line per run (plain); auto: tty if stdout is one")
    prof = ap.add_mutually_exclusive_group()
    prof.add_argument("--profiles", dest="profiles", action="store_true", default=None,
                      help="after the measurements, profile every missed target's worst benchmark under "
                      "callgrind for the two allocators it compares (default: on in --full, off in quick mode)")
    prof.add_argument("--no-profiles", dest="profiles", action="store_false", help="no profiling phase")
    ap.add_argument("--profile-timeout", type=float, default=profile.PROFILE_TIMEOUT,
                    help="seconds before one profile run is killed and recorded as a timeout (default %(default)g)")
    ap.add_argument("--list", action="store_true", help="list the benchmarks and allocators, run nothing")
    ap.add_argument("--strict", action="store_true",
                    help="exit 1 when a run failed (default: 0 once the report is written)")
    a = ap.parse_args(argv)
    if a.runs is not None and a.runs < 1:
        ap.error("--runs must be at least 1")
    if a.threads is not None and a.threads < 1:
        ap.error("--threads must be at least 1")
    return a


def say(msg: str) -> None:
    print("bench: " + msg, flush=True)


def ensure_tool(command: str, package: str, install: bool, log: str, notes: list[str]) -> bool:
    """True when `command` is on PATH, installing `package` when allowed."""
    needs.install_missing([(command, package)], install, log, say, notes)
    if shutil.which(command):
        return True
    notes.append("%s not installed%s" % (package, "" if install else " (installing is off)"))
    return False


def ensure_matplotlib(install: bool, log: str, notes: list[str]) -> None:
    if plots.available() or not install or not alloc_mod.may_install():
        return
    if os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3"):
        return  # the distribution's package would not reach this interpreter
    say("installing python3-matplotlib (apt-get) for the plots ...")
    if not alloc_mod.apt_install(["python3-matplotlib"], log):
        notes.append("apt-get could not install python3-matplotlib")


def make_benches(a: argparse.Namespace, build: str, bin_dir: str, threads: int, notes: list[str],
                 have_valgrind: bool) -> list[Bench]:
    benches: list[Bench] = []
    if os.path.exists(a.manifest):
        benches += suite.manifest_benches(a.manifest, suite.WORKLOAD,
                                          lambda n: os.path.join(bin_dir, "bench_" + n), threads, a.full, a.scale)
    else:
        notes.append("no workload manifest %s: no workloads" % os.path.relpath(a.manifest, ROOT))
    if os.path.exists(a.programs):
        pdir = os.path.dirname(os.path.abspath(a.programs))
        benches += suite.manifest_benches(a.programs, suite.PROGRAM, lambda n: os.path.join(pdir, n + ".sh"),
                                          threads, a.full, a.scale)
    else:
        notes.append("no program manifest %s: no real programs" % os.path.relpath(a.programs, ROOT))
    mt = os.path.join(bin_dir, "bench_malloc_test")
    if os.path.exists(mt):
        benches += suite.sweep_benches(mt, threads, a.full, SWEEP_ARGS[a.full], FRAGMENTATION_ARGS[a.full])
    else:
        notes.append("%s not built: no malloc_test sweep" % os.path.relpath(mt, ROOT))
    wt = os.path.join(bin_dir, "bench_wcet_test")
    if os.path.exists(wt):
        benches += suite.wcet_benches(wt, threads, a.full, WCET_ARGS[a.full])
    else:
        notes.append("%s not built: no wcet_test" % os.path.relpath(wt, ROOT))
    fp = os.path.join(build, "bin", "fastpath")
    if not have_valgrind:
        notes.append("valgrind missing: no fast-path counts")
    elif not os.path.exists(fp):
        notes.append("%s not built: no fast-path counts" % os.path.relpath(fp, ROOT))
    else:
        benches.append(suite.Bench("fastpath", suite.FASTPATH, "st",
                                   [os.path.join(HERE, "fastpath.sh"), "--only", "NAME", build], 1,
                                   "instructions per malloc+free pair (callgrind)"))
    return benches


def check_fastpath(name: str) -> runner.Check:
    def check(stdout: str) -> runner.Verdict:
        for line in stdout.splitlines():
            cols = line.split()
            if len(cols) == 3 and cols[0] == name:
                return runner.OK, "in-call %s total %s" % (cols[1], cols[2]), {"in_call": cols[1], "total": cols[2]}
        return runner.FAILED, "no count for %s (fastpath.sh does not know this allocator)" % name, {}
    return check


def wcet_metrics(path: str) -> dict[str, float]:
    """Percentile keys (malloc_p99.9 ...) in µs from the wcet_stat JSON (docs/stats.md)."""
    from bench_lib import wcet
    return wcet.percentiles(path)


def execute(job: Job, outdir: str, launcher: str | None, timeout: float) -> runner.RunResult:
    b, al = job.bench, job.alloc
    rundir = os.path.join(outdir, "runs", b.name.replace("/", "_"), al.name, str(job.run))
    env = dict(os.environ)
    env.update(b.env)
    argv, preload = list(b.argv), al.lib
    check: Optional[runner.Check] = None
    if b.family == suite.PROGRAM:
        # the driver preloads only the measured process (not itself, not the client)
        env["MORTISE_BENCH_PRELOAD"] = al.lib or ""
        env["MORTISE_BENCH_WORK"] = os.path.join(outdir, "work")
        env["MORTISE_BENCH_RUNSTAT"] = launcher or ""
        env.setdefault("MORTISE_BENCH_PYTHON", sys.executable)  # the driver's interpreter
        preload = None
    elif b.family == suite.FASTPATH:
        argv[argv.index("NAME")] = al.name
        check = check_fastpath(al.name)
        preload = None  # fastpath.sh preloads under valgrind itself
    elif b.family == suite.WCET:
        os.makedirs(rundir, exist_ok=True)
        env["MORTISE_STATS"] = "json:" + os.path.join(rundir, "wcet.json")
    result = runner.run_once(argv, env, timeout, rundir, preload=preload, launcher=launcher, check=check)
    if b.family == suite.SWEEP and result.ok:
        result.metrics["samples"] = sweep.read_samples(os.path.join(rundir, "stdout"))
    if b.family == suite.WCET and result.ok:
        try:
            result.metrics.update(wcet_metrics(os.path.join(rundir, "wcet.json")))
        except (OSError, ValueError, KeyError) as e:
            result.status, result.detail = runner.FAILED, "wcet_stat JSON unreadable: %s" % e
    return result


def run_jobs(jobs: list[Job], outdir: str, launcher: str | None, timeout: float, results: Results,
             progress: runner.Progress, est: runner.Estimator) -> None:
    """Every job in order, each result kept (and in the CSV) as it ends."""
    for i, job in enumerate(jobs):
        eta = est.remaining((j.bench.name, j.bench.family) for j in jobs[i:])
        progress.starting(job.bench.name, job.alloc.name, job.run, job.runs, eta)
        t0 = time.monotonic()
        result = execute(job, outdir, launcher, timeout)
        spent = time.monotonic() - t0
        est.add(job.bench.name, spent, job.bench.family)
        results.add(job, result, spent)
        progress.finished(job.bench.name, job.alloc.name, job.run, job.runs, result,
                          est.remaining((j.bench.name, j.bench.family) for j in jobs[i + 1:]))


def profiling_phase(a: argparse.Namespace, an: report.Analysis, wcet: report.Wcet, results: Results, outdir: str,
                    launcher: str | None, have_valgrind: bool, interrupted: bool) -> tuple[list[profile.Miss], str]:
    """Callgrind profiles of the missed targets (bench_lib/profile.py), after
    every measurement so they cannot disturb one. Returns (misses, a note
    for the report on how the phase went)."""
    an.targets(wcet, report.fastpath_counts(results))
    misses = an.misses
    wanted = a.profiles if a.profiles is not None else a.full
    if not misses:
        return misses, ""
    if not wanted:
        return misses, "off (%s; `--profiles` or `make bench PROFILES=1` takes them)" % (
            "--no-profiles" if a.profiles is False else "quick mode")
    if interrupted:
        return misses, "not taken: the run was interrupted"
    if not have_valgrind or not shutil.which("callgrind_annotate"):
        return misses, "not taken: valgrind is not installed%s" % (" (installing is off)" if a.no_install else "")
    if not any(m.bench for m in misses):
        return misses, ""
    say("profiling the missed targets under callgrind ...")
    t0 = time.monotonic()
    allocs = {al.name: al for al in results.allocators()}
    try:
        profile.run_profiles(misses, allocs, outdir, launcher, timeout=a.profile_timeout, say=say)
    except KeyboardInterrupt:
        return misses, "interrupted while profiling: the profiles taken so far are shown"
    runs = len({id(p) for m in misses for p in m.profiles.values() if p.shared_with is None})
    return misses, "%d callgrind runs in %s, after the measurements; each bounded to %g s" % (
        runs, runner.Progress.clock(time.monotonic() - t0), a.profile_timeout)


def machine() -> str:
    model = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem = ""
    try:
        with open("/proc/meminfo") as f:
            mem = "%.0f GiB" % (int(f.readline().split()[1]) / 1048576)
    except (OSError, ValueError, IndexError):
        pass
    return "%s, %d cores, %s memory, %s %s" % (model or platform.processor(), os.cpu_count() or 0, mem,
                                               platform.system(), platform.release())


def main(argv: list[str] | None = None) -> int:
    a = parse_args(sys.argv[1:] if argv is None else argv)
    build = os.path.abspath(a.build)
    if not os.path.isdir(build):
        print("bench.py: %s is not a build directory (make BUILD=%s)" % (a.build, a.build), file=sys.stderr)
        return 2
    bin_dir = os.path.abspath(a.bin_dir or os.path.join(build, "bin"))
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    outdir = os.path.abspath(a.out or os.path.join(ROOT, "bench", "results", stamp))
    threads = a.threads or os.cpu_count() or 2
    runs = a.runs or (FULL_RUNS if a.full else QUICK_RUNS)
    if a.timeout is None:
        a.timeout = FULL_TIMEOUT if a.full else QUICK_TIMEOUT
    install = not a.no_install and not a.list  # listing never installs
    notes = []
    os.makedirs(outdir, exist_ok=True)
    apt_log = os.path.join(outdir, "apt.log")
    try:
        allocs, anotes = alloc_mod.resolve(a.allocators, build, install, apt_log, say, a.full)
    except ValueError as e:
        print("bench.py: %s" % e, file=sys.stderr)
        return 2
    notes += anotes
    have_valgrind = shutil.which("valgrind") is not None or (
        not a.list and ensure_tool("valgrind", "valgrind", install, apt_log, []))
    benches = make_benches(a, build, bin_dir, threads, notes, have_valgrind)
    try:
        benches = suite.select(benches, a.workloads)
    except ValueError as e:
        print("bench.py: %s" % e, file=sys.stderr)
        return 2
    benches = needs.runnable(benches, install, apt_log, say, notes, listing=a.list)
    for b in benches:
        if b.family == suite.WCET:
            b.runs = WCET_RUNS[a.full] if a.runs is None else runs
        elif b.family == suite.SWEEP and a.runs is None:
            b.runs = SWEEP_RUNS[a.full]
        elif b.family == suite.FASTPATH:
            b.runs = 1  # instruction counts do not vary from run to run
    if a.list:
        for b in benches:
            print("%-28s %-12s %-3s %s" % (b.name, b.family, b.kind, " ".join(shlex.quote(x) for x in b.argv)))
        for al in allocs:
            print("allocator %-16s %s" % (al.name, al.lib or "(system malloc)"))
        for n in notes:
            print("note: " + n)
        shutil.rmtree(outdir, ignore_errors=True)
        return 0
    if not allocs or not benches:
        print("bench.py: nothing to run (%s)" % ("no allocator" if not allocs else "no benchmark"), file=sys.stderr)
        for n in notes:
            print("note: " + n, file=sys.stderr)
        return 2
    ensure_matplotlib(install, apt_log, notes)
    runstat = os.path.join(build, "bin", "runstat")
    launcher: str | None = runstat
    if not os.access(runstat, os.X_OK):
        launcher = None
        notes.append("%s not built: runs are forked from the harness itself, so every max RSS has the "
                     "harness's own size as a floor" % os.path.relpath(os.path.join(build, "bin", "runstat"), ROOT))
    latest = os.path.join(os.path.dirname(outdir), "latest")
    if a.out is None:
        try:
            if os.path.islink(latest):
                os.unlink(latest)
            os.symlink(os.path.basename(outdir), latest)
        except OSError:
            pass

    jobs = suite.plan(benches, allocs, runs)
    mode = "full" if a.full else "quick"
    say("%s suite: %d benchmarks × %d allocators, %d runs each → %d runs; results in %s"
        % (mode, len(benches), len(allocs), runs, len(jobs), os.path.relpath(outdir)))
    for n in notes:
        say("note: " + n)
    results = Results(os.path.join(outdir, "results.csv"))
    tty = {"auto": None, "tty": True, "plain": False}[a.progress]
    progress = runner.Progress(len(jobs), sys.stdout, tty)
    # seconds per run before any has finished (measured on 2 cores, quick mode)
    est = runner.Estimator(priors={suite.WORKLOAD: 0.5, suite.PROGRAM: 2.0, suite.SWEEP: 0.8,
                                   suite.WCET: 0.8, suite.FASTPATH: 3.5})
    started, interrupted = time.monotonic(), False
    try:
        run_jobs(jobs, outdir, launcher, a.timeout, results, progress, est)
    except KeyboardInterrupt:
        progress.close()
        notes.append("interrupted after %d of %d runs: the report covers those" % (len(results.records), len(jobs)))
        say(notes[-1])
        interrupted = True
    progress.close()
    elapsed = time.monotonic() - started

    an = report.Analysis(results)
    wcet = report.wcet_table(results)
    misses, profile_note = profiling_phase(a, an, wcet, results, outdir, launcher, have_valgrind, interrupted)
    made, plot_note = plots.draw(outdir, results, an, wcet)
    meta = [("date", datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")),
            ("machine", machine()),
            ("command", " ".join(shlex.quote(x)
                                 for x in ["tools/bench.py"] + (sys.argv[1:] if argv is None else argv))),
            ("mode", "%s: %d runs per measurement, %d threads for the multithreaded benchmarks"
             % (mode, runs, threads)),
            ("wall time of the suite", runner.Progress.clock(elapsed))]
    if not a.full and elapsed > QUICK_BUDGET:
        notes.append("the quick suite took %s, over its %s budget: see 'Where the time went' and lower the "
                     "quick arguments of the slowest benchmarks" % (runner.Progress.clock(elapsed),
                                                                    runner.Progress.clock(QUICK_BUDGET)))
    report_path = os.path.join(outdir, "report.md")
    an, wcet, fast = report.write(report_path, results, meta, notes, made, plot_note, misses, profile_note)
    text = report.summary_text(results, an, wcet, fast, os.path.relpath(report_path))
    text += "".join("\n%s" % n for n in notes if " not run: " in n)  # a skipped program must not go unseen
    text += "\nsuite wall time: %s" % runner.Progress.clock(elapsed)
    with open(os.path.join(outdir, "summary.txt"), "w") as f:
        f.write(text.lstrip("\n") + "\n")
    print(text)
    if interrupted:
        return 130  # as a shell reports SIGINT
    return 1 if a.strict and results.failures() else 0


if __name__ == "__main__":
    sys.exit(main())

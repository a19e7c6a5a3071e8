#!/usr/bin/env python3
"""The harness end to end on the stub workload (ctest: bench_harness.run):
glibc and one Mortise instance, one run each of bench_stub and of
bench_stubcrash (which crashes after printing its ok line), plain progress.
Checks the CSV rows, the report's sections, that the crash is recorded as a
crash and listed, the progress lines, and that a run's max RSS is the
program's own (runstat), not the harness's. Then a missed target made on
purpose (STUB_SLOW): its report section, its callgrind profiles (real
valgrind when installed), none with --no-profiles, a note without valgrind. Prints 'N passed, N failed'."""
import argparse
import csv
import os
import re
import shutil
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tally import Tally  # noqa: E402
HERE = os.path.dirname(os.path.abspath(__file__))
PLAIN_LINE = re.compile(r"^\[ *\d+/4\] stub(crash)? × \S+ run 1/1: \d+\.\d{3} s \d+ KB (ok|crashed)"
                        r"( \(.*\))? \| ETA \d+:\d\d$")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--stub-dir", required=True)
    ap.add_argument("--lib", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    for suffix in ("", "-libs", "-prof", "-noprof", "-novg"):
        shutil.rmtree(a.work + suffix, ignore_errors=True)
    inst = os.path.basename(a.lib)[len("libmortise-"):-3]
    tally = Tally()
    check = tally.check

    cmd = [sys.executable, "-B", os.path.join(ROOT, "tools", "bench.py"), a.build,
           "--manifest", os.path.join(HERE, "stub.tsv"), "--bin-dir", a.stub_dir,
           "--allocators", "glibc," + a.lib, "--workloads", "stub,stubcrash", "--runs", "1", "--threads", "2",
           "--no-install", "--progress", "plain", "--out", a.work]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=240)
    log = "stdout:\n%s\nstderr:\n%s" % (r.stdout, r.stderr)
    check(r.returncode == 0, "bench.py exits 0 although a run crashed (no --strict)", log)
    lines = [l for l in r.stdout.splitlines() if l.startswith("[")]
    check(len(lines) == 4 and all(PLAIN_LINE.match(l) for l in lines),
          "four plain progress lines, one per run (stdout is not a tty)", log)
    check("\r" not in r.stdout, "no carriage returns when stdout is not a tty", log)
    check("Mortise benchmark summary" in r.stdout and "Targets" in r.stdout, "the summary is printed", log)

    with open(os.path.join(a.work, "results.csv")) as f:
        rows = list(csv.DictReader(f))
    got = sorted((row["workload"], row["allocator"], row["run"], row["status"]) for row in rows)
    want = sorted([("stub", "glibc", "1", "ok"), ("stub", inst, "1", "ok"),
                   ("stubcrash", "glibc", "1", "crashed"), ("stubcrash", inst, "1", "crashed")])
    check(got == want, "results.csv: one row per run, the crash recorded as crashed", repr(got))
    for row in rows:
        check(list(row)[:7] == ["workload", "allocator", "run", "threads", "wall_s", "maxrss_kb", "status"],
              "CSV columns start workload, allocator, run, threads, wall_s, maxrss_kb, status", repr(list(row)))
        check(float(row["wall_s"]) > 0, "wall_s > 0 (%s × %s)" % (row["workload"], row["allocator"]), repr(row))
        # the stub needs ~2 MB; forked straight from the harness it would report the harness's ~20 MB
        check(0 < int(row["maxrss_kb"]) < 10000, "maxrss_kb is the program's own (%s × %s: %s KB)"
              % (row["workload"], row["allocator"], row["maxrss_kb"]))
        if row["workload"] == "stub":
            check(row["threads"] == "2" and "sum=" in row["detail"], "stub row has threads 2 and its ok line", repr(row))
        else:
            check(row["threads"] == "1" and "SIGSEGV" in row["detail"], "stubcrash row names SIGSEGV", repr(row))

    with open(os.path.join(a.work, "report.md")) as f:
        rep = f.read()
    for section in ("## Summary: normalized geometric means (Table 4)", "## Targets (docs/design.md §6)",
                    "## Failed runs", "## Per benchmark", "### stub", "### stubcrash", "## Plots", "## Files"):
        check(section in rep, "report.md has %r" % section, rep[:2000])
    summary = re.search(r"\n\| glibc \| ([0-9.]+) \| ([0-9.]+) \|.*\| 1/2 \|", rep)
    check(summary and summary.group(1) == "1.000" and summary.group(2) == "1.000",
          "Table 4: glibc is 1.000 against itself, over 1 of 2 benchmarks (stubcrash left out)", rep[:3000])
    check(re.search(r"\| stubcrash \| glibc \| 1 \| crashed \| killed by SIGSEGV", rep) is not None,
          "the failed-runs table lists stubcrash × glibc as crashed", rep)
    check("**0/1 ok** (run 1 crashed)" in rep, "the stubcrash table marks its runs as failed", rep)
    check("not measured" in rep, "targets whose allocators are absent say 'not measured'", rep)
    check(os.path.exists(os.path.join(a.work, "summary.txt")), "summary.txt written")
    check(os.path.exists(os.path.join(a.work, "runs", "stub", "glibc", "1", "stdout")), "each run's stdout kept")
    check(("time.png" in os.listdir(a.work)) or ("matplotlib is not installed" in rep),
          "plots drawn, or the report says matplotlib is missing", rep[-1500:])

    r = subprocess.run(cmd[:-1] + [a.work + "-strict", "--strict", "--workloads", "stubcrash"],
                       capture_output=True, text=True, timeout=240)
    check(r.returncode == 1, "--strict: a failed run makes the exit status 1", r.stdout + r.stderr)
    r = subprocess.run(cmd[:2] + [os.path.join(ROOT, "tools", "bench.py"), a.build, "--allocators", "nosuch",
                                  "--no-install", "--list"], capture_output=True, text=True, timeout=60)
    check(r.returncode == 2 and "unknown allocator 'nosuch'" in r.stderr, "an unknown allocator is an error", r.stderr)
    # A missed target: the instance under two names, wfslab and wfslabs; STUB_SLOW=wfslabs makes the stub
    # report twice the time under "wfslabs", so the safety target (≤ 1.1×) misses by 81.8 %, whatever the load
    libs = a.work + "-libs"
    os.makedirs(libs, exist_ok=True)
    for name in ("wfslab", "wfslabs"):
        os.symlink(os.path.abspath(a.lib), os.path.join(libs, "libmortise-%s.so" % name))
    slug = "safety-wfslabs-time-wfslab-time"
    missed = [sys.executable, "-B", os.path.join(ROOT, "tools", "bench.py"), a.build,
              "--manifest", os.path.join(HERE, "stub.tsv"), "--bin-dir", a.stub_dir, "--workloads", "stub",
              "--allocators", "%s/libmortise-wfslab.so,%s/libmortise-wfslabs.so" % (libs, libs),
              "--runs", "1", "--threads", "2", "--no-install", "--progress", "plain", "--out"]
    slow = dict(os.environ, STUB_SLOW="wfslabs")

    def section(out):
        with open(os.path.join(out, "report.md")) as f:
            rep = f.read()
        start = rep.find("## Missed targets: where the time goes")
        return rep[start:rep.find("\n## ", start + 1)] if start >= 0 else ""

    out = a.work + "-prof"
    r = subprocess.run(missed + [out, "--profiles"], capture_output=True, text=True, timeout=240, env=slow)
    why = section(out)
    check(r.returncode == 0 and "### safety: wfslabs time / wfslab time" in why
          and "missed by 81.8 %: 2.000× against ≤ 1.1× (wfslabs vs wfslab)" in why
          and "time wfslabs / wfslab per benchmark, worst first: stub 2.000" in why,
          "a missed target gets its section: the miss, the benchmarks behind it", why or r.stdout + r.stderr)
    check("Explained in: docs/bench.md" in why and "docs/safety.md#cost" in why, "the section points to the docs", why)
    if shutil.which("valgrind") and shutil.which("callgrind_annotate"):
        files = [os.path.join(out, "profiles", slug, "%s.callgrind.out" % n) for n in ("wfslabs", "wfslab")]
        check(all(os.path.getsize(f) > 0 for f in files if os.path.exists(f)) and all(map(os.path.exists, files)),
              "real callgrind: one profile per allocator of the pair", repr(os.listdir(out)))
        check("profiled on: stub (`bench_stub -s 0.1 -t 2`)" in why,
              "profiled on the stub at a twentieth of its quick -s 2", why)
        check(re.search(r"\| wfslabs \| [\d,]+ \| [\d.,]+ per block \| [\d,]+ \([\d.]+ %\)", why) is not None
              and re.search(r"\| wfslab \| [\d,]+ \| [\d.,]+ per block \|", why) is not None,
              "both profiles: total Ir, Ir per block, Ir in the library", why)
        check(re.search(r"\| \S+ \(libmortise-[^)]+\) \| [\d,]+ \| [\d.]+ % \| [\d.,]+ \|", why) is not None,
              "top functions: the instance's own among them, with self Ir, share and per op", why)
    else:
        check("not taken: valgrind is not installed" in why, "no valgrind: the section says so", why)
    out = a.work + "-noprof"
    r = subprocess.run(missed + [out, "--no-profiles"], capture_output=True, text=True, timeout=240, env=slow)
    why = section(out)
    check("Profiles: off (--no-profiles" in why and "- profiled on: stub" in why
          and not os.path.exists(os.path.join(out, "profiles")), "--no-profiles: the section, no profile", why)
    r = subprocess.run(missed + [out], capture_output=True, text=True, timeout=240, env=slow)
    why = section(out)
    check("Profiles: off (quick mode" in why and not os.path.exists(os.path.join(out, "profiles")),
          "quick mode: no profiles unless asked", why)
    out = a.work + "-novg"
    empty = os.path.join(libs, "empty-path")
    os.makedirs(empty)
    r = subprocess.run(missed + [out, "--profiles"], capture_output=True, text=True, timeout=240,
                       env=dict(slow, PATH=empty))
    why = section(out)
    check("not taken: valgrind is not installed (installing is off)" in why
          and not os.path.exists(os.path.join(out, "profiles")), "valgrind missing: a note, no profile",
          why or r.stdout + r.stderr)
    # Ctrl-C: the run in flight (its own session) is killed, the report still written, exit 130
    intr = a.work + "-int"
    p = subprocess.Popen(cmd[:-1] + [intr, "--workloads", "stub", "--scale", "200000"], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not subprocess.run(["pgrep", "-f", "bench_stub -s 200000"],
                                                             capture_output=True).stdout:
        time.sleep(0.05)  # until the stub runs (Ctrl-C between runs is another case)
    p.send_signal(signal.SIGINT)
    out, _ = p.communicate(timeout=120)
    left = subprocess.run(["pgrep", "-f", intr], capture_output=True, text=True).stdout.split()
    check(p.returncode == 130 and "interrupted after 0 of 2 runs" in out, "Ctrl-C: exit 130, says where it stopped", out)
    check(not left, "Ctrl-C: no process of the interrupted run is left", repr(left))
    check(os.path.exists(os.path.join(intr, "report.md")), "Ctrl-C: the report is still written")
    print("bench_harness.run: %d passed, %d failed" % (tally.passed, tally.failed))
    if tally.failed == 0:
        shutil.rmtree(a.work, ignore_errors=True)
        shutil.rmtree(a.work + "-strict", ignore_errors=True)
        shutil.rmtree(intr, ignore_errors=True)
        for suffix in ("-libs", "-prof", "-noprof", "-novg"):
            shutil.rmtree(a.work + suffix, ignore_errors=True)
    return 0 if tally.ok() else 1


if __name__ == "__main__":
    sys.exit(main())

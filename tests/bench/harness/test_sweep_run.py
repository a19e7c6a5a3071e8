#!/usr/bin/env python3
"""The malloc_test sweep end to end (ctest: bench_harness.sweep): tools/bench.py
runs the quick sweep (fixed sizes 256 and 65536, random sizes up to 4096,
the fragmentation run) with one thread pair under glibc and one Mortise
instance, once each. Checks that every run's samples reach results.csv
(six per sampled run, as many as its output printed for the fragmentation
run), the report's sweep section by mode with the start-up ramp table, and
one SVG chart per benchmark with a line per allocator holding its samples.
A few seconds: 8 runs of about 0.6 s. Prints 'N passed, N failed'."""
import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tally import Tally  # noqa: E402
sys.path.insert(0, os.path.join(ROOT, "tools"))
from bench_lib import sweep  # noqa: E402

BENCHES = ["malloc_test:256@1t", "malloc_test:65536@1t", "malloc_test:rand-4096@1t", "malloc_test:frag-4096@1t"]
SVG = "{http://www.w3.org/2000/svg}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--bin-dir", required=True, help="where bench_malloc_test is")
    ap.add_argument("--lib", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    shutil.rmtree(a.work, ignore_errors=True)
    inst = os.path.basename(a.lib)[len("libmortise-"):-3]
    tally = Tally()
    check = tally.check

    cmd = [sys.executable, "-B", os.path.join(ROOT, "tools", "bench.py"), a.build, "--bin-dir", a.bin_dir,
           "--allocators", "glibc," + a.lib, "--workloads", "malloc_test", "--runs", "1", "--threads", "1",
           "--no-install", "--progress", "plain", "--out", a.work]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=240)
    log = "stdout:\n%s\nstderr:\n%s" % (r.stdout, r.stderr)
    check(r.returncode == 0, "bench.py exits 0", log)
    if r.returncode != 0:
        print("bench_harness.sweep: %d passed, %d failed" % (tally.passed, tally.failed))
        return 1

    with open(os.path.join(a.work, "results.csv")) as f:
        rows = list(csv.DictReader(f))
    got = sorted((row["workload"], row["allocator"], row["status"]) for row in rows)
    check(got == sorted((b, al, "ok") for b in BENCHES for al in ("glibc", inst)),
          "results.csv: the four sweep benchmarks, each ok under both allocators", got)
    for row in rows:
        metrics = json.loads(row["metrics"] or "{}")
        samples = sweep.decode(metrics.get("samples"))
        with open(os.path.join(a.work, "runs", row["workload"], row["allocator"], "1", "stdout")) as f:
            printed = sweep.parse_samples(f.read())
        where = "%s × %s" % (row["workload"], row["allocator"])
        check([round(t, 3) for t, _ in samples] == [round(t, 3) for t, _ in printed],
              "%s: the samples in results.csv are the ones the run printed" % where, (samples, printed))
        if "frag-" in row["workload"]:
            check(metrics.get("loops") == "300" and metrics.get("max_size") == "4096",
                  "%s: a fixed run of 300 loops (-f 300) of sizes up to 4096" % where, metrics)
            check(int(metrics.get("rss_kb", "-1")) > 0, "%s: the RSS after the frees is reported" % where, metrics)
        else:
            check(len(samples) == 6, "%s: six samples (-c 6)" % where, metrics)
            check(all(t2 > t1 for (t1, _), (t2, _) in zip(samples, samples[1:])),
                  "%s: the samples' times increase" % where, samples)

    with open(os.path.join(a.work, "report.md")) as f:
        rep = f.read()
    for heading in ("## malloc_test sweep", "### Every block the maximum size",
                    "### Random sizes up to the maximum (`-r`", "### Fragmentation (the article's Table 2)",
                    "### Samples over time"):
        check(heading in rep, "report.md has %r" % heading, rep[-4000:])
    check("| allocator | 256@1t | 65536@1t | rand-4096@1t | frag-4096@1t |" in rep,
          "the ramp table has every sweep benchmark", rep[-3000:])
    check("time ×wfslab" in rep, "Table 4's wfslab view is in the report")

    for b in BENCHES:
        name = "malloc_test-samples-%s.svg" % b.split(":", 1)[1].replace("@", "-")
        path = os.path.join(a.work, name)
        check(os.path.exists(path) and "![%s](%s)" % (name[:-4], name) in rep,
              "%s drawn and shown in the report's Plots" % name, sorted(os.listdir(a.work)))
        if not os.path.exists(path):
            continue
        groups = {g.get("data-label"): g for g in ET.parse(path).getroot().iter(SVG + "g")
                  if g.get("class") == "series"}
        check(sorted(groups) == sorted(["glibc", inst]), "%s: a line per allocator" % name, sorted(groups))
        if "frag-" not in b:
            for al, g in groups.items():
                line = g.find(SVG + "polyline")
                check(line is not None and len(line.get("points").split()) == 6,
                      "%s: %s's line has its six samples" % (name, al))
    print("bench_harness.sweep: %d passed, %d failed" % (tally.passed, tally.failed))
    if tally.failed == 0:
        shutil.rmtree(a.work, ignore_errors=True)
    return 0 if tally.ok() else 1


if __name__ == "__main__":
    sys.exit(main())

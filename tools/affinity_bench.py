#!/usr/bin/env python3
"""Side-by-side measurements of dynamic pool allocation (docs/affinity.md).

    tools/affinity_bench.py BUILD_DIR [--runs 5] [--scale 1] [--out DIR]
                            [--allocators hslab,affinity,glibc,mimalloc]
                            [--workloads ...] [--no-cachegrind]
                            [--cachegrind-allocators hslab,affinity]
                            [--ll 2097152,16,64] [--sweep 256,512,...] [--sweep-scale 0.02]
                            [--llc BYTES] [--no-install]

Runs every workload under every allocator in one run: the affinity instance,
hslab (the same chain without the affinity_pool layer), the C library's
malloc and mimalloc, the allocators taking turns run by run. Per pair: the
median wall time of --runs runs, max RSS,
and one run under cachegrind for the simulated D1 and LL data misses (there
are no hardware counters here; by default for hslab and affinity only). Workloads: bench_locality at 0, 1 and 2
wrapper levels, both at its own size (a structure's nodes take 1.6 MB, for the
simulated LL) and sized to this machine's last-level cache (locality-llc-w*:
a structure's nodes take 0.6 of it, so a walk's time sees the layout;
--llc), bench_olden's treeadd, health and mst, Xalan-C++
(Debian's xalan package) transforming a generated XML document, and the
real programs of bench/programs (python, gcc, sqlite: their drivers at their
full arguments, preloading into the measured program only; not under
cachegrind), with geometric means over the real programs. Every run
must print the same `ok` line (or, for Xalan, the same output) under every
allocator. bench_locality also prints its walks' own time (`walk_s=`), the
part the layout changes; the report gives its median beside the run's.
Then, for the locality workloads under hslab and affinity, a sweep of
cachegrind's simulated LL size (--sweep, in KiB; 256 KiB to 8 MiB) at a
smaller scale: the misses against the cache size, where the pooled
footprint fits and where only the interleaved one does not. Writes
report.md and results.csv into --out and prints the report. Runs go
through bench_lib's runner (tools/bench_lib/runner.py), like
tools/bench.py's: the max RSS is the median of the timed runs' own,
measured by bench/runstat when it is built (else by wait4 from the
harness's fork).
"""
from __future__ import annotations

import argparse
import csv
import hashlib
import os
import math
import re
import shutil
import sys
from typing import Any

sys.dont_write_bytecode = True  # no __pycache__ in the source tree; bench_lib sits beside the script (sys.path[0])
from bench_lib import allocators as alloc_mod  # noqa: E402
from bench_lib import runner  # noqa: E402
from bench_lib.stats import median  # noqa: E402

TIMEOUT = 1200  # seconds per run, cachegrind's included


def allocators(build: str) -> dict[str, str | None]:
    """name → the library to preload (None: the C library's malloc); a peer
    that is not installed is left out (bench_lib's peer table finds it)."""
    libs: dict[str, str | None] = {
        "affinity": alloc_mod.mortise_lib(build, "affinity"),
        "hslab": alloc_mod.mortise_lib(build, "hslab"),
        alloc_mod.SYSTEM: None,
    }
    for name, package, soname in alloc_mod.PEERS:
        if name == "mimalloc" and (path := alloc_mod.locate(package, soname)):
            libs[name] = path
    return libs


def xalan_inputs(out: str) -> tuple[str, str]:
    """A generated document (a catalogue of records with nested items) and a
    stylesheet that sorts, groups and counts them: heap-heavy DOM work."""
    xml = os.path.join(out, "xalan-in.xml")
    xsl = os.path.join(out, "xalan-style.xsl")
    if not os.path.exists(xml):
        with open(xml, "w") as f:
            f.write("<?xml version='1.0'?>\n<catalogue>\n")
            for i in range(12000):
                f.write(f"<record id='r{i}' group='g{i % 37}'><name>item {i * 7919 % 10007}</name>")
                for k in range(4):
                    f.write(f"<part n='{k}' w='{(i * 31 + k * 17) % 101}'>p{i}-{k}</part>")
                f.write("</record>\n")
            f.write("</catalogue>\n")
    if not os.path.exists(xsl):
        with open(xsl, "w") as f:
            f.write("""<?xml version='1.0'?>
<xsl:stylesheet version='1.0' xmlns:xsl='http://www.w3.org/1999/XSL/Transform'>
<xsl:output method='text'/>
<xsl:key name='by-group' match='record' use='@group'/>
<xsl:template match='/'>
  <xsl:for-each select='//record[generate-id() = generate-id(key("by-group", @group)[1])]'>
    <xsl:sort select='@group'/>
    <xsl:value-of select='@group'/>: <xsl:value-of select='count(key("by-group", @group))'/>
    <xsl:text> </xsl:text><xsl:value-of select='sum(key("by-group", @group)/part/@w)'/>
    <xsl:for-each select='key("by-group", @group)'><xsl:sort select='name'/>
      <xsl:if test='position() = 1'><xsl:text> </xsl:text><xsl:value-of select='name'/></xsl:if>
    </xsl:for-each>
    <xsl:text>&#10;</xsl:text>
  </xsl:for-each>
</xsl:template>
</xsl:stylesheet>
""")
    return xml, xsl


def last_level_cache() -> int | None:
    """The size in bytes of cpu0's highest cache level (sysfs), or None."""
    best: tuple[int, int] | None = None
    base = "/sys/devices/system/cpu/cpu0/cache"
    for index in (os.listdir(base) if os.path.isdir(base) else []):
        try:
            with open(os.path.join(base, index, "level")) as f:
                level = int(f.read())
            with open(os.path.join(base, index, "size")) as f:
                text = f.read().strip()
        except (OSError, ValueError):
            continue
        m = re.fullmatch(r"(\d+)([KMG]?)", text)
        if m:
            size = int(m.group(1)) << {"": 0, "K": 10, "M": 20, "G": 30}[m.group(2)]
            best = max(best or (level, size), (level, size))
    return best[1] if best else None


LOCALITY_BYTES = 1.6e6  # one structure's nodes in bench_locality at -m 1
LLC_SHARE = 0.6  # the llc rows: one structure's nodes in this share of the LL


def llc_sizing(llc: int | None, scale: float) -> tuple[int, float] | None:
    """bench_locality's -m and -s for the llc rows: a structure's nodes at
    LLC_SHARE of the last-level cache (pooled it fits, interleaved with its
    neighbour it does not), at least 10 rounds of walks."""
    if not llc:
        return None
    mult = max(1, round(LLC_SHARE * llc / LOCALITY_BYTES))
    return mult, max(scale / mult, 10 / 500)


# bench_olden's scale per kind, in units of --scale: at --scale 0.2 each
# runs 0.3-0.6 s under hslab (treeadd and health had run 0.03 s, too short
# to time).
OLDEN_SCALE = {"treeadd": 20, "health": 20, "mst": 2}


def workloads(build: str, scale: float, out: str, llc: int | None = None) -> dict[str, list[str]]:
    b = os.path.join(build, "bin")
    w = {}
    for depth in (0, 1, 2):
        w[f"locality-w{depth}"] = [os.path.join(b, "bench_locality"), "-w", str(depth), "-s", str(scale)]
    if (sized := llc_sizing(llc, scale)):
        for depth in (0, 1, 2):
            w[f"locality-llc-w{depth}"] = [os.path.join(b, "bench_locality"), "-w", str(depth),
                                           "-m", str(sized[0]), "-s", f"{sized[1]:.4g}"]
    for kind, times in OLDEN_SCALE.items():
        w[f"olden-{kind}"] = [os.path.join(b, "bench_olden"), "-k", kind, "-s", f"{scale * times:.4g}"]
    xalan = "/usr/bin/Xalan"
    if os.path.exists(xalan):
        xml, xsl = xalan_inputs(out)
        w["xalan"] = [xalan, xml, xsl]
    for name, args in real_programs():
        w[f"program-{name}"] = [os.path.join(ROOT, "bench", "programs", name + ".sh")] + args
    return w


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Heap-heavy real programs beside Xalan: bench/programs' drivers, at their
# full arguments (programs.tsv: 0.3-0.8 s each here), when their commands
# are installed.
PROGRAMS = ("python", "gcc", "sqlite")


def program_rows() -> list[tuple[str, list[str], list[tuple[str, str]]]]:
    """(name, full arguments, [(command, package)]) of PROGRAMS in
    bench/programs/programs.tsv."""
    try:
        with open(os.path.join(ROOT, "bench", "programs", "programs.tsv")) as f:
            rows = [l.rstrip("\n").split("\t") for l in f if l.strip() and not l.startswith("#")]
    except OSError:
        return []
    return [(r[0], r[4].split(), [(c.split(":")[0], c.split(":")[-1]) for c in r[5].split()])
            for r in rows if r[0] in PROGRAMS and len(r) >= 6]


def real_programs(missing: list[str] | None = None) -> list[tuple[str, list[str]]]:
    """(name, driver arguments) of PROGRAMS whose commands are installed;
    the others, with their missing commands, appended to missing."""
    got = []
    for name, args, commands in program_rows():
        absent = [c for c, _ in commands if not shutil.which(c)]
        if not absent:
            got.append((name, args))
        elif missing is not None:
            missing.append(f"{name} ({', '.join(absent)} not installed)")
    return got


def install_programs(out: str) -> None:
    """apt-get install xalan and the real programs' missing packages, as
    tools/bench.py installs the peers (root only; a failure is reported,
    and the report then says what did not run)."""
    packages = [] if os.path.exists("/usr/bin/Xalan") else ["xalan"]
    for _, _, commands in program_rows():
        packages += [package for c, package in commands if not shutil.which(c)]
    if packages and alloc_mod.may_install():
        os.makedirs(out, exist_ok=True)
        print(f"installing {', '.join(sorted(set(packages)))} (apt-get) ...", file=sys.stderr, flush=True)
        if not alloc_mod.apt_install(sorted(set(packages)), os.path.join(out, "apt.log")):
            print("apt-get failed: see apt.log", file=sys.stderr)


def is_program(cmd: list[str]) -> bool:
    return os.path.basename(os.path.dirname(cmd[0])) == "programs"


def check_any(stdout: str) -> runner.Verdict:
    """Xalan prints its result, not an ok line: any output is judged by
    comparing it across allocators (result_key)."""
    return runner.OK, "", {}


def run(cmd: list[str], lib: str | None, workdir: str, launcher: str | None = None,
        wrapper: list[str] | None = None, work: str = "") -> runner.RunResult:
    """One run of cmd with lib preloaded, in workdir (its stdout and stderr
    files), through bench_lib's runner. A real program's driver gets lib,
    launcher and its scratch folder work through its environment."""
    check = check_any if "Xalan" in cmd[0] or wrapper else None
    env = dict(os.environ)
    if is_program(cmd):  # the driver preloads lib into the measured program only and reports it
        env["MORTISE_BENCH_PRELOAD"] = lib or ""
        env["MORTISE_BENCH_RUNSTAT"] = launcher or ""  # the program's own wall time and RSS
        env["MORTISE_BENCH_WORK"] = work
        lib = None
    return runner.run_once((wrapper or []) + cmd, env, TIMEOUT, workdir, preload=lib,
                           launcher=launcher, check=check)


def read(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def result_key(cmd: list[str], stdout: str) -> str:
    if "Xalan" in cmd[0]:
        return hashlib.sha256(stdout.encode()).hexdigest()
    if is_program(cmd):  # the driver checks the program's output itself; its ok line carries timings
        last = stdout.rstrip().splitlines()[-1:]
        return "ok" if last and last[0].startswith("ok ") else "(no ok line)"
    lines = [l for l in stdout.splitlines() if l.startswith("ok ") or l.startswith("FAIL")]
    return lines[-1] if lines else "(no ok line)"


def status_of(r: runner.RunResult) -> str:
    """The report's word for a failed run: `exit N` as before, else the
    runner's status (crashed, timeout, failed)."""
    m = re.match(r"exit (\d+)", r.detail)
    return m.group(0) if m else r.status


def cachegrind(cmd: list[str], lib: str | None, out: str, tag: str, ll: str) -> tuple[int | None, int | None]:
    outfile = os.path.join(out, f"cachegrind.{tag}")
    opts = ["valgrind", "--tool=cachegrind", "--cache-sim=yes", f"--cachegrind-out-file={outfile}"]
    if ll != "host":
        opts.append(f"--LL={ll}")
    workdir = os.path.join(out, "runs", tag + ".cachegrind")
    run(cmd, lib, workdir, wrapper=opts)
    stderr = read(os.path.join(workdir, "stderr"))
    d1 = re.search(r"D1\s+misses:\s+([\d,]+)", stderr)
    lld = re.search(r"LLd misses:\s+([\d,]+)", stderr)

    def num(m: re.Match[str] | None) -> int | None:
        return int(m.group(1).replace(",", "")) if m else None
    return num(d1), num(lld)


def ll_sweep(a: argparse.Namespace, libs: dict[str, str | None], out: str) -> list[tuple[str, str, int, int | None]]:
    """(workload, allocator, LL KiB, LL data misses) of the locality
    workloads under hslab and affinity, one cachegrind run per LL size."""
    rows = []
    for wl, cmd in workloads(a.build, a.sweep_scale, out).items():
        if not wl.startswith("locality-w") or (a.workloads and wl not in a.workloads.split(",")):
            continue
        for name in ("hslab", "affinity"):
            if name not in libs:
                continue
            for kib in (int(k) for k in a.sweep.split(",")):
                _, lld = cachegrind(cmd, libs[name], out, f"sweep.{wl}.{name}.{kib}", f"{kib * 1024},16,64")
                rows.append((wl, name, kib, lld))
                print(f"sweep {wl:14} {name:9} LL {kib:5} KiB: LLd {lld}", file=sys.stderr, flush=True)
    return rows


def sweep_report(sweep: list[tuple[str, str, int, int | None]], a: argparse.Namespace) -> list[str]:
    if not sweep:
        return []
    sizes = sorted({k for _, _, k, _ in sweep})
    got = {(wl, name, k): m for wl, name, k, m in sweep}
    lines = ["", f"Simulated LL data misses against the LL size (16-way, 64-byte lines), locality "
             f"workloads at --scale {a.sweep_scale}; the last rows give affinity's misses as a share of hslab's.", "",
             "| workload | allocator | " + " | ".join(f"{k} KiB" for k in sizes) + " |",
             "| --- | --- | " + " | ".join("---:" for _ in sizes) + " |"]
    for wl in sorted({w for w, _, _, _ in sweep}):
        for name in ("hslab", "affinity"):
            cells = [str(got.get((wl, name, k), "")) for k in sizes]
            lines.append(f"| {wl} | {name} | " + " | ".join(cells) + " |")
        ratio = []
        for k in sizes:
            h, f = got.get((wl, "hslab", k)), got.get((wl, "affinity", k))
            ratio.append(f"{f / h:.3f}" if h and f is not None else "")
        lines.append(f"| {wl} | affinity × hslab | " + " | ".join(ratio) + " |")
    return lines


def programs_summary(rows: list[dict[str, Any]]) -> list[str]:
    """Geometric means of affinity's median time over the real programs
    (Xalan and bench/programs'), against each other allocator's."""
    med = {(r["workload"], r["allocator"]): r["median_s"] for r in rows if r["status"] == "ok"}
    progs = sorted({r["workload"] for r in rows if r["workload"] == "xalan" or r["workload"].startswith("program-")})
    lines = []
    for other in sorted({r["allocator"] for r in rows} - {"affinity"}):
        ratios = [med[(p, "affinity")] / med[(p, other)] for p in progs
                  if (p, "affinity") in med and (p, other) in med and med[(p, other)] > 0]
        if ratios and len(ratios) == len(progs):
            gm = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
            lines.append(f"- affinity × {other}: {gm:.3f} (geometric mean of median times over "
                         f"{', '.join(progs)})")
    missing: list[str] = []
    real_programs(missing)
    if not os.path.exists("/usr/bin/Xalan"):
        missing.append("xalan (/usr/bin/Xalan not installed)")
    if missing:
        lines.append("- not run: " + "; ".join(missing))
    return ["", "Real programs:", ""] + lines if lines else []


def llc_note(llc: int | None, scale: float) -> str:
    sized = llc_sizing(llc, scale)
    if not sized or not llc:
        return " No last-level cache size: no locality-llc rows."
    return (f" locality-llc rows: bench_locality -m {sized[0]} -s {sized[1]:.4g}, a structure's nodes "
            f"{sized[0] * LOCALITY_BYTES / 2**20:.0f} MiB against this machine's {llc / 2**20:.0f} MiB "
            "last-level cache (not simulated: their misses are the hardware's).")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("build")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--out", default=None)
    ap.add_argument("--allocators", default="hslab,affinity,glibc,mimalloc")
    ap.add_argument("--workloads", default=None)
    ap.add_argument("--no-cachegrind", action="store_true")
    ap.add_argument("--ll", default="2097152,16,64",
                    help="cachegrind's simulated last-level cache, size,assoc,line "
                         "(default: 2 MiB, which bench_locality's structures fit at -m 1 and do not "
                         "interleaved; 'host' for valgrind's choice from the host)")
    ap.add_argument("--sweep", default="256,512,1024,2048,4096,8192",
                    help="LL sizes in KiB for the locality workloads' cachegrind sweep ('' skips it)")
    ap.add_argument("--sweep-scale", type=float, default=0.02,
                    help="the locality workloads' scale in the sweep (cachegrind is ~50x slower)")
    ap.add_argument("--cachegrind-allocators", default="hslab,affinity",
                    help="the allocators also run under cachegrind (it is ~50x slower; never the llc rows)")
    ap.add_argument("--llc", type=int, default=None,
                    help="the last-level cache in bytes that sizes the locality-llc rows "
                         "(default: cpu0's highest level in sysfs; 0 leaves the rows out)")
    ap.add_argument("--no-install", action="store_true",
                    help="never apt-get install a missing xalan or real program (as root it installs them)")
    a = ap.parse_args(argv)
    llc = last_level_cache() if a.llc is None else a.llc
    if not a.no_install:
        install_programs(a.out or os.path.join(a.build, "bench-affinity"))
    out = a.out or os.path.join(a.build, "bench-affinity")
    os.makedirs(out, exist_ok=True)
    libs = allocators(a.build)
    names = [n for n in a.allocators.split(",") if n in libs and ((so := libs[n]) is None or os.path.exists(so))]
    runstat = os.path.join(a.build, "bin", "runstat")
    launcher = runstat if os.access(runstat, os.X_OK) else None
    wls = workloads(a.build, a.scale, out, llc)
    if a.workloads:
        wls = {k: v for k, v in wls.items() if k in a.workloads.split(",")}
    rows: list[dict[str, Any]] = []
    for wl, cmd in wls.items():
        expected = None
        walls: dict[str, list[float]] = {name: [] for name in names}
        walks: dict[str, list[float]] = {name: [] for name in names}
        rsss: dict[str, list[int]] = {name: [] for name in names}
        statuses = {name: "ok" for name in names}
        for i in range(a.runs):  # the allocators in turn: a slow spell of the machine falls on all of them
            for name in names:
                workdir = os.path.join(out, "runs", wl, name, str(i + 1))
                res = run(cmd, libs[name], workdir, launcher, work=os.path.join(out, "program-work"))
                stdout = read(os.path.join(workdir, "stdout"))
                key = result_key(cmd, stdout)
                if (walked := re.search(r"^walk_s=([\d.]+)$", stdout, re.M)):
                    walks[name].append(float(walked.group(1)))
                if not res.ok:
                    statuses[name] = status_of(res)
                elif expected is None:
                    expected = key
                elif key != expected:
                    statuses[name] = "different output"
                walls[name].append(res.wall_s)
                rsss[name].append(res.maxrss_kb)
        for name in names:
            lib = libs[name]
            status = statuses[name]
            d1: int | None = None
            ll: int | None = None
            if (not a.no_cachegrind and name in a.cachegrind_allocators.split(",") and "-llc-" not in wl
                    and not is_program(cmd)):
                d1, ll = cachegrind(cmd, lib, out, f"{wl}.{name}", a.ll)
            rss = int(median(rsss[name])) if rsss[name] else None
            row = {"workload": wl, "allocator": name, "status": status,
                   "median_s": median(walls[name]), "min_s": min(walls[name]), "max_s": max(walls[name]),
                   "walk_s": median(walks[name]) if walks[name] else None,
                   "walk_min_s": min(walks[name]) if walks[name] else None,
                   "walk_max_s": max(walks[name]) if walks[name] else None,
                   "maxrss_kb": rss, "d1_misses": d1, "lld_misses": ll}
            rows.append(row)
            print(f"{wl:16} {name:9} {status:6} median {row['median_s']:.3f} s "
                  f"[{row['min_s']:.3f}, {row['max_s']:.3f}] rss {rss} KB D1 {d1} LLd {ll}",
                  file=sys.stderr, flush=True)
    sweep = ll_sweep(a, libs, out) if not a.no_cachegrind and a.sweep else []
    with open(os.path.join(out, "results.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()) if rows else ["workload"])
        w.writeheader()
        w.writerows(rows)
    report = ["# Affinity benchmarks", "",
              f"`tools/affinity_bench.py {a.build} --runs {a.runs} --scale {a.scale}`; "
              "time: median of the runs; D1/LLd: cachegrind's simulated data misses "
              f"(read + write) of one run, simulated LL {a.ll}; ratios against hslab (the same chain "
              "without affinity_pool)." + llc_note(llc, a.scale), "",
              "| workload | allocator | median s [range] | × hslab time | walks s [range] | × hslab walks | "
              "max RSS KB | D1 misses | "
              "LLd misses | LLd × hslab |",
              "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    base = {r["workload"]: r for r in rows if r["allocator"] == "hslab"}
    for r in rows:
        b = base.get(r["workload"])
        tr = f"{r['median_s'] / b['median_s']:.3f}" if b else ""
        lr = (f"{r['lld_misses'] / b['lld_misses']:.3f}"
              if b and r["lld_misses"] is not None and b["lld_misses"] else "")
        status = "" if r["status"] == "ok" else f" ({r['status']})"
        walk = (f"{r['walk_s']:.3f} [{r['walk_min_s']:.3f}–{r['walk_max_s']:.3f}]"
                if r["walk_s"] is not None else "")
        wr = f"{r['walk_s'] / b['walk_s']:.3f}" if b and r["walk_s"] is not None and b["walk_s"] else ""
        report.append(f"| {r['workload']} | {r['allocator']}{status} | {r['median_s']:.3f} "
                      f"[{r['min_s']:.3f}–{r['max_s']:.3f}] | {tr} | {walk} | {wr} | "
                      f"{r['maxrss_kb']} | {r['d1_misses']} | {r['lld_misses']} | {lr} |")
    report += programs_summary(rows)
    report += sweep_report(sweep, a)
    text = "\n".join(report) + "\n"
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write(text)
    print(text)
    return 0 if all(r["status"] == "ok" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())

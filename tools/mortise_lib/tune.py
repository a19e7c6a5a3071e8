"""mortise tune — search the compositions for the one a program runs best on.

docs/tune.md has the method; in short:
  1. the program runs twice on the C library's malloc (no preload): its
     output and exit status are the reference every candidate must match
     (or the user's --check must pass), its time and max RSS the unit of
     the time+rss objective;
  2. the ready instances' model lines race (below) until one leads;
  3. from the leader, the neighbours — one slot changed, with the values
     the registry gives for that slot — race against it; a neighbour that
     wins becomes the leader and the step repeats, until no neighbour wins
     or the budget ends;
  4. the winner, glibc, the best ready instance and the peers installed
     (jemalloc, tcmalloc, mimalloc, tbbmalloc) run again, interleaved, for
     the ratios reported.

With --driver, COMMAND is a benchmark driver (bench/programs/NAME.sh): it
gets the candidate's library in $MORTISE_BENCH_PRELOAD, preloads it into the
program it measures only, checks that program's results and ends with the
line `ok wall_s=S maxrss_kb=K ...`, whose time and max RSS are the run's.

A race runs every live candidate once per round, in a shuffled order, so
slow drifts of the machine hit all of them alike. After each round a
candidate with at least --min-runs runs is out when a one-sided rank test
(Mann-Whitney, ranktest.py) puts its runs above the leader's (the lowest
median) with p < --alpha; when every live candidate has --max-runs runs,
the leader stays and the rest retire (in a neighbour race the incumbent
stays unless the leader beats it by the same test). A
candidate whose output or exit status differs, that crashes, exceeds
--timeout or fails to build is dropped on the spot and never picked.

Everything measured is kept in a JSON file under --state, written after
every round, so a search that is interrupted resumes where it stopped.
"""
from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import multiprocessing
import os
import pathlib
import random
import re
import shlex
import signal
import statistics
import subprocess
import sys
import threading
import time
import types
from collections.abc import Iterator
from typing import IO, Any, Dict, List, Optional, Tuple

from . import gen
from .check import Composition, Instance, check, render_value, scalar_of_text
from .paths import Paths
from .ranktest import p_larger
from .registry import Registry, Slot
from .spec import SpecError

OBJECTIVES = ("time", "rss", "time+rss")
# The slots the neighbourhood changes, by name wherever a layer has them;
# "affinity" adds or removes the affinity_pool layer.
TUNED_SLOTS = ("sizeclass", "slab_size", "cache_size", "sync", "large_keep",
               "large_decay_ms", "affinity")
# Only with --safe: the safety layers' and checks' slots.
SAFE_SLOTS = ("link_check", "chksum", "delayed_size", "head_canary")
SAFETY_LAYERS = ("delayed_free", "tail_chksum")
# Layers that measure or do nothing: instances with them are not candidates.
NON_ALLOCATING = ("fake", "wcet_stat", "perf_stat", "count", "szcls_stat")
# Sizes and counts step by these factors from the current value.
STEP_FACTORS = (0.25, 0.5, 2, 4)
SHORT_RUN = 0.3        # seconds: below this, start-up and timer noise weigh in
SAVE_VERSION = 1
# --driver: the variable a driver preloads into its measured program, and
# the fields of its last line (bench/programs/drive.py).
DRIVER_PRELOAD = "MORTISE_BENCH_PRELOAD"
DRIVER_LINE = re.compile(r"^ok .*\bwall_s=([0-9.]+) .*\bmaxrss_kb=([0-9]+)")
# The saved search (tune-KEY.json) and a run in it, as json reads them.
State = Dict[str, Any]
Run = Dict[str, Any]
# (model line, what changed); (label, library to preload or None)
Move = Tuple[str, str]
Entry = Tuple[str, Optional[str]]


class TuneError(Exception):
    """The search cannot go on; the message says why (exit status 2)."""


def parse_budget(text: str | None) -> float:
    """'90s', '10m', '1.5h' or plain seconds → seconds."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smh]?)\s*", text or "")
    if not m:
        raise ValueError(f"budget '{text}': write e.g. 90s, 10m or 1h")
    return float(m.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600}[m.group(2)]


def parse_size(text: str) -> int:
    """'200MB', '1GiB', '50000' (bytes) → bytes."""
    try:
        return scalar_of_text(text)
    except (ValueError, SpecError):
        raise ValueError(f"size '{text}': write e.g. 200MB or 1GiB")


def pareto_front(points: List[Tuple[str, float, float]]) -> list[str]:
    """The labels of points (label, time, rss) that no other point beats in
    both (at least as good in each, better in one), sorted by time."""
    front = []
    for label, t, r in points:
        beaten = any((t2 <= t and r2 <= r) and (t2 < t or r2 < r) for _, t2, r2 in points)
        if not beaten:
            front.append((t, r, label))
    return [label for _, _, label in sorted(front)]


def special_values(slot: Slot) -> list[int]:
    """Values the slot's descriptor gives a meaning of their own: 0 ("off")
    of large_keep, whose declared range starts at 0 (core/describe.h)."""
    return slot.special


def slot_values(reg: Registry, slot: Slot, current: Any, single_thread: bool) -> list[Any]:
    """The values a neighbour may give slot, from the registry: the policies
    of its folder, the alternatives its descriptor allows (magic|xor|crc32),
    the other of 0|1, or sizes and counts a factor of STEP_FACTORS away from
    the current one plus its special values."""
    if slot.vtype == "POLICY":
        names = reg.policy_names(slot.name)
        if slot.name == "sync" and not single_thread:
            names = [n for n in names if n != "none"]
        return [n for n in names if n != current]
    if "|" in slot.vtype and slot.vtype != "0|1":
        return [n for n in slot.vtype.split("|") if n != current]
    if slot.vtype == "0|1":
        return [1 - int(current)] if current in (0, 1) else []
    if slot.vtype in ("BYTES", "N") and isinstance(current, int):
        vals = [int(current * f) for f in STEP_FACTORS if current * f >= 1] + special_values(slot)
        vals = [v for v in vals if slot.allows(v)]     # the descriptor's range: the compiler's too
        return [render_value(slot, v).replace(" ", "") for v in dict.fromkeys(vals) if v != current]
    return []


def term(inst: Instance, changes: dict[str, str] | None = None) -> str:
    """inst as a model term, its given slots with changes applied."""
    changes = changes or {}
    args = [f"name={inst.name}"] if inst.named else []
    args += [f"{n}={changes.get(n, inst.values[n].text)}" for n in inst.given]
    args += [f"{n}={v}" for n, v in changes.items() if n not in inst.given]
    return inst.layer.name + (f"({', '.join(args)})" if args else "")


def neighbours(reg: Registry, comp: Composition, slots: set[str], single_thread: bool) -> list[Move]:
    """(model line, what changed) for every composition one move from comp,
    in the order of TUNED_SLOTS then SAFE_SLOTS (a budget that ends while
    they are built keeps the moves of the slots first in that order)."""
    order = {name: k for k, name in enumerate(TUNED_SLOTS + SAFE_SLOTS)}
    out: list[tuple[int, Move]] = []
    sizeclass_groups: dict[str, list[int]] = {}
    for k, inst in enumerate(comp.instances):
        for sname, sv in inst.values.items():
            if sname == "sizeclass" and sv.slot.vtype == "POLICY" and "sizeclass" in slots:
                sizeclass_groups.setdefault(sv.text, []).append(k)
                continue
            if sname not in slots or sname == "sizeclass":
                continue
            if sname in ("link_check", "head_canary") and sv.value == 1:
                continue     # --safe never turns a check off
            for v in slot_values(reg, sv.slot, sv.value, single_thread):
                terms = [term(i, {sname: v}) if j == k else term(i)
                         for j, i in enumerate(comp.instances)]
                out.append((order.get(sname, len(order)),
                            ("::".join(terms), f"{inst.name}: {sname}={sv.text} → {v}")))
    # A cache and the layer under it share their classes: a sizeclass move
    # changes every layer that has the same policy at once.
    for current, members in sizeclass_groups.items():
        slot = comp.instances[members[0]].values["sizeclass"].slot
        for v in slot_values(reg, slot, current, single_thread):
            terms = [term(i, {"sizeclass": v}) if j in members else term(i)
                     for j, i in enumerate(comp.instances)]
            names = ", ".join(comp.instances[j].name for j in members)
            out.append((order["sizeclass"], ("::".join(terms), f"{names}: sizeclass={current} → {v}")))
    if "affinity" in slots and "affinity_pool" in reg.layers:
        have = [k for k, i in enumerate(comp.instances) if i.layer.name == "affinity_pool"]
        terms = [term(i) for i in comp.instances]
        if have:
            del terms[have[0]]
            out.append((order["affinity"], ("::".join(terms), "affinity_pool removed")))
        else:
            terms.insert(len(terms) - 1, "affinity_pool")
            out.append((order["affinity"], ("::".join(terms), "affinity_pool added")))
    return [move for _, move in sorted(out, key=lambda om: om[0])]


def is_safe(comp: Composition) -> bool:
    return any(i.layer.name in SAFETY_LAYERS or
               ("link_check" in i.values and i.values["link_check"].value == 1)
               for i in comp.instances)


def eligible_instance(comp: Composition, safe: bool) -> bool:
    """Whether a ready instance is a starting point: a malloc allocator
    without measuring layers or C predicates, safe exactly when --safe."""
    if comp.socket.layer.name != "malloc_socket":
        return False
    if any(i.layer.name in NON_ALLOCATING for i in comp.instances):
        return False
    if any(sv.slot.vtype == "FUNCTION" for i in comp.instances for sv in i.values.values()):
        return False
    return is_safe(comp) == safe


def same_allocator(comp: Composition) -> str:
    """Text equal for two compositions exactly when they are the same
    allocator: every slot's value, given or default (a slot written with
    its default value is the same as one left out)."""
    return "::".join(f"{i.layer.name}:{i.name}(" + ",".join(
        f"{n}={sv.value}" for n, sv in i.values.items()) + ")" for i in comp.instances)


class Sample:
    """One run: the measured wall seconds and max RSS in KiB (the command's,
    or with --driver its measured program's), the whole command's wall
    seconds, and what went wrong if anything."""

    def __init__(self, seconds: float, rss_kib: int, status: int, timed_out: bool) -> None:
        self.seconds, self.rss_kib = seconds, rss_kib
        self.wall = seconds
        self.status, self.timed_out = status, timed_out
        self.driver_failure: str | None = None


def driver_result(sample: Sample, out_path: pathlib.Path) -> None:
    """Take the measured time and max RSS from a driver's last line; a run
    whose last line is not `ok ...` is a failure the driver reported."""
    lines = out_path.read_text(errors="replace").strip().splitlines()
    last = lines[-1] if lines else ""
    m = DRIVER_LINE.match(last)
    if m:
        sample.seconds, sample.rss_kib = float(m.group(1)), int(m.group(2))
    else:
        sample.driver_failure = f"the driver reported: {last[:200] or '(no output)'}"


def runstat_launcher(paths: Paths, cli: types.ModuleType) -> str | None:
    """bench/runstat built into the cache (once per source and compiler),
    or None where there is no source or it does not build. Linux starts a
    child's max RSS at the size of the process it was forked from, so a
    program forked from tune's Python would never report less than tune's
    own ~20 MiB; forked from runstat, the floor is a few hundred KiB."""
    src = paths.tools.parent / "bench" / "runstat" / "runstat.c"
    if not src.is_file():
        return None
    try:
        cc = cli.compiler()
    except cli.Failure:
        return None
    digest = hashlib.sha256(src.read_bytes() + " ".join(cc).encode()).hexdigest()[:16]
    exe = cli.cache_dir() / f"runstat-{digest}"
    if not exe.is_file():
        exe.parent.mkdir(parents=True, exist_ok=True)
        tmp = exe.with_name(f".{exe.name}.{os.getpid()}")
        r = subprocess.run(cc + ["-O2", "-o", str(tmp), str(src)], capture_output=True)
        if r.returncode:
            return None
        os.replace(tmp, exe)
    return str(exe)


def run_once(command: list[str], preload: str | None, out_path: pathlib.Path, timeout: float,
             driver: bool = False, launcher: str | None = None) -> Sample:
    """Run command once with LD_PRELOAD=preload (None: the C library's
    malloc; with driver, preload goes in $MORTISE_BENCH_PRELOAD instead,
    and launcher in $MORTISE_BENCH_RUNSTAT), standard output to out_path,
    standard input from /dev/null, in a session of its own (a timeout
    kills the whole group). Started through launcher (runstat) when there
    is one, which measures the wall time and wait4's max RSS of the
    command; else wall time around spawn..wait4 and the child's ru_maxrss,
    floored at this process's size. With driver, both come from the
    driver's last line."""
    env = dict(os.environ)
    stat_path = pathlib.Path(str(out_path) + ".runstat")
    with contextlib.suppress(FileNotFoundError):
        stat_path.unlink()
    if driver:
        env[DRIVER_PRELOAD] = preload or ""
        env["MORTISE_BENCH_RUNSTAT"] = launcher or ""
    elif launcher:
        command = [launcher, str(stat_path), preload or "", "--"] + command
    elif preload:
        env["LD_PRELOAD"] = preload + (":" + env["LD_PRELOAD"] if env.get("LD_PRELOAD") else "")
    out_fd = os.open(out_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    err_fd = os.open(str(out_path) + ".err", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    null_fd = os.open(os.devnull, os.O_RDONLY)
    actions = [(os.POSIX_SPAWN_DUP2, null_fd, 0), (os.POSIX_SPAWN_DUP2, out_fd, 1),
               (os.POSIX_SPAWN_DUP2, err_fd, 2)]
    fired: list[bool] = []

    try:
        start = time.perf_counter()
        pid = os.posix_spawnp(command[0], command, env, file_actions=actions, setsid=True)
    except OSError as e:
        raise TuneError(f"mortise tune: cannot run {command[0]}: {e.strerror}")
    finally:
        for fd in (out_fd, err_fd, null_fd):
            os.close(fd)

    def kill() -> None:
        fired.append(True)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signal.SIGKILL)

    timer = threading.Timer(timeout, kill)
    timer.start()
    try:
        _, status, usage = os.wait4(pid, 0)
    except BaseException:       # Ctrl-C: its own session did not get it
        kill()
        os.waitpid(pid, 0)
        raise
    finally:
        timer.cancel()
    seconds = time.perf_counter() - start
    sample = Sample(seconds, usage.ru_maxrss, os.waitstatus_to_exitcode(status), bool(fired))
    if launcher and not driver and not sample.timed_out:
        if sample.status == 127 and not stat_path.is_file():
            said = pathlib.Path(str(out_path) + ".err").read_text(errors="replace").strip()
            raise TuneError(f"mortise tune: {said or 'cannot run ' + command[4]}")
        fields = dict(w.split("=", 1) for w in stat_path.read_text().split())
        sample.status = os.waitstatus_to_exitcode(int(fields["status"]))
        sample.seconds, sample.rss_kib = float(fields["wall_s"]), int(fields["maxrss_kb"])
        stat_path.unlink()
    if driver and not sample.timed_out:
        driver_result(sample, out_path)
    return sample


# What build_one's processes need, set before they are forked (a
# composition does not pickle): the cli module, the paths, the jobs.
_BUILD_JOB: tuple[types.ModuleType, Paths, list[tuple[Composition, pathlib.Path]]] | None = None


def build_one(k: int) -> tuple[str | None, str]:
    """(library, "") for job k built (or found in the cache), else
    (None, why); the compiler's output goes to the job's log."""
    assert _BUILD_JOB is not None
    cli, paths, jobs = _BUILD_JOB
    comp, log = jobs[k]
    try:
        with output_to(log):
            return str(cli.cached_library(paths, comp, False)), ""
    except cli.Failure:
        tail = [l for l in log.read_text(errors="replace").splitlines() if "error" in l]
        return None, "build failed" + (f": {tail[0].strip()}" if tail else "")


def file_digest(path: str | os.PathLike[str]) -> str:
    return hashlib.sha256(pathlib.Path(path).read_bytes()).hexdigest()


@contextlib.contextmanager
def output_to(log_path: pathlib.Path) -> Iterator[None]:
    """Standard output and error of this process and its children (the
    compiler) into log_path for the duration."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        yield
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for f in saved + [fd]:
            os.close(f)


def peer_libraries(tools: pathlib.Path) -> tuple[list[Entry], list[str]]:
    """The peers of `make bench` that are installed, as (name, library to
    preload), and the names of those that are not (with their package)."""
    sys.path.insert(0, str(tools))
    from bench_lib import allocators
    found: list[Entry] = []
    missing: list[str] = []
    for name, package, soname in allocators.PEERS:
        lib = allocators.locate(package, soname)
        if lib:
            found.append((name, lib))
        else:
            missing.append(f"{name} (Debian: {package})")
    return found, missing


def fmt_seconds(s: float) -> str:
    return f"{s:.3f} s" if s < 10 else f"{s:.1f} s"


def fmt_kib(k: int) -> str:
    return f"{k / 1024:.1f} MiB" if k >= 1024 else f"{k} KiB"


class Tuner:
    state: State        # load() reads or starts it

    def __init__(self, args: argparse.Namespace, paths: Paths, cli: types.ModuleType) -> None:
        self.args, self.paths, self.cli = args, paths, cli
        self.command = args.command
        self.reg = cli.registry(paths)
        self.slots = set(args.slots.split(",")) if args.slots else \
            set(TUNED_SLOTS) | (set(SAFE_SLOTS) if args.safe else set())
        self.max_rss_kib = parse_size(args.max_rss) // 1024 if args.max_rss else None
        self.budget = parse_budget(args.budget)
        self.state_dir = pathlib.Path(args.state)
        key = json.dumps([self.command, os.getcwd(), args.objective, args.weight, args.max_rss,
                          args.safe, args.check, sorted(self.slots), args.instances,
                          args.single_thread] + (["driver"] if args.driver else []))
        self.key = hashlib.sha256(key.encode()).hexdigest()[:12]
        self.state_file = self.state_dir / f"tune-{self.key}.json"
        self.out_dir = self.state_dir / f"tune-{self.key}-out"
        self.last_progress = 0.0
        self.started = time.monotonic()
        self.rng = random.Random(0)
        self.peers, self.missing_peers = peer_libraries(paths.tools)
        self.launcher = runstat_launcher(paths, cli)

    # ---- state -------------------------------------------------------
    def load(self) -> bool:
        if self.args.fresh or not self.state_file.is_file():
            self.state = {"version": SAVE_VERSION, "command": self.command, "phase": "reference",
                          "elapsed": 0.0, "reference": None, "candidates": {}, "race": [],
                          "incumbent": None, "best_instance": None, "final": {}, "steps": []}
            return False
        self.out_dir.mkdir(parents=True, exist_ok=True)
        self.state = json.loads(self.state_file.read_text())
        if self.state.get("version") != SAVE_VERSION:
            raise TuneError(f"mortise tune: {self.state_file} is from another version; "
                            "use --fresh")
        return True

    def save(self) -> None:
        self.state["elapsed"] = self.elapsed()
        self.started = time.monotonic()
        self.state_dir.mkdir(parents=True, exist_ok=True)
        tmp = self.state_file.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.state, indent=1, ensure_ascii=False))
        os.replace(tmp, self.state_file)

    def elapsed(self) -> float:
        return self.state["elapsed"] + time.monotonic() - self.started

    # ---- measuring ---------------------------------------------------
    def score(self, run: Run) -> float:
        t, rss = run["seconds"], run["rss_kib"]
        if self.args.objective == "time":
            return t
        if self.args.objective == "rss":
            return rss
        ref = self.state["reference"]
        return t / ref["seconds"] + self.args.weight * rss / max(1, ref["rss_kib"])

    def timeout(self) -> float:
        if self.args.timeout:
            return self.args.timeout
        ref = self.state.get("reference")
        return max(5.0, 10 * ref.get("wall", ref["seconds"])) if ref else 600.0

    def run_check(self, out_path: pathlib.Path, spec: str) -> str | None:
        cmd = self.args.check
        quoted = shlex.quote(str(out_path))
        cmd = cmd.replace("{}", quoted) if "{}" in cmd else f"{cmd} {quoted}"
        env = dict(os.environ, MORTISE_TUNE_SPEC=spec or "",
                   MORTISE_TUNE_REFERENCE=str(self.out_dir / "glibc.out"))
        try:
            r = subprocess.run(cmd, shell=True, env=env, capture_output=True, text=True,
                               timeout=self.timeout())
        except subprocess.TimeoutExpired:
            return "--check timed out"
        if r.returncode:
            said = (r.stdout + r.stderr).strip().splitlines()
            return f"--check failed (exit {r.returncode})" + (f": {said[-1]}" if said else "")
        return None

    def verdict(self, sample: Sample, out_path: pathlib.Path, spec: str) -> str | None:
        """None when the run is correct, else why it is not."""
        ref = self.state["reference"]
        if sample.timed_out:
            return f"hung: killed after --timeout {self.timeout():.0f} s"
        if sample.status < 0:
            return f"crashed: signal {-sample.status} ({signal.Signals(-sample.status).name})"
        if sample.driver_failure:
            return sample.driver_failure
        if sample.status != ref["status"]:
            return f"exit status {sample.status}, glibc's is {ref['status']}"
        if self.args.check:
            return self.run_check(out_path, spec)
        if self.args.driver:
            return None     # the driver checked its program's results itself
        if file_digest(out_path) != ref["digest"]:
            return "output differs from glibc's (give --check CMD if it may differ)"
        return None

    def measure(self, spec: str) -> bool:
        """One run of the candidate spec; False if it was dropped."""
        cand = self.state["candidates"][spec]
        if cand["lib"] is None:     # never built (an interrupted build): not glibc's run
            cand.update(status="dropped", why="not built")
            return False
        out_path = self.out_dir / "run.out"
        sample = run_once(self.command, cand["lib"], out_path, self.timeout(), self.args.driver,
                          self.launcher)
        why = self.verdict(sample, out_path, spec)
        if why:
            kept = self.out_dir / f"dropped-{cand['id']}.out"
            os.replace(out_path, kept)
            cand.update(status="dropped", why=f"{why} (its output: {kept})")
            return False
        cand["runs"].append({"seconds": sample.seconds, "rss_kib": sample.rss_kib})
        return True

    def reference_runs(self) -> None:
        """Two glibc runs: the output the candidates must match, and the
        unit of time+rss (their medians)."""
        self.out_dir.mkdir(parents=True, exist_ok=True)
        runs: list[Sample] = []
        digests: list[str] = []
        for n in range(2):
            self.progress(f"glibc reference run {n + 1}/2", force=True)
            path = self.out_dir / ("glibc.out" if n == 0 else "glibc-2.out")
            s = run_once(self.command, None, path, self.args.timeout or 600.0, self.args.driver,
                         self.launcher)
            if s.timed_out:
                raise TuneError("mortise tune: the program did not end within --timeout on glibc")
            if s.driver_failure:
                raise TuneError(f"mortise tune: on glibc, {s.driver_failure}")
            runs.append(s)
            digests.append(file_digest(path))
        if digests[0] != digests[1] and not self.args.check and not self.args.driver:
            raise TuneError("mortise tune: the program's output differs between two runs on "
                            f"glibc ({self.out_dir}/glibc.out, glibc-2.out): give --check CMD "
                            "to judge a candidate's output instead")
        if runs[0].status != runs[1].status:
            raise TuneError("mortise tune: the program's exit status differs between two runs "
                            f"on glibc ({runs[0].status}, {runs[1].status})")
        if self.args.check:
            why = self.run_check(self.out_dir / "glibc.out", "")
            if why:
                raise TuneError(f"mortise tune: the glibc run fails the check: {why}")
        self.state["reference"] = {
            "seconds": statistics.median(s.seconds for s in runs),
            "rss_kib": statistics.median(s.rss_kib for s in runs),
            "wall": statistics.median(s.wall for s in runs),
            "status": runs[0].status, "digest": digests[0]}

    # ---- candidates --------------------------------------------------
    def add_candidates(self, moves: list[Move]) -> list[str | None] | None:
        """Check each move's line and build the new ones (cached), as many
        at a time as there are processors: nothing is measured meanwhile.
        The candidates' canonical lines (None for a line that does not
        check), or None when the budget ended first. A candidate left
        unbuilt by an interruption is built again when a resumed search
        meets it."""
        specs: list[str | None] = []
        batch = max(1, os.cpu_count() or 1)
        for first in range(0, len(moves), batch):
            if self.out_of_budget():
                return None
            cands = self.state["candidates"]
            new: list[tuple[str, Composition]] = []
            for line, origin in moves[first:first + batch]:
                try:
                    comp = check(self.reg, line)
                except SpecError:
                    specs.append(None)
                    continue
                key = same_allocator(comp)
                known = next((k for k, c in cands.items() if c["key"] == key), None)
                if known is None:
                    known = gen.model_line(comp)
                    cands[known] = {"id": len(cands) + 1, "origin": origin, "runs": [],
                                    "status": "live", "why": "", "lib": None, "key": key}
                if cands[known]["lib"] is None and cands[known]["status"] == "live" and \
                        all(known != n for n, _ in new):
                    new.append((known, comp))
                specs.append(known)
            if new:
                self.progress("building candidates " +
                              ", ".join(str(cands[s]["id"]) for s, _ in new), force=True)
                self.build(new)
        return specs

    def build(self, new: list[tuple[str, Composition]]) -> None:
        """Build new candidates side by side, each in a process of its own
        (its compiler output in a log of its own)."""
        global _BUILD_JOB
        cands = self.state["candidates"]
        jobs = [(comp, self.out_dir / f"build-{cands[spec]['id']}.log") for spec, comp in new]
        _BUILD_JOB = (self.cli, self.paths, jobs)
        if len(jobs) == 1:
            results = [build_one(0)]
        else:
            with multiprocessing.get_context("fork").Pool(len(jobs)) as pool:
                results = pool.map(build_one, range(len(jobs)))
        for (spec, _), (lib, why) in zip(new, results):
            if lib:
                cands[spec]["lib"] = lib
            else:
                cands[spec].update(status="dropped", why=why)

    def live(self, specs: list[str]) -> list[str]:
        return [s for s in specs if self.state["candidates"][s]["status"] == "live"]

    def median_score(self, spec: str) -> float:
        return statistics.median(self.scores(spec))

    def leader(self, specs: list[str]) -> str | None:
        ready = [s for s in self.live(specs)
                 if len(self.state["candidates"][s]["runs"]) >= self.args.min_runs]
        return min(ready, key=lambda s: self.median_score(s)) if ready else None

    def scores(self, spec: str) -> list[float]:
        return [self.score(r) for r in self.state["candidates"][spec]["runs"]]

    def worse_beyond_noise(self, a: str, b: str) -> float | None:
        """The rank test's p-value when a's scores are worse (larger) than
        b's beyond the noise (p below --alpha), else None."""
        p = p_larger(self.scores(a), self.scores(b))
        return p if p < self.args.alpha else None

    def eliminate(self, specs: list[str]) -> None:
        """The racing rule (docs/tune.md): out when the rank test puts its
        runs above the leader's (p < --alpha); over --max-rss when even the
        smallest max RSS is over it; retired when every live one has
        --max-runs."""
        cands = self.state["candidates"]
        if self.max_rss_kib:
            for s in self.live(specs):
                runs = cands[s]["runs"]
                if runs and min(r["rss_kib"] for r in runs) > self.max_rss_kib:
                    cands[s].update(status="out", why="max RSS over --max-rss in every run")
        lead = self.leader(specs)
        if lead is None:
            return
        for s in self.live(specs):
            if s == lead or len(cands[s]["runs"]) < self.args.min_runs:
                continue
            p = self.worse_beyond_noise(s, lead)
            if p is not None:
                cands[s].update(status="out", why="worse than the leader beyond the noise: "
                                f"median {self.fmt_score(self.median_score(s))} against "
                                f"{self.fmt_score(self.median_score(lead))}, rank test p = {p:.3g}")
        if all(len(cands[s]["runs"]) >= self.args.max_runs for s in self.live(specs)):
            keep, why = lead, "median behind the leader's"
            # In a neighbour race the incumbent keeps its place unless the
            # leader beats it beyond the noise.
            inc = self.state["incumbent"] if self.state["phase"] == "neighbours" else None
            if inc in self.live(specs) and lead != inc and not self.clearly_better(lead, inc):
                keep, why = inc, "not better than the incumbent beyond the noise"
            for s in self.live(specs):
                if s != keep:
                    cands[s].update(status="retired", why=f"no clear difference after "
                                    f"{self.args.max_runs} runs; {why}")

    def clearly_better(self, a: str, b: str) -> bool:
        """a's scores below b's beyond the noise (the rank test)."""
        return self.worse_beyond_noise(b, a) is not None

    def race(self, specs: list[str]) -> tuple[str | None, bool]:
        """Rounds over the live candidates of specs until one is left.
        (leader, True) then; (the leader so far, False) when the budget
        ends first."""
        while len(self.live(specs)) > 1 or (self.live(specs) and
                                            not self.leader(specs)):
            order = self.live(specs)
            self.rng.shuffle(order)
            for s in order:
                if self.out_of_budget():
                    self.save()
                    return self.leader(specs), False
                self.progress(self.race_line(specs, s))
                self.measure(s)
            self.eliminate(specs)
            self.save()
        return self.leader(specs), True

    def out_of_budget(self) -> bool:
        """Whether the search must stop now, keeping enough of the budget
        for the final round (its runs at glibc's pace)."""
        ref = self.state["reference"]
        entries = 3 + len(self.peers)
        final = self.args.final_runs * entries * ref.get("wall", ref["seconds"]) if ref else 0
        return self.elapsed() + final >= self.budget

    # ---- the search ------------------------------------------------------
    def start_points(self) -> list[Move]:
        chosen = self.args.instances.split(",") if self.args.instances else None
        found = self.reg.instances()
        if chosen:
            unknown = [n for n in chosen if n not in found]
            if unknown:
                raise TuneError(f"mortise tune: --instances: no ready instance "
                                f"{', '.join(unknown)} (see `mortise list`)")
        lines: list[Move] = []
        for name, (line, _) in sorted(found.items()):
            if chosen and name not in chosen:
                continue
            try:
                comp = check(self.reg, line)
            except SpecError:
                continue
            if chosen or eligible_instance(comp, self.args.safe):
                lines.append((line, f"instance {name}"))
        if not lines:
            raise TuneError("mortise tune: no ready instance to start from" +
                            (" (with --safe: none has a safety layer)" if self.args.safe else ""))
        return lines

    def search(self) -> None:
        st = self.state
        if st["phase"] == "reference":
            if not st["reference"]:
                self.reference_runs()
            starts = self.add_candidates(self.start_points())
            if starts is None:
                self.save()
                raise TuneError("mortise tune: the budget ended before any instance had "
                                f"{self.args.min_runs} runs (while they were built); give a "
                                "larger --budget")
            st["phase"] = "instances"
            st["race"] = list(dict.fromkeys(s for s in starts if s))
            self.save()
            self.warn_short()
        if st["phase"] == "instances":
            lead, finished = self.race(st["race"])
            if lead is None and not finished:
                raise TuneError("mortise tune: the budget ended before any instance had "
                                f"{self.args.min_runs} runs; give a larger --budget")
            if lead is None:
                within = " within --max-rss" if self.max_rss_kib else ""
                raise TuneError(f"mortise tune: no ready instance ran correctly{within} "
                                "(see the dropped list)")
            st["best_instance"] = st["incumbent"] = lead
            if finished:
                st["phase"], st["race"] = "neighbours", []
            else:
                self.cut("instances")
            self.save()
        while st["phase"] == "neighbours":
            if not st["race"]:
                fresh = self.fresh_neighbours()
                if fresh is None:
                    self.cut("neighbours")
                    break
                if not fresh:
                    st["phase"] = "final"
                    break
                st["race"] = [st["incumbent"]] + fresh
                self.save()
            lead, finished = self.race(st["race"])
            if not finished:
                # A race the budget cuts short moves nothing, unless the
                # incumbent is no longer in it.
                if self.state["candidates"][st["incumbent"]]["status"] == "dropped":
                    st["incumbent"] = self.fallback()
                self.cut("neighbours")
                break
            if lead is None:
                st["incumbent"] = self.fallback()
                st["phase"] = "final"
            elif lead != st["incumbent"]:
                st["steps"].append({"from": st["incumbent"], "to": lead,
                                    "move": st["candidates"][lead]["origin"]})
                st["incumbent"] = lead
            else:
                st["phase"] = "final"
            st["race"] = []
            self.save()
        if st["phase"] == "final":
            self.final_round()
            st["phase"] = "done"
            self.save()

    def fresh_neighbours(self) -> list[str] | None:
        """The incumbent's neighbours never run, built; None when the budget
        ended while building them."""
        st = self.state
        fresh: list[str] = []
        specs = self.add_candidates(neighbours(self.reg, check(self.reg, st["incumbent"]),
                                               self.slots, self.args.single_thread))
        if specs is None:
            return None
        for spec in specs:
            cand = st["candidates"].get(spec) if spec else None
            if spec is not None and cand and spec != st["incumbent"] and spec not in fresh and \
                    not cand["runs"] and cand["status"] == "live":
                fresh.append(spec)
        return fresh

    def cut(self, phase: str) -> None:
        """The budget ended the search in phase: on to the final round; a
        later session with a larger budget goes back to phase."""
        self.state["cut_phase"] = phase
        self.state["phase"] = "final"

    def resume_cut(self) -> bool:
        """Whether a search the budget cut short goes on (the budget is
        larger now); its final round is then run again at the end."""
        st = self.state
        if st.get("cut_phase") and not self.out_of_budget():
            st["phase"] = st.pop("cut_phase")
            st["final"] = {}
            return True
        return False

    def fallback(self) -> str:
        """The incumbent, or if it was dropped, the best-median candidate
        that never was."""
        cands = self.state["candidates"]
        if cands[self.state["incumbent"]]["status"] != "dropped":
            return self.state["incumbent"]
        ok = [s for s, c in cands.items() if c["runs"] and c["status"] != "dropped"]
        if not ok:
            raise TuneError("mortise tune: every candidate was dropped")
        return min(ok, key=lambda s: self.median_score(s))

    def final_round(self) -> None:
        """The winner against glibc, the best ready instance and the
        installed peers, --final-runs each, interleaved."""
        st = self.state
        refs = self.final_entries()
        for label, _ in refs:
            st["final"].setdefault(label, [])
        while True:
            due = [(l, p) for l, p in refs if len(st["final"][l]) < self.args.final_runs]
            if not due:
                break
            self.rng.shuffle(due)
            for label, lib in due:
                self.progress(f"final round: {label} run {len(st['final'][label]) + 1}/"
                              f"{self.args.final_runs}")
                s = run_once(self.command, lib, self.out_dir / "final.out", self.timeout(),
                             self.args.driver, self.launcher)
                ok = not s.timed_out and s.status == st["reference"]["status"] and \
                    not s.driver_failure
                st["final"][label].append({"seconds": s.seconds, "rss_kib": s.rss_kib, "ok": ok})
            self.save()

    def final_entries(self) -> list[Entry]:
        st = self.state
        cands = st["candidates"]
        entries: list[Entry] = [("winner", cands[st["incumbent"]]["lib"]), ("glibc", None)]
        if st["best_instance"] != st["incumbent"]:
            entries.append(("best ready instance", cands[st["best_instance"]]["lib"]))
        return entries + self.peers

    # ---- output ----------------------------------------------------------
    def verdict_of(self, winner: list[float], other: list[float], words: tuple[str, str]) -> str:
        """The winner's runs against another's: words[0] when below them
        beyond the noise, words[1] when above, else 'within noise'."""
        if p_larger(other, winner) < self.args.alpha:
            return words[0]
        if p_larger(winner, other) < self.args.alpha:
            return words[1]
        return "within noise"

    def fmt_score(self, v: float) -> str:
        if self.args.objective == "time":
            return fmt_seconds(v)
        if self.args.objective == "rss":
            return fmt_kib(int(v))
        return f"{v:.3f}"

    def progress(self, msg: str, force: bool = False) -> None:
        line = f"[{self.elapsed():6.0f}/{self.budget:.0f} s] {msg}"
        if sys.stderr.isatty():
            sys.stderr.write("\r\x1b[K" + line[:150])
            sys.stderr.flush()
        elif force or time.monotonic() - self.last_progress >= 5:
            self.last_progress = time.monotonic()
            print(line, file=sys.stderr)

    def race_line(self, specs: list[str], running: str) -> str:
        live = self.live(specs)
        lead = self.leader(specs)
        cand = self.state["candidates"][running]
        lead_txt = f"leader #{self.state['candidates'][lead]['id']} median " \
                   f"{self.fmt_score(self.median_score(lead))}" if lead else "no leader yet"
        return (f"{self.state['phase']}: {len(live)} live, running #{cand['id']} "
                f"(run {len(cand['runs']) + 1}); {lead_txt}")

    def warn_short(self) -> None:
        t = self.state["reference"]["seconds"]
        if t < SHORT_RUN:
            print(f"mortise tune: warning: a run takes {fmt_seconds(t)} on glibc; below "
                  f"{SHORT_RUN} s start-up and timer noise weigh in: make the run longer "
                  "(more work per run) for time results that mean something", file=sys.stderr)

    def medians(self, runs: list[Run]) -> tuple[float, float]:
        return (statistics.median(r["seconds"] for r in runs),
                statistics.median(r["rss_kib"] for r in runs))

    def report(self) -> str:
        if sys.stderr.isatty():
            sys.stderr.write("\r\x1b[K")
        st = self.state
        cands = st["candidates"]
        ref = st["reference"]
        print(f"mortise tune: {shlex.join(self.command)}")
        print(f"objective: {self.args.objective}"
              + (f" (score = time/glibc's time + {self.args.weight} × max RSS/glibc's max RSS)"
                 if self.args.objective == "time+rss" else "")
              + (f", max RSS at most {self.args.max_rss}" if self.args.max_rss else "")
              + (", safe compositions only" if self.args.safe else "")
              + f"; searched {st['elapsed']:.0f} s of a {self.budget:.0f} s budget")
        if st.get("cut_phase"):
            print(f"the budget ended the search (in its {st['cut_phase']} phase): the same "
                  "command with a larger --budget goes on from there")
        if self.args.driver:
            print("times and max RSS: the driver's measured program (its last line)")
        if not self.launcher:
            print("max RSS: bench/runstat could not be built, so a run's max RSS is at least "
                  "this process's size (Linux keeps a forked process's high-water mark)")
        print(f"glibc: {fmt_seconds(ref['seconds'])}, max RSS {fmt_kib(int(ref['rss_kib']))} "
              "(median of 2)\n")
        print("Candidates (median of the runs; [min, max]):")
        print(f"  {'#':>3}  {'status':<8} {'runs':>4}  {'time':>22}  {'max RSS':>26}  what")
        for spec, c in sorted(cands.items(), key=lambda kv: kv[1]["id"]):
            runs = c["runs"]
            if runs:
                ts = [r["seconds"] for r in runs]
                rs = [r["rss_kib"] for r in runs]
                t = f"{fmt_seconds(statistics.median(ts))} [{min(ts):.3f}, {max(ts):.3f}]"
                r = f"{fmt_kib(int(statistics.median(rs)))} [{min(rs)}, {max(rs)} KiB]"
            else:
                t = r = "-"
            mark = "winner" if spec == st["incumbent"] else c["status"]
            print(f"  {c['id']:>3}  {mark:<8} {len(runs):>4}  {t:>22}  {r:>26}  {c['origin']}")
        self.print_dropped(sys.stdout)
        if st["steps"]:
            print("\nSteps from the best ready instance (each a neighbour that won its race):")
        for step in st["steps"]:
            print(f"  #{cands[step['to']]['id']}: {step['move']}")
        self.pareto()
        winner = st["incumbent"]
        print(f"\nWinner (#{cands[winner]['id']}, {cands[winner]['origin']}):\n  {winner}")
        self.final_report()
        return winner

    def print_dropped(self, to: IO[str]) -> None:
        dropped = sorted((c for c in self.state["candidates"].values()
                          if c["status"] == "dropped"), key=lambda c: c["id"])
        if dropped:
            print("\nDropped (never picked):", file=to)
        for c in dropped:
            print(f"  #{c['id']} {c['origin']}: {c['why']}", file=to)

    def pareto(self) -> None:
        cands = self.state["candidates"]
        points = [(spec,) + self.medians(c["runs"]) for spec, c in cands.items()
                  if c["runs"] and c["status"] != "dropped"]
        front = pareto_front(points)
        print("\nPareto front of time and max RSS (medians; no other candidate is better "
              "in both):")
        print(f"  {'#':>3}  {'time':>10}  {'max RSS':>12}  model line")
        by_spec = {p[0]: p for p in points}
        for spec in front:
            _, t, r = by_spec[spec]
            print(f"  {cands[spec]['id']:>3}  {fmt_seconds(t):>10}  {fmt_kib(int(r)):>12}  {spec}")
        svg_path = self.state_dir / f"tune-{self.key}-pareto.svg"
        svg_path.write_text(self.pareto_svg(points, front))
        print(f"  plot: {svg_path}")

    def pareto_svg(self, points: List[Tuple[str, float, float]], front: list[str]) -> str:
        sys.path.insert(0, str(self.paths.tools))
        from bench_lib import svg
        by_spec = {p[0]: p for p in points}
        series = [("Pareto front", [(by_spec[s][1], by_spec[s][2] / 1024) for s in front]),
                  ("other candidates", [(t, r / 1024) for s, t, r in points if s not in front])]
        for label, runs in self.state["final"].items():
            if label != "winner" and runs:
                t, r = self.medians(runs)
                series.append((label, [(t, r / 1024)]))
        t, r = by_spec[self.state["incumbent"]][1:]
        series.append(("winner", [(t, r / 1024)]))
        return svg.line_chart("mortise tune: time and max RSS of the candidates",
                              "wall time (s, median)", "max RSS (MiB, median)", series,
                              note=shlex.join(self.command),
                              markers_only={label for label, _ in series[1:]})

    def final_report(self) -> None:
        final = self.state["final"]
        if "winner" not in final or not final["winner"]:
            return
        won = [r for r in final["winner"] if r["ok"]] or final["winner"]
        wt, wr = self.medians(won)
        print(f"\nFinal round ({self.args.final_runs} runs each, interleaved; medians; "
              f"each ratio judged by the rank test at p < {self.args.alpha:g}):")
        print(f"  {'':<20} {'time':>10} {'max RSS':>12}  {'winner/this time':>24}  "
              f"{'winner/this RSS':>24}")
        for label, runs in final.items():
            bad = sum(1 for r in runs if not r["ok"])
            ok = [r for r in runs if r["ok"]] or runs
            t, r = self.medians(ok)
            note = f"  ({bad} runs failed)" if bad else ""
            if label == "winner":
                cmp_t = cmp_r = ""
            else:
                cmp_t = self.verdict_of([w["seconds"] for w in won], [o["seconds"] for o in ok],
                                        ("faster", "slower"))
                cmp_r = self.verdict_of([w["rss_kib"] for w in won], [o["rss_kib"] for o in ok],
                                        ("smaller", "larger"))
            print(f"  {label:<20} {fmt_seconds(t):>10} {fmt_kib(int(r)):>12}  "
                  f"{wt / t:>8.3f} {cmp_t:<15}  {wr / max(1, r):>8.3f} {cmp_r:<15}{note}")
        if self.state["best_instance"] == self.state["incumbent"]:
            print("  (the winner is the best ready instance: no neighbour beat it)")
        for name in self.missing_peers:
            print(f"  {name}: not installed, left out")


def cmd_tune(args: argparse.Namespace, paths: Paths, cli: types.ModuleType) -> int:
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        raise cli.Failure("mortise tune: no command (mortise tune [options] -- command args...)", 2)
    args.command = command
    try:
        if args.min_runs < 2 or args.max_runs < args.min_runs or args.final_runs < 1 or \
                not 0 < args.alpha < 1:
            raise ValueError("--min-runs must be at least 2, --max-runs at least --min-runs, "
                             "--final-runs at least 1, --alpha between 0 and 1")
        for bad in set(args.slots.split(",") if args.slots else ()) - \
                set(TUNED_SLOTS) - set(SAFE_SLOTS):
            raise ValueError(f"--slots: '{bad}' is not a slot tune varies "
                             f"({', '.join(TUNED_SLOTS + SAFE_SLOTS)})")
        tuner = Tuner(args, paths, cli)
    except ValueError as e:
        raise cli.Failure(f"mortise tune: {e}", 2)
    try:
        if tuner.load():
            more = tuner.resume_cut()
            print(f"mortise tune: resuming {tuner.state_file} ({tuner.state['phase']}, "
                  f"{tuner.state['elapsed']:.0f} s spent"
                  + ("; the budget had cut it short" if more else "") + ")", file=sys.stderr)
    except TuneError as e:
        raise cli.Failure(str(e), 2)
    try:
        tuner.search()
    except TuneError as e:
        tuner.save()
        tuner.print_dropped(sys.stderr)
        raise cli.Failure(str(e), 2)
    except KeyboardInterrupt:
        tuner.save()
        raise cli.Failure(f"\nmortise tune: interrupted; run the same command again to "
                          f"resume ({tuner.state_file})", 130)
    winner = tuner.report()
    comp = check(tuner.reg, winner)
    cli.build_files(paths, gen.composition_c(comp, origin="mortise tune"), args.output,
                    libs=cli.layer_libs(comp))
    print(f"\nbuilt: {args.output}  (mortise build {shlex.quote(winner)} -o {args.output})")
    return 0


def add_parser(sub: Any, cli: types.ModuleType) -> None:
    t = sub.add_parser(
        "tune", help="search the compositions for the one a program runs best on",
        description="Run COMMAND on the C library's malloc, then on the ready instances "
        "and, from the best of them, on compositions one slot away (size classes, slab "
        "and cache sizes, sync policies, large-block keep and decay, affinity pools on "
        "or off; with --safe the safety layers' slots), with the values the headers "
        "give; keep what improves. Runs are interleaved; a candidate is out when a rank "
        "test puts its runs above the leader's (p < --alpha; docs/tune.md). Every candidate's "
        "standard output and exit status must equal glibc's (or --check must pass). "
        "Prints the candidates, the Pareto front of time and max RSS (and an SVG), "
        "the winner's model line and its ratios to glibc, the best ready instance and "
        "the installed peers, and builds it (-o). Results are kept in --state: the same command "
        "run again resumes. Exit status: 0 done, 2 the search could not run.")
    t.add_argument("command", nargs=cli.argparse.REMAINDER, metavar="-- COMMAND ARGS")
    t.add_argument("--objective", choices=OBJECTIVES, default="time",
                   help="time: wall time of a run; rss: the child's max RSS (wait4); "
                   "time+rss: time/glibc's time + WEIGHT × max RSS/glibc's max RSS "
                   "(default time)")
    t.add_argument("--weight", type=float, default=1.0,
                   help="the max RSS term's weight in time+rss (default 1)")
    t.add_argument("--max-rss", metavar="SIZE",
                   help="constraint: a candidate whose max RSS is over SIZE (e.g. 200MB) "
                   "in every run is out")
    t.add_argument("--safe", action="store_true",
                   help="search safe compositions only: start from the instances with a "
                   "safety layer or link checks, vary the safety slots, never drop them")
    t.add_argument("--single-thread", action="store_true",
                   help="the program has one thread: sync=none is a candidate too")
    t.add_argument("--check", metavar="CMD",
                   help="judge a run's output with CMD instead of comparing it with glibc's: "
                   "the shell runs CMD with the output file's path appended (or in place "
                   "of {}); exit 0 passes. $MORTISE_TUNE_SPEC is the candidate's model "
                   "line, $MORTISE_TUNE_REFERENCE glibc's output")
    t.add_argument("--driver", action="store_true",
                   help="COMMAND is a benchmark driver (bench/programs/NAME.sh): the "
                   f"candidate's library goes in ${DRIVER_PRELOAD}, not LD_PRELOAD, and "
                   "a run's time and max RSS are those of its last line, `ok wall_s=S "
                   "maxrss_kb=K ...`; a run whose last line is not `ok ...` is dropped "
                   "(the driver checks its program's results)")
    t.add_argument("--timeout", type=float, metavar="SECONDS",
                   help="a run longer than this hangs and is dropped (default 10 × glibc's "
                   "time, at least 5 s)")
    t.add_argument("--budget", default="10m",
                   help="time for the search, over all resumed sessions: 90s, 10m, 1h "
                   "(default 10m); enough is kept for the final round")
    t.add_argument("--state", default=".mortise-tune", metavar="DIR",
                   help="where the results are kept (default .mortise-tune in the "
                   "current directory): tune-KEY.json, the outputs, the plot")
    t.add_argument("--fresh", action="store_true", help="forget the results kept for this search")
    t.add_argument("--instances", metavar="A,B",
                   help="start from these ready instances only (default: every malloc "
                   "instance without measuring layers or predicates)")
    t.add_argument("--slots", metavar="S,T",
                   help=f"vary only these (default {','.join(TUNED_SLOTS)}; with --safe "
                   f"also {','.join(SAFE_SLOTS)})")
    t.add_argument("--min-runs", type=int, default=5,
                   help="runs before a candidate can be judged (default 5; at least 2)")
    t.add_argument("--max-runs", type=int, default=12,
                   help="runs after which candidates without a clear difference retire "
                   "(default 12; at least --min-runs)")
    t.add_argument("--alpha", type=float, default=0.01,
                   help="the rank test's level: a candidate is out, a neighbour replaces "
                   "the incumbent, a final ratio is beyond the noise when p < ALPHA "
                   "(default 0.01)")
    t.add_argument("--final-runs", type=int, default=7,
                   help="runs of each in the final round (default 7)")
    t.add_argument("-o", dest="output", default="libtuned.so", metavar="LIB.so",
                   help="where to build the winner (default libtuned.so)")
    t.set_defaults(fn=lambda args, paths: cmd_tune(args, paths, cli))

"""Running one measurement: a child process under an allocator, timed, its
maximum RSS taken from wait4's rusage, its output checked.

Protocol of a benchmark program (bench/workloads, bench/programs, ...): it
verifies its own result and prints as its last stdout line either
    ok [key=value ...]          (exit status 0)
    FAIL <reason>               (exit status 1)
Keys the harness knows in the ok line: wall_s and maxrss_kb, when the program
measured the process that matters itself (a driver that starts a server and
a client reports the server's numbers); they replace the harness's own
measurement of the whole child. Other keys are kept as metrics
(loops_per_sec=..., rss_kb=...).
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import IO, Any, Dict, Optional, Tuple, Union

OK, FAILED, CRASHED, TIMEOUT = "ok", "failed", "crashed", "timeout"
# stdout → (status, detail, metrics): parse_ok_line, or a benchmark's own
Verdict = Tuple[str, str, Dict[str, str]]
Check = Callable[[str], Verdict]


class RunResult:
    def __init__(self, status: str, wall_s: float, maxrss_kb: int, detail: str = "",
                 metrics: dict[str, str] | None = None, source: str = "wait4") -> None:
        self.status = status          # ok | failed | crashed | timeout
        self.wall_s = wall_s          # seconds (driver-reported when source == "driver")
        self.maxrss_kb = maxrss_kb    # KiB
        self.detail = detail          # why it failed, or the ok line's summary
        # key=value pairs of the ok line; the harness adds numbers (wcet percentiles)
        self.metrics: dict[str, Any] = metrics or {}
        self.source = source          # wait4 | driver
        self.cpu_s: float | None = None             # user + system seconds of the program (runstat)

    @property
    def ok(self) -> bool:
        return self.status == OK


def parse_ok_line(stdout: str) -> Verdict:
    """(status, detail, metrics) from a program's stdout by the protocol above."""
    lines = [l.strip() for l in stdout.splitlines() if l.strip()]
    if not lines:
        return FAILED, "no output (expected a final 'ok' line)", {}
    last = lines[-1]
    words = last.split()
    if words[0] == "ok":
        metrics: dict[str, str] = {}
        for w in words[1:]:
            if "=" in w:
                k, v = w.split("=", 1)
                metrics[k] = v
        return OK, " ".join(words[1:]), metrics
    if words[0] == "FAIL":
        return FAILED, last, {}
    return FAILED, "last line is not 'ok ...': %s" % last[:200], {}


def signal_name(num: int) -> str:
    try:
        return signal.Signals(num).name
    except ValueError:
        return "signal %d" % num


def tail(path: str, limit: int = 1500) -> str:
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - limit))
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""


def run_once(argv: Sequence[str], env: Mapping[str, str], timeout: float, workdir: str, preload: str | None = None,
             launcher: str | None = None, check: Check | None = None) -> RunResult:
    """Run argv once with LD_PRELOAD=preload (None: the system malloc);
    returns a RunResult. Never raises on the child's failure: a crash, a
    non-zero exit, a timeout or a wrong output is a result.

    launcher: the runstat program (bench/runstat), which forks the program
    from a small process, so its maximum RSS is its own, not the harness's
    (see runstat.c), and measures wall time and wait4's rusage. Without it
    the harness forks the program itself and the RSS has the harness's
    size as a floor. The launcher leads its own process group, so a timeout
    kills everything the program started, and leftovers are killed after.
    check: parses stdout into (status, detail, metrics); parse_ok_line when None.
    """
    os.makedirs(workdir, exist_ok=True)
    out_path, err_path = os.path.join(workdir, "stdout"), os.path.join(workdir, "stderr")
    stat_path = os.path.join(workdir, "runstat")
    env = dict(env)
    env.pop("LD_PRELOAD", None)
    if launcher:
        argv = [launcher, stat_path, preload or "", "--"] + list(argv)
        if os.path.exists(stat_path):
            os.unlink(stat_path)
    elif preload:
        env["LD_PRELOAD"] = preload
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        start = time.monotonic()
        try:
            proc = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                    start_new_session=True)
        except OSError as e:
            return RunResult(FAILED, 0.0, 0, "cannot start %s: %s" % (argv[0], e))
        timed_out = threading.Event()

        def kill_group() -> None:
            timed_out.set()
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

        timer = threading.Timer(timeout, kill_group)
        timer.daemon = True
        timer.start()
        status: int       # set by the wait4 the loop ends with (or it raises)
        while True:
            try:
                _, status, rusage = os.wait4(proc.pid, 0)
                break
            except InterruptedError:
                continue
            except KeyboardInterrupt:  # the child has its own session: Ctrl-C must end it too
                kill_group()
                timer.cancel()
                os.waitpid(proc.pid, 0)
                proc.returncode = -signal.SIGKILL
                raise
        wall = time.monotonic() - start
        timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # leftovers (a server the driver did not stop)
        except (ProcessLookupError, PermissionError):
            pass
    maxrss, cpu = rusage.ru_maxrss, rusage.ru_utime + rusage.ru_stime
    if timed_out.is_set():
        return RunResult(TIMEOUT, wall, maxrss, "killed after %g s" % timeout)
    if launcher:
        if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 127:
            return RunResult(FAILED, wall, 0, "cannot start %s%s" % (argv[4], stderr_hint(err_path)))
        try:
            with open(stat_path) as f:
                fields = dict(w.split("=", 1) for w in f.read().split())
            status, wall, maxrss = int(fields["status"]), float(fields["wall_s"]), int(fields["maxrss_kb"])
            cpu = float(fields["utime_s"]) + float(fields["stime_s"])
        except (OSError, ValueError, KeyError) as e:
            return RunResult(FAILED, wall, maxrss, "launcher failed (%s)%s" % (e, stderr_hint(err_path)))
    result = classify(status, wall, maxrss, out_path, err_path, check)
    if result.source == "wait4":
        result.cpu_s = cpu
    return result


def classify(status: int, wall: float, maxrss: int, out_path: str, err_path: str,
             check: Check | None) -> RunResult:
    """The RunResult of a program that ended with wait status `status`."""
    stdout = tail(out_path, 4000)
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        return RunResult(CRASHED, wall, maxrss, "killed by %s%s" % (signal_name(sig), stderr_hint(err_path)))
    verdict, detail, metrics = (check or parse_ok_line)(stdout)
    code = os.WEXITSTATUS(status)
    if code != 0:
        why = detail if verdict == FAILED and detail.startswith("FAIL") else ""
        # 128+N is how a shell reports a child killed by signal N
        if code > 128 and code - 128 < 65 and not why:
            return RunResult(CRASHED, wall, maxrss, "exit %d (%s in a child)%s"
                             % (code, signal_name(code - 128), stderr_hint(err_path)))
        return RunResult(FAILED, wall, maxrss, "exit %d%s" % (code, ": " + why if why else stderr_hint(err_path)))
    if verdict != OK:
        return RunResult(FAILED, wall, maxrss, detail)
    result = RunResult(OK, wall, maxrss, detail, metrics)
    try:
        if "wall_s" in metrics:
            result.wall_s, result.source = float(metrics["wall_s"]), "driver"
        if "maxrss_kb" in metrics:
            result.maxrss_kb, result.source = int(float(metrics["maxrss_kb"])), "driver"
    except ValueError:
        return RunResult(FAILED, wall, maxrss, "malformed ok line: %s" % detail)
    return result


def stderr_hint(err_path: str) -> str:
    last = [l for l in tail(err_path, 600).splitlines() if l.strip()]
    return (": " + last[-1].strip()[:160]) if last else ""


class Progress:
    """The live progress line: benchmark × allocator, run n/N, done/total, ETA.

    On a terminal one line is rewritten in place (finished failures stay as
    their own lines); otherwise each finished run prints one plain line, so
    a log file reads top to bottom.
    """

    def __init__(self, total: int, stream: IO[str], tty: bool | None = None) -> None:
        self.total, self.stream = total, stream
        self.tty = stream.isatty() if tty is None else tty
        self.done, self.start = 0, time.monotonic()
        self.width = 0

    @staticmethod
    def clock(seconds: float) -> str:
        seconds = max(0, int(round(seconds)))
        h, rest = divmod(seconds, 3600)
        m, s = divmod(rest, 60)
        return "%d:%02d:%02d" % (h, m, s) if h else "%d:%02d" % (m, s)

    def label(self, bench: str, alloc: str, run: int, runs: int) -> str:
        return "[%*d/%d] %s × %s run %d/%d" % (len(str(self.total)), self.done + 1, self.total,
                                               bench, alloc, run, runs)

    def starting(self, bench: str, alloc: str, run: int, runs: int, eta: float) -> None:
        if not self.tty:
            return
        line = "%s  elapsed %s  ETA %s" % (self.label(bench, alloc, run, runs),
                                           self.clock(time.monotonic() - self.start), self.clock(eta))
        line = line[:shutil.get_terminal_size().columns - 1]  # a wrapped line cannot be rewritten
        pad = max(0, self.width - len(line))
        self.stream.write("\r" + line + " " * pad)
        self.stream.flush()
        self.width = len(line)

    def finished(self, bench: str, alloc: str, run: int, runs: int, result: RunResult, eta: float) -> None:
        label = self.label(bench, alloc, run, runs)
        self.done += 1
        what = "%.3f s %d KB %s" % (result.wall_s, result.maxrss_kb, result.status)
        if not result.ok:
            what += " (%s)" % result.detail
        if self.tty:
            if not result.ok:
                self.stream.write("\r" + " " * self.width + "\r" + label + ": " + what + "\n")
                self.width = 0
            self.stream.flush()
            return
        self.stream.write("%s: %s | ETA %s\n" % (label, what, self.clock(eta)))
        self.stream.flush()

    def close(self) -> None:
        if self.tty and self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()
            self.width = 0


class Estimator:
    """Expected duration of the runs still to do: the mean of the finished runs
    of the same benchmark, else of the same family (workloads, programs, ...),
    else the family's prior guess, else the mean of all finished runs."""

    def __init__(self, guess: float = 1.0, priors: dict[str | None, float] | None = None) -> None:
        self.by_bench: dict[str, list[float]] = {}
        self.by_family: dict[str | None, list[float]] = {}
        self.all: list[float] = []
        self.guess, self.priors = guess, priors or {}

    def add(self, bench: str, seconds: float, family: str | None = None) -> None:
        self.by_bench.setdefault(bench, []).append(seconds)
        self.by_family.setdefault(family, []).append(seconds)
        self.all.append(seconds)

    def expect(self, bench: str, family: str | None = None) -> float:
        xs = self.by_bench.get(bench) or self.by_family.get(family)
        if not xs and family in self.priors:
            return self.priors[family]
        xs = xs or self.all
        return sum(xs) / len(xs) if xs else self.guess

    def remaining(self, items: Iterable[Union[str, Tuple[str, Optional[str]]]]) -> float:
        """items: benchmark names, or (name, family) pairs."""
        return sum(self.expect(*i) if isinstance(i, tuple) else self.expect(i) for i in items)

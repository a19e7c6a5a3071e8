#!/usr/bin/env python3
"""Real programs as benchmarks: one measured run of redis-server, python3,
sqlite3 or gcc under the allocator in MORTISE_BENCH_PRELOAD, its result
checked, its own wall time and maximum RSS reported.

    drive.py NAME [-t THREADS] [-s SCALE]       (bench/programs/NAME.sh)

Environment: MORTISE_BENCH_PRELOAD (library to preload into the measured
program only; empty: the system malloc), MORTISE_BENCH_WORK (scratch
directory; generated inputs and expected results are cached there, so the
runs after the first one measure the program, not the generator),
MORTISE_BENCH_RUNSTAT (bench/runstat, which launches the measured program;
without it this driver forks the program and the RSS has the driver's size
as a floor). The inputs and checks are those of the conformance suite's
real-program tests (tests/suites/programs/run_program.py), scaled by -s.

Last stdout line: `ok wall_s=S maxrss_kb=K ...` for the measured program
(tools/bench.py takes these instead of its own numbers for the driver), or
`FAIL <reason>` with exit status 1.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "suites", "programs"))
import run_program as rp  # noqa: E402

TIMEOUT = 600


class Fail(Exception):
    pass


def cached(work, key, make):
    """make() once per scratch directory and key (a JSON-able value)."""
    path = os.path.join(work, "cache-%s.json" % key)
    if os.path.exists(path):
        with open(path) as f:
            return json.load(f)
    value = make()
    tmp = path + ".%d" % os.getpid()
    with open(tmp, "w") as f:
        json.dump(value, f)
    os.replace(tmp, path)
    return value


class Measured:
    """The measured program, started through runstat with the preload."""

    def __init__(self, argv, work, env=None, stdin=None, stdout=None):
        self.stat = os.path.join(work, "runstat.%d" % os.getpid())
        if os.path.exists(self.stat):
            os.unlink(self.stat)
        preload = os.environ.get("MORTISE_BENCH_PRELOAD", "")
        launcher = os.environ.get("MORTISE_BENCH_RUNSTAT", "")
        e = dict(os.environ if env is None else env)
        e.pop("LD_PRELOAD", None)
        if launcher:
            argv = [launcher, self.stat, preload, "--"] + argv
        elif preload:
            e["LD_PRELOAD"] = preload
        self.launcher = launcher
        self.out = stdout or tempfile.TemporaryFile("w+")
        self.err = tempfile.TemporaryFile("w+")
        self.start = time.monotonic()
        self.proc = subprocess.Popen(argv, env=e, stdin=stdin or subprocess.DEVNULL, stdout=self.out,
                                     stderr=self.err, text=True)

    def wait(self, timeout=TIMEOUT):
        """(wait status, wall s, max RSS KB, stdout, stderr) of the program."""
        try:
            _, status, ru = os.wait4(self.proc.pid, 0) if timeout is None else self._wait(timeout)
        finally:
            self.proc.returncode = 0
        wall, rss = time.monotonic() - self.start, ru.ru_maxrss
        if self.launcher:
            with open(self.stat) as f:
                fields = dict(w.split("=", 1) for w in f.read().split())
            status, wall, rss = int(fields["status"]), float(fields["wall_s"]), int(fields["maxrss_kb"])
            os.unlink(self.stat)
        self.out.seek(0)
        self.err.seek(0)
        return status, wall, rss, self.out.read(), self.err.read()

    def _wait(self, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            pid, status, ru = os.wait4(self.proc.pid, os.WNOHANG)
            if pid:
                return pid, status, ru
            time.sleep(0.05)
        self.proc.kill()
        raise Fail("timed out after %d s" % timeout)


def expect(cond, what, detail=""):
    if not cond:
        raise Fail(what + ((": " + " ".join(detail.split())[-300:]) if detail else ""))


def exited_zero(status, what, err):
    expect(os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, "%s: wait status %d" % (what, status), err)


# ---------------------------------------------------------------- programs --

def bench_python(a, work):
    import py_workload
    n = int(100000 * a.scale)
    want = cached(work, "python-%d" % n, lambda: py_workload.run(n))
    env = dict(os.environ, PYTHONMALLOC="malloc", PYTHONHASHSEED="0")
    m = Measured([rp.python3(), os.path.join(ROOT, "tests", "suites", "programs", "py_workload.py"), str(n)], work, env)
    status, wall, rss, out, err = m.wait()
    exited_zero(status, "python3", err)
    expect(out.strip() == "checksum %d" % want, "python3 printed %r, expected checksum %d" % (out.strip()[:80], want))
    return wall, rss, "objects=%d" % n


def bench_sqlite(a, work):
    rows = int(30000 * a.scale)

    def make():
        rp.SQL_ROWS = rows
        return rp.gen_sql()
    script, want = cached(work, "sqlite-%d" % rows, make)
    sql = os.path.join(work, "sqlite-%d.sql" % rows)
    if not os.path.exists(sql):
        with open(sql, "w") as f:
            f.write(script)
    db = os.path.join(work, "bench-%d.db" % os.getpid())
    if os.path.exists(db):
        os.unlink(db)
    with open(sql) as stdin:
        status, wall, rss, out, err = Measured([rp.need("sqlite3"), "-bail", db], work, stdin=stdin).wait()
    os.unlink(db)
    exited_zero(status, "sqlite3", err)
    got = out.strip().split("\n")
    expect(got == want, "sqlite3 results differ from the expected %d lines" % len(want), out[-300:])
    return wall, rss, "rows=%d" % rows


def bench_gcc(a, work):
    nfuncs = int(150 * a.scale)
    src, want = cached(work, "gcc-%d" % nfuncs, lambda: rp.gen_c_program(nfuncs, 20240501))
    cfile = os.path.join(work, "gcc-%d.c" % nfuncs)
    if not os.path.exists(cfile):
        with open(cfile, "w") as f:
            f.write(src)
    exe = os.path.join(work, "gcc-%d.%d" % (nfuncs, os.getpid()))
    status, wall, rss, out, err = Measured([rp.need("gcc"), "-O2", "-g", "-o", exe, cfile], work).wait()
    exited_zero(status, "gcc", err)
    r = rp.run([exe])  # the compiled program, checked on the system malloc
    os.unlink(exe)
    expect(r.returncode == 0 and r.stdout.strip() == want, "compiled program printed %r, expected %r"
           % (r.stdout.strip()[:80], want), r.stderr)
    return wall, rss, "functions=%d" % nfuncs


REDIS_TESTS = "set,get,incr,lpush,rpush,lpop,rpop,sadd,hset,spop,zadd,lrange_100,mset"


def bench_redis(a, work):
    server, cli, bench = rp.need("redis-server"), rp.need("redis-cli"), rp.need("redis-benchmark")
    requests = int(20000 * a.scale)
    for attempt in range(5):
        port = rp.free_port()
        log = os.path.join(work, "redis-%d.log" % os.getpid())
        m = Measured([server, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                      "--dir", work, "--daemonize", "no", "--logfile", log], work)
        up = False
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and m.proc.poll() is None:
            if rp.run([cli, "-h", "127.0.0.1", "-p", str(port), "ping"], timeout=10).stdout.strip() == "PONG":
                up = True
                break
            time.sleep(0.1)
        if up:
            break
        m.proc.kill()
        m.wait(None) if m.proc.returncode is None else None
        text = open(log).read() if os.path.exists(log) else ""
        expect("Address already in use" in text, "redis-server did not start", text[-300:])
    else:
        raise Fail("redis-server: no free port after 5 tries")
    try:
        t0 = time.monotonic()
        r = rp.run([bench, "-h", "127.0.0.1", "-p", str(port), "-n", str(requests), "-c", str(max(4, 2 * a.threads)),
                    "-P", "8", "-r", "10000", "-d", "64", "-q", "-t", REDIS_TESTS], timeout=TIMEOUT)
        wall = time.monotonic() - t0
        done = [l.split("\r")[-1] for l in r.stdout.replace("\r", "\n").splitlines() if "requests per second" in l]
        expect(r.returncode == 0, "redis-benchmark failed", r.stderr)
        for name in REDIS_TESTS.upper().split(","):
            expect(any(l.strip().startswith(name) for l in done), "redis-benchmark did not complete " + name,
                   r.stdout[-300:])
        expect("error" not in (r.stdout + r.stderr).lower(), "redis-benchmark reported an error", r.stdout[-300:])
        r = rp.run([cli, "-h", "127.0.0.1", "-p", str(port), "dbsize"])
        expect(r.stdout.strip().isdigit() and int(r.stdout) > 0, "DBSIZE after the benchmark", r.stdout)
        keys = int(r.stdout)
        rp.run([cli, "-h", "127.0.0.1", "-p", str(port), "shutdown", "nosave"])
    except BaseException:
        m.proc.kill()
        raise
    status, _, rss, _, err = m.wait(60)
    exited_zero(status, "redis-server shutdown", err)
    return wall, rss, "requests=%d keys=%d" % (requests * len(REDIS_TESTS.split(",")), keys)


PROGRAMS = {"python": bench_python, "sqlite": bench_sqlite, "gcc": bench_gcc, "redis": bench_redis}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("name", choices=sorted(PROGRAMS))
    ap.add_argument("-t", "--threads", type=int, default=os.cpu_count() or 2)
    ap.add_argument("-s", "--scale", type=float, default=1.0)
    a = ap.parse_args()
    work = os.environ.get("MORTISE_BENCH_WORK") or os.path.join(tempfile.gettempdir(), "mortise-bench-programs")
    os.makedirs(work, exist_ok=True)
    try:
        wall, rss, what = PROGRAMS[a.name](a, work)
    except (Fail, rp.Missing, subprocess.TimeoutExpired, OSError) as e:
        print("FAIL %s: %s" % (a.name, e), flush=True)
        return 1
    print("ok wall_s=%.4f maxrss_kb=%d %s" % (wall, rss, what), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""A benchmark driver as `mortise tune --driver` expects one (the protocol of
bench/programs/drive.py), for tests/tools/test_tune.py: runs PROGRAM ARGS
with $MORTISE_BENCH_PRELOAD preloaded into it alone, checks its output and
prints `ok wall_s=S maxrss_kb=K` for the program, or `FAIL <reason>`.

The check: the program's last line is a number, and with --usable its
first line is "rounded" (a block's usable size as glibc's, not exact).
The driver itself must not run preloaded.
"""
import os
import subprocess
import sys
import time


def main() -> int:
    if os.environ.get("LD_PRELOAD"):
        print("FAIL the driver itself runs under LD_PRELOAD")
        return 1
    env = dict(os.environ)
    if os.environ.get("MORTISE_BENCH_PRELOAD"):
        env["LD_PRELOAD"] = os.environ["MORTISE_BENCH_PRELOAD"]
    start = time.monotonic()
    proc = subprocess.Popen(sys.argv[1:], env=env, stdout=subprocess.PIPE, text=True)
    out = proc.stdout.read() if proc.stdout else ""
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = 0
    wall = time.monotonic() - start
    lines = out.split()
    if status != 0 or not lines or not lines[-1].isdigit():
        print("FAIL the program ended with status %d, printed %r" % (status, out[-80:]))
        return 1
    if "--usable" in sys.argv and lines[0] != "rounded":
        print("FAIL usable size %s, glibc's is rounded" % lines[0])
        return 1
    print("driver's own words")
    print("ok wall_s=%.4f maxrss_kb=%d blocks=16000" % (wall, usage.ru_maxrss))
    return 0


if __name__ == "__main__":
    sys.exit(main())

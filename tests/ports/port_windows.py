#!/usr/bin/env python3
"""The Windows port, cross-built with mingw-w64 and run under wine
(docs/portability.md).

    port_windows.py --source SRC --tree TREE PART

PART is one of
  build        configure TREE with cmake/toolchains/x86_64-w64-mingw32.cmake
               and build what the top CMakeLists.txt builds for Windows: each
               Windows instance as lib/libmortise-NAME.a (replaces malloc) and
               bin/libmortise-NAME.dll (mt_malloc, mt_free, ...), the
               conformance program against each, the bad-input corpus against
               the safety instances
  conformance  tests/ports/windows/conf_windows.c, cases pal api threads churn
               trim order, for every instance, statically linked and through
               the DLL (fork has no Windows counterpart), and commit for the
               instances in COMMIT_ON_DEMAND
  badinput     the bad-input corpus (tests/suites/badinput/run_case.py --wine)
               under wfslabs, hslabd and tlsfccsd; free_mmap and
               underflow_far_aligned need mmap and mincore and are not built

wine runs with its own prefix in TREE/wineprefix (made by the first run,
slow) and WINEDEBUG=-all; one wineserver is kept up for the whole part so
that each program does not pay wine's start-up. Exit 77 (ctest: skipped)
when mingw-w64 or wine is missing, unless MORTISE_REQUIRE_PORTS=1, then 1.
"""
import argparse
import os
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

TRIPLE = "x86_64-w64-mingw32"
SKIPPED = 77
JOBS = 2
RUN_TIMEOUT = 300
# RelWithDebInfo's -O2 -DNDEBUG without its -g: nothing here reads debug
# information, and it is a good part of the cross compile and link
NO_DEBUG_INFO = ["-DCMAKE_%s_FLAGS_RELWITHDEBINFO=-O2 -DNDEBUG" % lang for lang in ("C", "CXX")]
# Debian installs wine64 outside PATH.
WINE_CANDIDATES = ["/usr/lib/wine/wine64", "wine64"]
INSTANCES = "wfslab hslab hslabva tlsfcc wfslabs hslabd tlsfccsd".split()
CASES = "pal api threads churn trim order".split()
# The commit case (the commit charge returns after malloc_trim) for the
# instances whose OS layer decommits what is freed: virtual_alloc_heap and
# brk_heap's emulated break. mmap_heap's freed chunks stay committed on
# Windows (mt_pal_advise_dontneed decommits and commits again), so the
# instances over it do not pass it (docs/portability.md).
COMMIT_ON_DEMAND = {"hslabva", "tlsfcc", "tlsfccsd"}
SAFETY = {"wfslabs": ("tail", "*=report"), "hslabd": ("quarantine", "*=fatal"),
          "tlsfccsd": ("both", "tail_chksum=report,delayed_free=fatal,pagemap=fatal")}
NOT_PORTED_CASES = {"free_mmap", "underflow_far_aligned"}
# Known to differ on Windows, not yet understood (docs/portability.md):
# under tlsfccsd the damaged free block at the emulated break's end is not
# met while the program allocates (no report), and the process dies of a
# stack overflow as it exits. Left out of the run until explained.
def find_wine():
    for c in WINE_CANDIDATES:
        path = c if os.path.isabs(c) else shutil.which(c)
        if path and os.access(path, os.X_OK):
            return path
    return None


def missing_tools():
    need = [TRIPLE + "-gcc", TRIPLE + "-g++", "cmake"]
    missing = [t for t in need if not shutil.which(t)]
    if not find_wine():
        missing.append("wine64 (/usr/lib/wine/wine64)")
    return missing


def wine_env(tree):
    return dict(os.environ, WINEPREFIX=os.path.join(tree, "wineprefix"), WINEDEBUG="-all",
                WINEDLLOVERRIDES="mscoree,mshtml=")  # no Mono or Gecko installer dialogs


def run(cmd, env=None, timeout=RUN_TIMEOUT, cwd=None):
    try:
        p = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        return None, out + "\n(timed out after %d s)" % timeout


class Wine:
    """wine's prefix made (once) and its server kept up while a part runs."""

    def __init__(self, tree):
        self.wine = find_wine()
        self.server = os.path.join(os.path.dirname(self.wine), "wineserver")
        self.env = wine_env(tree)
        self.tree = tree

    def __enter__(self):
        if not shutil.which(self.server) and not os.access(self.server, os.X_OK):
            self.server = shutil.which("wineserver") or self.server
        subprocess.run([self.server, "-p"], env=self.env)  # persistent until -k
        # wine's services (winedevice.exe, ...) start here and live as long
        # as the server: they must not inherit a pipe anyone waits on
        rc = subprocess.run([self.wine, "wineboot", "-i"], env=self.env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=900).returncode
        if rc != 0:
            print("wineboot: exit %s" % rc)
        return self

    def __exit__(self, *exc):
        subprocess.run([self.server, "-k"], env=self.env)
        subprocess.run([self.server, "-w"], env=self.env, timeout=60)


def part_build(a):
    rc, out = run(["cmake", "-S", a.source, "-B", a.tree,
                   "-DCMAKE_TOOLCHAIN_FILE=" + os.path.join(a.source, "cmake/toolchains/x86_64-w64-mingw32.cmake"),
                   "-DCMAKE_BUILD_TYPE=RelWithDebInfo", *NO_DEBUG_INFO], timeout=600)
    if rc != 0:
        print(out[-3000:])
        return 1
    start = time.time()
    rc, out = run(["cmake", "--build", a.tree, "-j", str(JOBS)], timeout=1800)
    print(out[-6000:] if rc else out[-800:])
    print("build: %.0f s, exit %s" % (time.time() - start, rc))
    return 0 if rc == 0 else 1


def run_jobs(jobs):
    """jobs: (name, command, env, cwd); prints each; the number that failed."""
    def one(job):
        name, cmd, env, cwd = job
        start = time.time()
        rc, out = run(cmd, env, cwd=cwd)
        return name, rc, out, time.time() - start
    failed = 0
    with ThreadPoolExecutor(JOBS) as pool:
        for name, rc, out, took in pool.map(one, jobs):
            if rc == 0:
                print("%s: ok (%.1f s)" % (name, took))
            else:
                failed += 1
                print("%s: FAIL (exit %s, %.1f s)\n  %s" % (name, rc, took, "\n  ".join(out.splitlines()[-30:])))
    print("%d passed, %d failed" % (len(jobs) - failed, failed))
    return failed


def part_conformance(a):
    bindir = os.path.join(a.tree, "bin")
    work = os.path.join(a.tree, "conformance")
    os.makedirs(work, exist_ok=True)
    with Wine(a.tree) as w:
        jobs = []
        for name in INSTANCES:
            for form, exe in (("static", "conf-%s.exe" % name), ("dll", "conf-%s-dll.exe" % name)):
                for case in CASES + (["commit"] if name in COMMIT_ON_DEMAND else []):
                    # the DLL beside the program: Windows looks there first
                    jobs.append(("conformance.%s.%s.%s" % (name, form, case),
                                 [w.wine, os.path.join(bindir, exe), case], w.env, bindir if form == "dll" else work))
        return 1 if run_jobs(jobs) else 0


def part_badinput(a):
    driver = os.path.join(a.source, "tests/suites/badinput/run_case.py")
    table = os.path.join(a.source, "tests/suites/badinput/expected.tsv")
    cases = sorted(l.split("\t")[0] for l in open(table)
                   if l.strip() and not l.startswith("#") and not l.startswith("case\t"))
    cases = [c for c in cases if c not in NOT_PORTED_CASES]
    with Wine(a.tree) as w:
        jobs = [("badinput." + inst,
                 [sys.executable, driver, "--wine", w.wine, "--lib",
                  os.path.join(a.tree, "lib", "libmortise-%s.a" % inst), "--cases", os.path.join(a.tree, "badinput"),
                  "--kind", kind, "--modes", modes,
                  *cases], w.env, None)
                for inst, (kind, modes) in SAFETY.items()]
        return 1 if run_jobs(jobs) else 0


PARTS = {"build": part_build, "conformance": part_conformance, "badinput": part_badinput}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--source", required=True, help="the source tree")
    ap.add_argument("--tree", required=True, help="the cross build directory (e.g. build/ports/windows)")
    ap.add_argument("part", choices=sorted(PARTS))
    a = ap.parse_args()
    a.source, a.tree = os.path.abspath(a.source), os.path.abspath(a.tree)
    missing = missing_tools()
    if missing:
        print("port windows: missing %s (Debian: gcc-mingw-w64-x86-64 g++-mingw-w64-x86-64 wine64)"
              % ", ".join(missing))
        if os.environ.get("MORTISE_REQUIRE_PORTS") == "1":
            print("port windows: FAIL: MORTISE_REQUIRE_PORTS=1")
            return 1
        print("port windows: SKIPPED")
        return SKIPPED
    if a.part != "build" and not os.path.exists(os.path.join(a.tree, "bin", "conf-wfslab.exe")):
        print("port windows: %s not built (the test port.windows.build builds it)" % a.tree)
        return 1
    start = time.time()
    rc = PARTS[a.part](a)
    print("port windows %s: %s in %.0f s" % (a.part, "ok" if rc == 0 else "FAILED", time.time() - start))
    return rc


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Run one real program under LD_PRELOAD of a Mortise allocator and check that
its result is right (not just that it exited 0).

    run_program.py TEST --lib build/lib/libmortise-NAME.so --work DIR

TEST is one of: preload, python, gcc, git, sqlite, redis (see docs/testing.md).
Only the program under test runs with LD_PRELOAD (and whatever it spawns
itself: cc1/as/ld under gcc, git's helpers); this driver, the generators and
the clients (redis-benchmark, redis-cli) run on the system allocator.
A program that is missing is a failure, not a skip: CI installs them all.
Prints "N passed, N failed" at the end; exit status 0 only if all checks pass.
"""
import argparse
import os
import random
import shutil
import socket
import subprocess
import sys
import tarfile
import time

sys.dont_write_bytecode = True  # importing py_workload must not litter the source tree

HERE = os.path.dirname(os.path.abspath(__file__))
STEP_TIMEOUT = 120  # seconds for any one program run
# stderr of every run under LD_PRELOAD: a safety layer's report line
# ("mortise: <class> at ...", core/report.h) there is a false report.
PRELOADED_STDERR = []


class Checks:
    def __init__(self, name):
        self.name, self.passed, self.failed = name, 0, 0

    def check(self, cond, what, detail=""):
        if cond:
            self.passed += 1
        else:
            self.failed += 1
            print("FAIL: %s%s" % (what, ("\n  " + detail.replace("\n", "\n  ")) if detail else ""))
        return cond

    def report(self):
        print("%s: %d passed, %d failed" % (self.name, self.passed, self.failed))
        return 0 if self.failed == 0 and self.passed > 0 else 1


class Missing(Exception):
    pass


def need(prog):
    path = shutil.which(prog)
    if not path:
        raise Missing("%s not found on PATH (.ci/run installs it)" % prog)
    return path


def python3():
    """The distribution's python3 (what .ci/run installs), else PATH's."""
    override = os.environ.get("MORTISE_PYTHON")
    if override:
        return override
    return "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else need("python3")


def run(args, env=None, preload=None, timeout=STEP_TIMEOUT, **kw):
    """Run a command, with LD_PRELOAD=preload if given; returns CompletedProcess."""
    e = dict(os.environ if env is None else env)
    e.pop("LD_PRELOAD", None)
    if preload:
        e["LD_PRELOAD"] = preload
    r = subprocess.run(args, env=e, capture_output=True, text=True, timeout=timeout, **kw)
    if preload:
        PRELOADED_STDERR.append(r.stderr)
    return r


def show(proc):
    return "exit %s\nstdout: %s\nstderr: %s" % (proc.returncode, proc.stdout[-2000:], proc.stderr[-2000:])


# ---------------------------------------------------------------- preload ---

PRELOAD_PROBE = r"""
import ctypes, sys
V, Z = ctypes.c_void_p, ctypes.c_size_t
lib = ctypes.CDLL(sys.argv[1])   # the allocator itself, by path
glob = ctypes.CDLL(None)         # what the process resolves malloc & co. to
for h in (lib, glob):
    h.malloc.restype = h.calloc.restype = h.realloc.restype = h.aligned_alloc.restype = V
    h.malloc.argtypes = [Z]
    h.calloc.argtypes = [Z, Z]
    h.realloc.argtypes = [V, Z]
    h.aligned_alloc.argtypes = [Z, Z]
    h.malloc_usable_size.restype = Z
    h.malloc_usable_size.argtypes = [V]
    h.free.argtypes = [V]
    h.posix_memalign.argtypes = [ctypes.POINTER(V), Z, Z]
# A block from the process's malloc is one the library knows (its
# malloc_usable_size answers 0 for blocks it does not own).
blocks = {"malloc": glob.malloc(100), "calloc": glob.calloc(10, 10),
          "realloc": glob.realloc(None, 100), "aligned_alloc": glob.aligned_alloc(256, 512)}
out = V()
glob.posix_memalign(ctypes.byref(out), 64, 100)
blocks["posix_memalign"] = out.value
for fn, p in blocks.items():
    print(fn, "owned" if p and lib.malloc_usable_size(p) >= 100 else "FOREIGN")
    glob.free(p)
print("usable", glob.malloc_usable_size(glob.malloc(100)))
sys.stdout.flush()
glob.malloc_stats()
"""
PRELOAD_FUNCS = ("malloc", "calloc", "realloc", "aligned_alloc", "posix_memalign")


def test_preload(c, lib, work):
    py = python3()
    r = run([py, "-c", PRELOAD_PROBE, lib], preload=lib)
    c.check(r.returncode == 0, "python3 -c probe under LD_PRELOAD exits 0", show(r))
    for fn in PRELOAD_FUNCS:
        c.check("%s owned" % fn in r.stdout, "the process's %s returns blocks the library owns" % fn,
                show(r))
    usable = [int(l.split()[1]) for l in r.stdout.splitlines() if l.startswith("usable ")]
    c.check(usable and usable[0] >= 100, "malloc_usable_size(malloc(100)) >= 100", show(r))
    c.check("Mortise:" in r.stderr and "::" in r.stderr,
            "malloc_stats prints Mortise's banner (the composition) on stderr", show(r))
    # the system allocator must not print it: the check above is meaningful
    r0 = run([py, "-c", "import ctypes; ctypes.CDLL(None).malloc_stats()"])
    c.check("Mortise:" not in r0.stderr, "without LD_PRELOAD no Mortise banner", show(r0))


# ----------------------------------------------------------------- python ---

def test_python(c, lib, work):
    sys.path.insert(0, HERE)
    import py_workload
    env = dict(os.environ, PYTHONMALLOC="malloc", PYTHONHASHSEED="0")
    r = run([python3(), os.path.join(HERE, "py_workload.py")], env=env, preload=lib)
    c.check(r.returncode == 0, "python3 workload exits 0", show(r))
    c.check(r.stdout.strip() == "checksum %d" % py_workload.EXPECTED,
            "python3 workload checksum is %d" % py_workload.EXPECTED, show(r))


# -------------------------------------------------------------------- gcc ---

MASK = (1 << 64) - 1


def gen_c_program(nfuncs, seed):
    """A C program with nfuncs switch-heavy functions and a malloc-heavy main.
    Returns (source, expected stdout)."""
    rnd = random.Random(seed)
    out = ["#include <stdio.h>", "#include <stdlib.h>", "#include <string.h>",
           "#include <malloc.h>", "typedef unsigned long long u64;"]
    funcs = []
    for i in range(nfuncs):
        cases = [(rnd.randrange(1, 1 << 32), rnd.randrange(1 << 32)) for _ in range(16)]
        out.append("static u64 f%d(u64 x) {" % i)
        out.append("  switch (x % 16) {")
        for k, (a, b) in enumerate(cases):
            out.append("  case %d: return (x * %dULL) ^ %dULL;" % (k, a, b))
        out.append("  }\n  return 0;\n}")
        funcs.append(cases)
    out.append("static u64 (*const table[])(u64) = {%s};" % ", ".join("f%d" % i for i in range(nfuncs)))
    out.append(r"""
struct node { struct node *next; u64 value; size_t len; char data[]; };

int main(void)
{
    const size_t n = %d;
    struct node *head = NULL;
    u64 x = 1, sum = 0;
    for (size_t i = 0; i < 200000; i++) {
        x = table[i %% n](x + i);
        size_t len = (size_t)(x %% 1000);
        struct node *nd = malloc(sizeof *nd + len);
        if (!nd) return 2;
        nd->value = x; nd->len = len;
        memset(nd->data, (int)(x & 0xff), len);
        nd->next = head; head = nd;
        if (i %% 3 == 2) { /* drop the second node: frees out of order */
            struct node *victim = head->next;
            head->next = victim->next;
            sum += victim->value;
            for (size_t j = 0; j < victim->len; j++) sum += (unsigned char)victim->data[j];
            free(victim);
        }
    }
    u64 *grow = NULL;
    for (size_t i = 0; i < 100000; i++) {
        if ((i & (i - 1)) == 0 || i %% 1000 == 0) {
            u64 *g = realloc(grow, (i + 1000) * sizeof *g);
            if (!g) return 3;
            grow = g;
        }
        grow[i] = i * 3;
    }
    for (size_t i = 0; i < 100000; i++) sum += grow[i];
    free(grow);
    while (head) {
        struct node *nd = head; head = nd->next;
        sum += nd->value + nd->len;
        free(nd);
    }
    printf("result %%llu\n", sum);
    fflush(stdout);
    malloc_stats();
    return 0;
}
""" % nfuncs)
    # the same computation in Python
    x, sum_, lst = 1, 0, []
    for i in range(200000):
        a, b = funcs[i % nfuncs][((x + i) & MASK) % 16]
        x = (((x + i) * a) & MASK) ^ b
        ln = x % 1000
        lst.append((x, ln))
        if i % 3 == 2:
            vx, vl = lst.pop(-2)
            sum_ += vx + vl * (vx & 0xFF)
    sum_ += sum(i * 3 for i in range(100000))
    sum_ += sum(vx + vl for vx, vl in lst)
    return "\n".join(out), "result %d" % (sum_ & MASK)


def test_gcc(c, lib, work):
    gcc = need("gcc")
    src, expected = gen_c_program(300, 20240501)
    cfile, exe = os.path.join(work, "prog.c"), os.path.join(work, "prog")
    with open(cfile, "w") as f:
        f.write(src)
    r = run([gcc, "-O2", "-g", "-o", exe, cfile], preload=lib)
    if not c.check(r.returncode == 0 and os.path.exists(exe), "gcc -O2 -g compiles the program", show(r)):
        return
    r = run([exe], preload=lib)
    c.check(r.returncode == 0, "compiled program exits 0", show(r))
    c.check(r.stdout.strip() == expected, "compiled program prints %s" % expected, show(r))
    c.check("Mortise:" in r.stderr, "compiled program's malloc_stats is Mortise's", show(r))


# -------------------------------------------------------------------- git ---

def test_git(c, lib, work):
    git = need("git")
    repo = os.path.join(work, "repo")
    os.makedirs(repo)
    env = dict(os.environ, HOME=work, GIT_CONFIG_NOSYSTEM="1", GIT_AUTHOR_NAME="Mortise Test",
               GIT_AUTHOR_EMAIL="test@mortise.invalid", GIT_COMMITTER_NAME="Mortise Test",
               GIT_COMMITTER_EMAIL="test@mortise.invalid", GIT_AUTHOR_DATE="2024-01-01T00:00:00Z",
               GIT_COMMITTER_DATE="2024-01-01T00:00:00Z", LC_ALL="C")

    def g(*args):
        return run([git, "-C", repo] + list(args), env=env, preload=lib)

    rnd = random.Random(7)
    files = {}

    def write_files(count, generation):
        for i in range(count):
            path = "d%02d/f%04d.txt" % (i % 23, i)
            lines = ["gen %d file %d line %d %s" % (generation, i, k, "x" * rnd.randrange(80))
                     for k in range(rnd.randrange(1, 60))]
            files[path] = "\n".join(lines) + "\n"
            full = os.path.join(repo, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w") as f:
                f.write(files[path])

    steps = [("init", "-q", "-b", "main")]
    for cmd in steps:
        r = g(*cmd)
        c.check(r.returncode == 0, "git " + " ".join(cmd), show(r))
    subjects = []
    for gen, count in ((1, 400), (2, 250), (3, 450)):
        write_files(count, gen)
        subjects.append("commit %d" % gen)
        for cmd in (("add", "-A"), ("commit", "-q", "-m", subjects[-1])):
            r = g(*cmd)
            c.check(r.returncode == 0, "git %s (generation %d)" % (cmd[0], gen), show(r))
    r = g("log", "--format=%s")
    c.check(r.returncode == 0 and r.stdout.split("\n")[:3] == subjects[::-1],
            "git log lists the three commits newest first", show(r))
    r = g("rev-list", "--count", "HEAD")
    c.check(r.stdout.strip() == "3", "git rev-list --count HEAD is 3", show(r))
    r = g("ls-files")
    c.check(sorted(r.stdout.split()) == sorted(files), "git ls-files lists every file", show(r))
    # a threaded repack: delta compression on 2 threads, then verify everything
    r = g("-c", "pack.threads=2", "repack", "-a", "-d", "-f", "-q")
    c.check(r.returncode == 0, "git repack -a -d -f (2 threads)", show(r))
    r = g("fsck", "--full", "--strict", "--no-dangling")
    c.check(r.returncode == 0 and "error" not in r.stderr, "git fsck --full --strict is clean", show(r))
    r = g("diff", "--stat", "HEAD~2", "HEAD")
    c.check(r.returncode == 0 and "changed" in r.stdout, "git diff --stat HEAD~2 HEAD", show(r))
    # the committed tree is byte for byte what we wrote
    tar_path = os.path.join(work, "head.tar")
    r = g("archive", "-o", tar_path, "HEAD")
    c.check(r.returncode == 0, "git archive HEAD", show(r))
    if r.returncode == 0:
        with tarfile.open(tar_path) as t:
            got = {m.name: t.extractfile(m).read().decode() for m in t.getmembers() if m.isfile()}
        c.check(got == files, "git archive HEAD matches the files written (%d files)" % len(files))


# ----------------------------------------------------------------- sqlite ---

SQL_ROWS = 150000


def gen_sql():
    n = SQL_ROWS
    alpha = "abcdefghijklmnopqrstuvwxyz"
    script = """
PRAGMA cache_size = -32000;
CREATE TABLE t(id INTEGER PRIMARY KEY, grp INTEGER, val INTEGER, s TEXT);
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < %d)
INSERT INTO t SELECT i, i %% 97, (i * 7919) %% 100003,
    printf('row-%%06d-%%s', i, substr('%s', 1, 1 + i %% 26)) FROM c;
CREATE INDEX t_grp ON t(grp, val);
SELECT count(*), sum(val), max(length(s)) FROM t;
SELECT grp, count(*), sum(val) FROM t WHERE grp IN (0, 5, 96) GROUP BY grp ORDER BY grp;
SELECT length(group_concat(s, ',')) FROM t WHERE grp = 7;
DELETE FROM t WHERE val %% 3 = 0;
SELECT count(*), sum(val) FROM t;
UPDATE t SET s = s || s WHERE grp < 10;
SELECT sum(length(s)) FROM t;
CREATE TABLE u AS SELECT grp, sum(val) AS total, count(*) AS cnt FROM t GROUP BY grp;
SELECT count(*), sum(total), max(cnt) FROM u;
SELECT count(*) FROM t JOIN u ON t.grp = u.grp WHERE t.val > u.total / u.cnt;
SELECT id, s FROM t ORDER BY val DESC, id LIMIT 3;
VACUUM;
PRAGMA integrity_check;
""" % (n, alpha)
    rows = {}
    for i in range(1, n + 1):
        rows[i] = [i % 97, (i * 7919) % 100003, "row-%06d-%s" % (i, alpha[:1 + i % 26])]
    exp = []
    exp.append("%d|%d|%d" % (n, sum(r[1] for r in rows.values()), max(len(r[2]) for r in rows.values())))
    for g in (0, 5, 96):
        sel = [r for r in rows.values() if r[0] == g]
        exp.append("%d|%d|%d" % (g, len(sel), sum(r[1] for r in sel)))
    sel = [r[2] for r in rows.values() if r[0] == 7]
    exp.append("%d" % (sum(len(s) for s in sel) + len(sel) - 1))
    rows = {i: r for i, r in rows.items() if r[1] % 3 != 0}
    exp.append("%d|%d" % (len(rows), sum(r[1] for r in rows.values())))
    for r in rows.values():
        if r[0] < 10:
            r[2] = r[2] + r[2]
    exp.append("%d" % sum(len(r[2]) for r in rows.values()))
    tot, cnt = {}, {}
    for r in rows.values():
        tot[r[0]] = tot.get(r[0], 0) + r[1]
        cnt[r[0]] = cnt.get(r[0], 0) + 1
    exp.append("%d|%d|%d" % (len(tot), sum(tot.values()), max(cnt.values())))
    exp.append("%d" % sum(1 for r in rows.values() if r[1] > tot[r[0]] // cnt[r[0]]))
    top = sorted(rows.items(), key=lambda kv: (-kv[1][1], kv[0]))[:3]
    exp.extend("%d|%s" % (i, r[2]) for i, r in top)
    exp.append("ok")
    return script, exp


def test_sqlite(c, lib, work):
    sqlite3 = need("sqlite3")
    script, expected = gen_sql()
    db = os.path.join(work, "test.db")
    r = run([sqlite3, "-bail", db], preload=lib, input=script)
    c.check(r.returncode == 0 and not r.stderr, "sqlite3 runs the script without error", show(r))
    got = r.stdout.strip().split("\n")
    c.check(len(got) == len(expected), "sqlite3 prints %d result lines" % len(expected), show(r))
    for k, (g, e) in enumerate(zip(got, expected)):
        c.check(g == e, "sqlite3 result line %d is %r" % (k + 1, e), "got %r" % g)


# ------------------------------------------------------------------ redis ---

REDIS_REQUESTS = int(os.environ.get("MORTISE_REDIS_REQUESTS", "20000"))
REDIS_TESTS = "ping,set,get,incr,lpush,rpush,lpop,rpop,sadd,hset,spop,zadd,zpopmin,lrange_100,lrange_300,mset"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_redis(server, cli, lib, work, c):
    """Start redis-server under LD_PRELOAD on a free loopback port; retry if
    someone took the port in between. Returns (process, port) or (None, None)."""
    for attempt in range(5):
        port = free_port()
        log = os.path.join(work, "redis-%d.log" % attempt)
        stderr = open(os.path.join(work, "redis-%d.stderr" % attempt), "w")
        proc = subprocess.Popen(
            [server, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", work, "--daemonize", "no", "--logfile", log, "--protected-mode", "yes"],
            env=dict(os.environ, LD_PRELOAD=lib), stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=stderr)
        stderr.close()
        deadline = time.time() + 20
        while time.time() < deadline and proc.poll() is None:
            r = run([cli, "-h", "127.0.0.1", "-p", str(port), "ping"], timeout=10)
            if r.stdout.strip() == "PONG":
                return proc, port
            time.sleep(0.1)
        text = open(log).read() if os.path.exists(log) else ""
        stop(proc)
        if "Address already in use" not in text:
            c.check(False, "redis-server starts under LD_PRELOAD", "log:\n" + text[-2000:])
            return None, None
    c.check(False, "redis-server starts: no free port after 5 tries")
    return None, None


def stop(proc):
    if proc.poll() is None:
        proc.kill()
    proc.wait()


def test_redis(c, lib, work):
    server, cli, bench = need("redis-server"), need("redis-cli"), need("redis-benchmark")
    proc, port = start_redis(server, cli, lib, work, c)
    if not proc:
        return
    try:
        def rc(*args, **kw):
            return run([cli, "-h", "127.0.0.1", "-p", str(port)] + list(args), **kw)

        with open("/proc/%d/maps" % proc.pid) as f:
            maps = f.read()
        c.check(os.path.basename(lib) in maps, "redis-server has %s mapped" % os.path.basename(lib))
        r = run([bench, "-h", "127.0.0.1", "-p", str(port), "-n", str(REDIS_REQUESTS), "-c", "20",
                 "-P", "8", "-r", "10000", "-d", "64", "-q", "-t", REDIS_TESTS], timeout=STEP_TIMEOUT)
        c.check(r.returncode == 0, "redis-benchmark -n %d exits 0" % REDIS_REQUESTS, show(r))
        done = [l.split("\r")[-1] for l in r.stdout.replace("\r", "\n").splitlines()
                if "requests per second" in l]
        for name in REDIS_TESTS.upper().split(","):
            c.check(any(l.strip().startswith(name) for l in done),
                    "redis-benchmark completed %s" % name, show(r))
        c.check("error" not in r.stdout.lower() + r.stderr.lower(), "redis-benchmark reports no error",
                show(r))
        r = rc("set", "mortise:key", "hello from mortise")
        c.check(r.stdout.strip() == "OK", "redis-cli SET", show(r))
        r = rc("get", "mortise:key")
        c.check(r.stdout.strip() == "hello from mortise", "redis-cli GET returns the value", show(r))
        # many keys of many sizes, made by the server itself, then read back
        r = rc("eval", "for i = 1, 30000 do redis.call('SET', 'big:' .. i, string.rep('v', i % 700)) end "
               "return redis.call('DBSIZE')", "0")
        c.check(r.returncode == 0 and r.stdout.strip().isdigit() and int(r.stdout) >= 30001,
                "EVAL creates 30000 keys of sizes 0..699", show(r))
        r = rc("strlen", "big:699")
        c.check(r.stdout.strip() == "699", "STRLEN big:699 is 699", show(r))
        r = rc("eval", "local n = 0 for i = 1, 30000 do n = n + redis.call('STRLEN', 'big:' .. i) end "
               "return n", "0")
        c.check(r.stdout.strip() == str(sum(i % 700 for i in range(1, 30001))),
                "the 30000 values read back with the right lengths", show(r))
        r = rc("flushall")
        c.check(r.stdout.strip() == "OK", "FLUSHALL", show(r))
        r = rc("shutdown", "nosave")
        try:
            code = proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            code = None
        c.check(code == 0, "redis-server shuts down cleanly (exit 0)", "exit %s" % code)
    finally:
        stop(proc)


TESTS = {"preload": test_preload, "python": test_python, "gcc": test_gcc, "git": test_git,
         "sqlite": test_sqlite, "redis": test_redis}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("test", choices=sorted(TESTS))
    ap.add_argument("--lib", required=True, help="the allocator's shared library")
    ap.add_argument("--work", required=True, help="scratch directory (emptied first)")
    a = ap.parse_args()
    lib = os.path.abspath(a.lib)
    c = Checks("programs.%s.%s" % (os.path.basename(lib), a.test))
    if not os.path.exists(lib):
        c.check(False, "allocator library %s exists" % lib)
        return c.report()
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    start = time.time()
    try:
        TESTS[a.test](c, lib, a.work)
    except Missing as e:
        c.check(False, str(e))
    except subprocess.TimeoutExpired as e:
        c.check(False, "timed out after %ss: %s" % (e.timeout, " ".join(map(str, e.cmd))))
    for name in os.listdir(a.work):
        if name.endswith(".stderr"):  # a server's stderr, written to a file
            with open(os.path.join(a.work, name), errors="replace") as f:
                PRELOADED_STDERR.append(f.read())
    reports = [l for text in PRELOADED_STDERR for l in text.splitlines() if l.startswith("mortise: ")]
    c.check(not reports, "no report line (mortise: ...) from the programs under LD_PRELOAD",
            "\n".join(reports[:10]))
    print("(%.1f s)" % (time.time() - start))
    status = c.report()
    if status == 0:
        shutil.rmtree(a.work, ignore_errors=True)
    return status


if __name__ == "__main__":
    sys.exit(main())

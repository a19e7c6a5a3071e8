#!/usr/bin/env python3
"""The reports of tests/layers/stats, checked from outside the process.

  check_report.py layers LAYERS_TEST   MORTISE_STATS=1 and json:PATH at exit,
                                       and the JSON written mid-run, against
                                       the counts the program expects
  check_report.py wcet MODE PROG [LIB...]
                                       wcet_stat_malloc measuring the next
                                       allocator: MODE linked (PROG linked
                                       with the .a) or preload (LIBs in
                                       LD_PRELOAD, wcet_stat_malloc first)
  check_report.py program LIB          real programs (python3, ls) under LIB
                                       with MORTISE_STATS=1: exit 0, a table
  check_report.py callers PROG         lock_callers_prog (over custom_socket,
                                       or kernel_socket): contention built
                                       on purpose; the per-caller table and
                                       the per-thread LCK shares at exit
  check_report.py none LIB             a composition without statistics:
                                       MORTISE_STATS=1 prints nothing, json:
                                       writes no file
"""
import json
import os
import re
import subprocess
import sys
import tempfile

QUANTILES = ["p50", "p90", "p99", "p99.9", "p99.99", "p99.999", "p99.9999"]


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def load(path):
    with open(path) as f:
        text = f.read()
    try:
        doc = json.loads(text)
    except ValueError as e:
        fail("%s is not valid JSON (%s):\n%s" % (path, e, text[:2000]))
    check_schema(doc, path)
    return doc


def check_schema(doc, where):
    """The keys docs/stats.md promises, with the right types."""
    for key, kind in [("mortise_stats", int), ("pid", int), ("composition", str),
                      ("timer", str), ("cycles_per_ns", (int, float)), ("layers", list)]:
        if not isinstance(doc.get(key), kind):
            fail("%s: key %s missing or not %s" % (where, key, kind))
    if doc["mortise_stats"] != 2 or doc["cycles_per_ns"] <= 0:
        fail("%s: version or rate" % where)
    for layer in doc["layers"]:
        kind = layer.get("kind")
        if kind == "wcet_stat":
            for op in ("alloc", "free", "resize"):
                o = layer["ops"][op]
                for k in ("count", "samples", "max_ns", "max_cycles"):
                    if not isinstance(o[k], int):
                        fail("%s: wcet %s.%s" % (where, op, k))
                for unit in ("percentiles_ns", "percentiles_cycles"):
                    if list(o[unit]) != QUANTILES:
                        fail("%s: wcet %s.%s keys %s" % (where, op, unit, list(o[unit])))
                    values = [o[unit][q] for q in QUANTILES]
                    top = o["max_cycles" if unit.endswith("cycles") else "max_ns"]
                    if values != sorted(values) or values[-1] > top:
                        fail("%s: wcet %s.%s not increasing up to max: %s, max %s"
                             % (where, op, unit, values, top))
                if o["samples"] > o["count"]:
                    fail("%s: more samples than requests" % where)
        elif kind == "perf_stat":
            for op in ("alloc", "free", "resize"):
                o = layer["ops"][op]
                if not all(k in o for k in ("count", "total_cycles", "mean_cycles", "mean_ns")):
                    fail("%s: perf %s keys" % (where, op))
        elif kind == "szcls_stat":
            total = sum(c["allocs"] for c in layer["classes"]) + layer["above"]["allocs"]
            if total != layer["allocs"]:
                fail("%s: szcls classes sum %d != allocs %d" % (where, total, layer["allocs"]))
            sizes = [c["size"] for c in layer["classes"]]
            if sizes != sorted(sizes):
                fail("%s: szcls classes out of order" % where)
        elif kind == "lock_stat":
            for k in ("sync", "locks", "acquisitions", "contended", "wait_ns_total",
                      "wait_ns_max", "hottest"):
                if k not in layer:
                    fail("%s: lock_stat key %s" % (where, k))
            if layer["contended"] > layer["acquisitions"]:
                fail("%s: more contended than acquisitions" % where)
        elif kind == "lock_callers":
            rows = layer["callers"]
            if not isinstance(layer.get("pairs"), int) or len(rows) > layer["pairs"]:
                fail("%s: lock_callers pairs %s, %d rows" % (where, layer.get("pairs"), len(rows)))
            for row in rows:
                for k in ("lock", "layer", "sync", "caller", "symbol", "object", "acquisitions",
                          "contended", "wait_ns_total", "wait_ns_max"):
                    if k not in row:
                        fail("%s: lock_callers row lacks %s: %s" % (where, k, row))
                if row["contended"] > row["acquisitions"] or row["wait_ns_max"] > row["wait_ns_total"]:
                    fail("%s: lock_callers row inconsistent: %s" % (where, row))
            waits = [row["wait_ns_total"] for row in rows]
            if waits != sorted(waits, reverse=True):
                fail("%s: lock_callers not by total wait: %s" % (where, waits))
        elif kind == "lock_threads":
            for row in layer["threads"] + [layer["other"]]:
                for k in ("lck_percent", "wait_ns", "lifetime_ns", "contended", "acquisitions"):
                    if not isinstance(row.get(k), (int, float)):
                        fail("%s: lock_threads row lacks %s: %s" % (where, k, row))
                if not 0 <= row["lck_percent"] <= 100:
                    fail("%s: lock_threads share %s" % (where, row))
            for row in layer["threads"]:
                if not isinstance(row.get("tid"), int) or row.get("state") not in ("live", "exited"):
                    fail("%s: lock_threads tid/state: %s" % (where, row))
            shares = [row["lck_percent"] for row in layer["threads"]]
            if shares != sorted(shares, reverse=True):
                fail("%s: lock_threads not by share: %s" % (where, shares))
        else:
            fail("%s: unknown kind %r" % (where, kind))


def layer_of(doc, kind, name=None):
    for layer in doc["layers"]:
        if layer["kind"] == kind and (name is None or layer["layer"] == name):
            return layer
    fail("no %s layer %s in %s" % (kind, name, doc["composition"]))


def run(cmd, env_extra, **kw):
    env = dict(os.environ)
    env.pop("MORTISE_STATS", None)
    env.update(env_extra)
    qemu = os.environ.get("MORTISE_QEMU")  # a cross build under qemu-user (tests/ports)
    if qemu:
        cmd = qemu.split() + list(cmd)
        if "LD_PRELOAD" in env:  # the guest's, not the emulator's
            env["QEMU_SET_ENV"] = "LD_PRELOAD=" + env.pop("LD_PRELOAD")
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=240, **kw)
    if r.returncode != 0:
        fail("%s exited %d:\n%s%s" % (cmd, r.returncode, r.stdout, r.stderr))
    return r


def tables(stderr):
    """The text reports in stderr: {composition: text of its table}."""
    found = {}
    for block in re.split(r"(?m)^(?=Mortise statistics: )", stderr):
        m = re.match(r"Mortise statistics: (\S+) \(pid \d+, timer \w+, [\d.]+ cycles/ns\)", block)
        if m:
            found[m.group(1)] = block
    return found


def table_counts(text, kind):
    """op -> count in the table of `kind` (wcet_stat or perf_stat)."""
    part = text[text.index(kind + " "):]
    counts = {}
    for op in ("alloc", "free", "resize"):
        m = re.search(r"(?m)^  %s\s+(\d+)" % op, part)
        counts[op] = int(m.group(1))
    return counts


def check_layers(prog):
    tmp = tempfile.mkdtemp(prefix="mortise_stats_")
    mid, end = os.path.join(tmp, "mid.json"), os.path.join(tmp, "end.%p.json")
    r = run([prog, mid], {"MORTISE_STATS": "1"})
    doc = load(mid)
    matched = 0
    for line in r.stdout.splitlines():
        m = re.match(r"expect (\w+)(?:/(\w+))? ([\w.]+) (\d+)$", line)
        if not m:
            continue
        value = layer_of(doc, m.group(1), m.group(2))
        for part in m.group(3).split("."):
            value = value[part]
        if value != int(m.group(4)):
            fail("mid-run JSON: %s is %s, the program counted %s" % (line, value, m.group(4)))
        matched += 1
    if matched != 7:
        fail("expected 7 counts from the program:\n" + r.stdout)
    lock = layer_of(doc, "lock_stat", "segfit_lk")
    if lock["contended"] < 1 or lock["sync"] != "ticket" or lock["wait_ns_max"] <= 0:
        fail("lock_stat of the forced contention: %s" % lock)
    if layer_of(doc, "lock_stat", "cc_test")["sync"] != "ccsynch":
        fail("lock_stat of ccsynch")
    t = tables(r.stderr)
    title = "mmap_heap::segfit_lk::szcls_stat::perf_stat::wcet_stat::custom_socket"
    if title not in t:
        fail("MORTISE_STATS=1 printed no table at exit:\n" + r.stderr)
    for needle in ("wcet_stat wcet_stat:", "perf_stat perf_stat:", "szcls_stat szcls_stat",
                   "lock_stat segfit_lk (sync=ticket)", "hottest lock 0x"):
        if needle not in t[title]:
            fail("table at exit lacks %r:\n%s" % (needle, t[title]))
    # malloc_stats(): Mortise's memory summary, then the same table
    r = run([prog], {"LAYERS_TEST_MALLOC_STATS": "1"})
    m = re.search(r"Mortise: (\S+)\nsystem bytes .*?\n(Mortise statistics: \1 .*)", r.stderr, re.S)
    if not m or "lock_stat segfit_lk (sync=ticket)" not in m.group(2):
        fail("malloc_stats() printed no table after its summary:\n" + r.stderr)
    # json:PATH at exit, %p replaced by the pid
    r = run([prog], {"MORTISE_STATS": "json:" + end})
    files = [f for f in os.listdir(tmp) if f.startswith("end.")]
    if len(files) != 1 or not re.fullmatch(r"end\.\d+\.json", files[0]):
        fail("json:PATH with %%p wrote %s" % files)
    doc = load(os.path.join(tmp, files[0]))
    # 4 stats layers and segfit_lk's locks, with the callers' and threads' tables
    if doc["composition"] != title or len(doc["layers"]) != 7:
        fail("exit JSON: %s, %d layers" % (doc["composition"], len(doc["layers"])))
    print("layers: ok (%d counts matched, table and JSON at exit)" % matched)


def check_wcet(mode, prog, libs):
    tmp = tempfile.mkdtemp(prefix="mortise_wcet_")
    before, after = os.path.join(tmp, "before.json"), os.path.join(tmp, "after.json")
    n = 80000
    env = {"MORTISE_STATS": "1"}
    if libs:
        env["LD_PRELOAD"] = " ".join(libs)
    r = run([prog, before, after, str(n)], env)
    a, b = load(before), load(after)
    if b["composition"] != "malloc_heap::wcet_stat::malloc_socket":
        fail("measured by %s" % b["composition"])
    wa, wb = layer_of(a, "wcet_stat")["ops"], layer_of(b, "wcet_stat")["ops"]
    for op in ("alloc", "free"):
        d = wb[op]["count"] - wa[op]["count"]
        if d != n:
            fail("%s: %d %s requests counted between the snapshots, the program made %d"
                 % (mode, d, op, n))
        s = wb[op]["samples"] - wa[op]["samples"]
        if s not in (n // 8, (n + 7) // 8):
            fail("%s: %d %s samples for %d requests (1 in 8)" % (mode, s, op, n))
        if wb[op]["percentiles_ns"]["p50"] <= 0 or wb[op]["max_cycles"] <= 0:
            fail("%s: no latency measured for %s" % (mode, op))
    if layer_of(b, "wcet_stat")["pinned_threads"] < 1:
        fail("pin_threads=1 pinned no thread")
    t = tables(r.stderr)
    wcet = t.get("malloc_heap::wcet_stat::malloc_socket")
    if not wcet:
        fail("no table at exit:\n" + r.stderr)
    served = [c for c in t if c.endswith("perf_stat::malloc_socket")]
    if served:
        # a Mortise allocator counting what it served: everything wcet_stat
        # passed on, and nothing else
        w, p = table_counts(wcet, "wcet_stat"), table_counts(t[served[0]], "perf_stat")
        if w["alloc"] != p["alloc"] or w["free"] != p["free"] or w["alloc"] < n:
            fail("%s: wcet_stat counted %s, the next allocator served %s" % (mode, w, p))
        how = "served by %s (%d allocs both)" % (served[0], p["alloc"])
    else:
        how = "served by the C library"
    print("wcet %s: ok, %d pairs counted exactly, %d samples each; %s"
          % (mode, n, wb["alloc"]["samples"] - wa["alloc"]["samples"], how))


def check_program(lib):
    r = run(["python3", "-c", "print(sum(len(str(i)) for i in range(100000)))"],
            {"MORTISE_STATS": "1", "LD_PRELOAD": lib})
    if r.stdout.strip() != "488890":
        fail("python3's result under %s: %r" % (lib, r.stdout))
    t = tables(r.stderr)
    if len(t) != 1:
        fail("expected one table from %s:\n%s" % (lib, r.stderr))
    # coreutils close standard error before the library's exit hook runs:
    # the table still comes (a copy of fd 2 kept at start-up)
    r = run(["ls", "/"], {"MORTISE_STATS": "1", "LD_PRELOAD": lib})
    if len(tables(r.stderr)) != 1:
        fail("no table from ls, which closes stderr at exit:\n" + r.stderr)
    print("program: ok\n" + list(t.values())[0])


def check_callers(prog):
    """Four threads hammer one class lock, nine calls in ten from hot_site,
    while the main thread holds it again and again; a quiet thread allocates
    once and sleeps. At exit: hot_site on that lock first among the callers,
    cold_site after it, every hammering thread waiting a nonzero share of
    its life, the quiet one about none."""
    tmp = tempfile.mkdtemp(prefix="mortise_callers_")
    path = os.path.join(tmp, "callers.json")
    r = run([prog], {"MORTISE_STATS": "json:" + path})
    hammers = [int(t) for t in re.findall(r"(?m)^hammer tid (\d+)$", r.stdout)]
    quiet = [int(t) for t in re.findall(r"(?m)^quiet tid (\d+)$", r.stdout)]
    hot_lock = re.search(r"(?m)^hot lock 0x([0-9a-f]+)$", r.stdout)
    if len(hammers) != 4 or len(quiet) != 1 or not hot_lock:
        fail("the program's thread ids and lock:\n" + r.stdout)
    hot_lock = "0x" + hot_lock.group(1)
    doc = load(path)
    if layer_of(doc, "lock_stat", "segfit_lk")["hottest"]["lock"] != hot_lock:
        fail("the hottest lock is not the one held: %s" % layer_of(doc, "lock_stat", "segfit_lk"))
    rows = layer_of(doc, "lock_callers")["callers"]
    top = rows[0]
    if top["lock"] != hot_lock or not top["symbol"].startswith("hot_site+0x"):
        fail("first caller is not hot_site on the held lock: %s" % top)
    if not top["object"].endswith(os.path.basename(prog)) or top["contended"] < 1:
        fail("first caller's object or contention: %s" % top)
    sites = [row["symbol"].split("+")[0] for row in rows if row["lock"] == hot_lock]
    hot = sum(row["acquisitions"] for row in rows if row["symbol"].startswith("hot_site+"))
    cold = sum(row["acquisitions"] for row in rows if row["symbol"].startswith("cold_site+"))
    if "cold_site" not in sites or sites.index("cold_site") < sites.index("hot_site"):
        fail("cold_site missing or above hot_site: %s" % sites)
    if not 5 * cold < hot:
        fail("hot_site made %d acquisitions, cold_site %d (nine in ten expected hot)" % (hot, cold))
    threads = {row["tid"]: row for row in layer_of(doc, "lock_threads")["threads"]}
    for tid in hammers:
        row = threads.get(tid)
        if not row or row["state"] != "exited" or row["wait_ns"] <= 0 or row["lck_percent"] <= 0:
            fail("hammering thread %d: %s" % (tid, row))
    calm = threads.get(quiet[0])
    if not calm or calm["state"] != "exited" or calm["lck_percent"] >= 1 or calm["acquisitions"] < 1:
        fail("the quiet thread %d: %s" % (quiet[0], calm))
    # the table at exit: both new sections, hot_site first
    r = run([prog], {"MORTISE_STATS": "1"})
    text = next((t for name, t in tables(r.stderr).items() if name.startswith("mmap_heap::segfit_lk::")), None)
    if not text:
        fail("no table at exit:\n" + r.stderr)
    m = re.search(r"(?m)^lock_stat callers \(plockstat -C\).*\n.*caller\n(.*)$", text)
    if not m or "hot_site+0x" not in m.group(1):
        fail("the table's first caller is not hot_site:\n" + text)
    m = re.search(r"(?m)^lock_stat threads \(prstat -mL LCK\).*\n.*\n((?:.*\n){5})", text)
    if not m:
        fail("no threads table:\n" + text)
    last = m.group(1).splitlines()[-1].split()
    if last[-1] != "exited" or float(last[1]) >= 1:
        fail("the last thread of the table is not the quiet one:\n" + text)
    print("callers: ok\n" + text)


def check_none(lib):
    tmp = tempfile.mkdtemp(prefix="mortise_none_")
    path = os.path.join(tmp, "none.json")
    r = run(["true"], {"MORTISE_STATS": "1", "LD_PRELOAD": lib})
    if r.stderr:
        fail("a composition without statistics printed:\n" + r.stderr)
    run(["true"], {"MORTISE_STATS": "json:" + path, "LD_PRELOAD": lib})
    if os.path.exists(path):
        fail("a composition without statistics wrote " + path)
    print("none: ok")


if __name__ == "__main__":
    what = sys.argv[1]
    if what == "layers":
        check_layers(sys.argv[2])
    elif what == "wcet":
        check_wcet(sys.argv[2], sys.argv[3], sys.argv[4:])
    elif what == "program":
        check_program(sys.argv[2])
    elif what == "callers":
        check_callers(sys.argv[2])
    elif what == "none":
        check_none(sys.argv[2])
    else:
        fail("unknown check " + what)

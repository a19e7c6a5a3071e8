#!/usr/bin/env python3
"""Run programs of the bad-input corpus under LD_PRELOAD of one allocator and
check each outcome against expected.tsv (docs/badinput.md).

    run_case.py --lib build/lib/libmortise-NAME.so --cases build/tests/suites/badinput/cases
                --kind plain|tail|quarantine|both [--modes LAYER=MODE,...] CASE... | --all

--modes gives the err_handle mode of the layers that report: `report` (print
and go on: the program must reach its end and exit 0) or `fatal` (print and
abort: the program must die of SIGABRT right after its first report);
`*=MODE` sets the default (report). Prints one line per case, "ok" or
"FAIL" with the reasons and the program's output; exit status 1 if any
case failed.
"""
import argparse
import os
import re
import signal
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
KINDS = ("plain", "tail", "quarantine", "both")
RUN_TIMEOUT = 60  # seconds; a hang guard, not a measurement
REPORT = re.compile(r"^mortise: (?P<cls>\S+) at 0x(?P<addr>[0-9a-f]+) size (?P<size>\d+) "
                    r"\((?P<layer>[^,()]+), (?P<op>[^,()]+)\)$")
ANY_REPORT = re.compile(r"^mortise: ")
# @near: a trunk or cache below delayed_free (16 bytes of header) or
# tlsf_glk's own 16-byte tag reports the block as it knows it, up to this
# many bytes in front of the address the program has.
NEAR = 32
BLOCK = re.compile(r"^block 0x(?P<addr>[0-9a-f]+)(?: size (?P<size>\d+))?$")


def read_table(path):
    """{case: {column: text}}; an outcome may end in "; NAME,NAME=OUTCOME"
    overrides for single instances."""
    table = {}
    header = None
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            cols = line.split("\t")
            if header is None:
                header = cols
                continue
            row = dict(zip(header, cols))
            table[row["case"]] = row
    return table


def outcome_for(row, kind, instance):
    parts = [p.strip() for p in row[kind].split(";")]
    chosen = parts[0]
    for p in parts[1:]:
        names, _, outcome = p.partition("=")
        if instance in [n.strip() for n in names.split(",")]:
            chosen = outcome.strip()
    return chosen


def parse_modes(text):
    modes = {"*": "report"}
    for item in filter(None, (text or "").split(",")):
        layer, _, mode = item.partition("=")
        if mode not in ("report", "fatal"):
            raise SystemExit("--modes: %r: mode must be report or fatal" % item)
        modes[layer.strip()] = mode
    return modes


def signal_name(rc):
    if rc < 0:
        try:
            return signal.Signals(-rc).name
        except ValueError:
            return "signal %d" % -rc
    return "exit %d" % rc


def judge(outcome, rc, out, err, modes):
    """The reasons the run differs from `outcome` (an empty list if it does not)."""
    bad = []
    lines = out.splitlines()
    reports = [l for l in err.splitlines() if ANY_REPORT.match(l)]
    reached = "reached end" in lines
    outcome, _, also = outcome.partition(" and ")  # report:... and result:TEXT
    kind, _, arg = outcome.partition(":")

    def survived():
        if rc != 0:
            bad.append("the program did not exit 0 (%s)" % signal_name(rc))
        if not reached:
            bad.append('no "reached end" on stdout')

    if kind in ("silent", "result"):
        survived()
        if reports:
            bad.append("a report where none is expected: %s" % reports[0])
        if kind == "result" and ("result " + arg) not in lines:
            bad.append('stdout lacks "result %s"' % arg)
    elif kind == "crash":
        if signal_name(rc) != arg:
            bad.append("expected the plain allocator to die of %s, got %s" % (arg, signal_name(rc)))
    elif kind == "report":
        cls_re, layer_re, *flags = arg.split("@")
        blocks = {}
        for l in lines:
            m = BLOCK.match(l)
            if m:
                blocks[int(m.group("addr"), 16)] = m.group("size")
        if not reports:
            bad.append("no report line on stderr (expected %s)" % arg)
        fatal_at = None
        for i, l in enumerate(reports):
            m = REPORT.match(l)
            if not m:
                bad.append("report line not in the documented format: %r" % l)
                continue
            if not re.fullmatch(cls_re, m.group("cls")):
                bad.append("report class %s, expected %s: %s" % (m.group("cls"), cls_re, l))
            if not re.fullmatch(layer_re, m.group("layer")):
                bad.append("report layer %s, expected %s: %s" % (m.group("layer"), layer_re, l))
            addr = int(m.group("addr"), 16)
            if "near" in flags:  # a layer below a safety header names the block it knows
                addr = next((a for a in blocks if a - NEAR <= addr <= a), addr)
            if blocks and addr not in blocks:
                bad.append("report address %#x is none of the program's blocks %s"
                           % (addr, ", ".join("%#x" % a for a in blocks)))
            elif blocks.get(addr) is not None:
                want = blocks[addr]
                # 0: the owner lookup no longer knows the size of a block that
                # went back to the OS; size-lost: the bug destroyed the layer's record of it
                size_unknown = m.group("layer") == "pagemap" or "size-lost" in flags
                if m.group("size") != want and not (size_unknown and m.group("size") == "0"):
                    bad.append("report size %s, the block's requested size is %s" % (m.group("size"), want))
            mode = modes.get(m.group("layer"), modes["*"])
            if mode == "fatal" and fatal_at is None:
                fatal_at = i
        if fatal_at is not None:
            if rc != -signal.SIGABRT:
                bad.append("fatal mode: expected SIGABRT after the report, got %s" % signal_name(rc))
            if fatal_at != len(reports) - 1:
                bad.append("fatal mode: reports after the fatal one")
            if reached:
                bad.append('fatal mode: the program reached its end')
        elif reports:
            survived()
            if also and also.partition(":")[0] == "result" and ("result " + also.partition(":")[2]) not in lines:
                bad.append('stdout lacks "%s" after the report' % also.replace(":", " ", 1))
    else:
        bad.append("unknown outcome %r in expected.tsv" % outcome)
    return bad


# msvcrt's abort() ends the process with exit status 3; wine ends one that
# an access violation (0xc0000005) killed with that code's low byte.
WINDOWS_EXITS = {3: -signal.SIGABRT, 5: -signal.SIGSEGV}


def run_case(case, outcome, lib, cases_dir, modes, qemu=None, wine=None, instance=None):
    exe = os.path.join(cases_dir, "badinput-" + case + ("-%s.exe" % instance if wine else ""))
    if not os.path.exists(exe):
        return ["program %s not built" % exe], None
    if wine:  # Windows: each program is linked with the allocator (no preload)
        env = dict(os.environ)
        command = wine + [exe]
    elif qemu:  # the preload is the guest's: qemu itself runs on the host's malloc
        env = dict(os.environ, QEMU_SET_ENV="LD_PRELOAD=" + lib)
        command = qemu + [exe]
    else:
        env = dict(os.environ, LD_PRELOAD=lib)
        command = [exe]
    try:
        p = subprocess.run(command, env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT)
    except subprocess.TimeoutExpired:
        return ["hung: no exit within %d s" % RUN_TIMEOUT], None
    rc = WINDOWS_EXITS.get(p.returncode, p.returncode) if wine else p.returncode
    p.returncode = rc
    bad = judge(outcome, rc, p.stdout, p.stderr, modes)
    if "cannot be preloaded" in p.stderr:
        bad.insert(0, "the allocator was not preloaded (ld.so: %s)" % p.stderr.splitlines()[0])
    return bad, p


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lib", required=True, help="the allocator's shared library")
    ap.add_argument("--instance", help="instance name for per-instance overrides (default: from --lib)")
    ap.add_argument("--cases", required=True, help="directory of the built badinput-CASE programs")
    ap.add_argument("--kind", required=True, choices=KINDS)
    ap.add_argument("--modes", default="", help="LAYER=report|fatal,... (*=MODE: default)")
    ap.add_argument("--table", default=os.path.join(HERE, "expected.tsv"))
    ap.add_argument("--all", action="store_true", help="every case of the table")
    ap.add_argument("--qemu", default=os.environ.get("MORTISE_QEMU"),
                    help="run each program under this qemu-user command, e.g. 'qemu-aarch64 "
                    "-L /usr/aarch64-linux-gnu' (default: $MORTISE_QEMU); the preload goes to the guest")
    ap.add_argument("--wine", help="Windows: run CASES/badinput-CASE-INSTANCE.exe, linked with the "
                    "allocator, under this wine command (tests/ports/port_windows.py); --lib is the "
                    "static library it was linked with")
    ap.add_argument("case", nargs="*")
    a = ap.parse_args()
    lib = os.path.abspath(a.lib)
    instance = a.instance or re.sub(r"^libmortise-|\.(so|a)$", "", os.path.basename(lib))
    table = read_table(a.table)
    cases = sorted(table) if a.all else a.case
    if not cases:
        ap.error("name the cases or give --all")
    modes = parse_modes(a.modes)
    if not os.path.exists(lib):  # ld.so would only warn and run the C library's malloc
        print("badinput %s: FAIL: allocator library %s not built" % (instance, lib))
        return 1
    failed = 0
    for case in cases:
        if case not in table:
            print("%s: FAIL: no row in %s" % (case, a.table))
            failed += 1
            continue
        outcome = outcome_for(table[case], a.kind, instance)
        bad, p = run_case(case, outcome, lib, a.cases, modes, a.qemu.split() if a.qemu else None,
                          a.wine.split() if a.wine else None, instance)
        if bad:
            failed += 1
            print("%s (%s, expected %s): FAIL" % (case, instance, outcome))
            for b in bad:
                print("  " + b)
            if p is not None:
                print("  exit: %s\n  stdout: %s\n  stderr: %s" % (
                    signal_name(p.returncode), p.stdout[-1500:].replace("\n", "\n          "),
                    p.stderr[-1500:].replace("\n", "\n          ")))
        else:
            print("%s (%s): ok, %s" % (case, instance, outcome))
    print("badinput %s: %d passed, %d failed" % (instance, len(cases) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

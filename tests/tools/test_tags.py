#!/usr/bin/env python3
"""tools/tags.py finds a layer instance's functions where their code is.

Every `<layer>_<op>` tag of a layer header must point at a line that defines
that operation (written under its own name, or MT_SELF(op) in a fragment
several layers share, or the forwarding the header generates for it),
and a few named functions must land on their known definitions.
"""
import pathlib
import re
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
OPS = ("alloc", "free", "getmeta", "resize")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp) / "tags"
        subprocess.run([sys.executable, str(ROOT / "tools" / "tags.py"), "-o", str(out)], check=True)
        rows = [r.split("\t") for r in out.read_text().splitlines() if not r.startswith("!")]
        base = out.parent
        failures, checked = [], 0
        for name, file, line, *_ in rows:
            path = (base / file).resolve()
            if "include/mortise/layers" not in str(path) and "include/mortise/os" not in str(path):
                continue
            layer = path.stem
            for op in OPS:
                if name == f"{layer}_{op}":
                    text = path.read_text().splitlines()[int(line.rstrip(';"')) - 1]
                    checked += 1
                    if (f"{name}(" not in text and f"MT_SELF({op})" not in text and "FORWARD" not in text
                            and "MT_LAYER_OPS" not in text):
                        failures.append(f"{name} -> {file}:{line}: {text.strip()}")
        known = {"slab_lk_alloc": "layers/slab_lk.h", "thread_cache_free": "layers/thread_cache.h",
                 "tlsf_glk_alloc": "layers/tlsf_glk.h", "malloc": "sockets/family.h"}
        found = {}
        for name, file, *_ in rows:
            if name in known and str((base / file).resolve()).endswith(known[name]):
                found[name] = file
        for name in known.keys() - found.keys():
            failures.append(f"{name}: no tag in {known[name]}")
        print(f"{len(rows)} tags, {checked} layer operations checked")
        if checked < 20:
            failures.append(f"only {checked} layer operations found: the preprocessing lost them")
        for f in failures:
            print("FAIL", f)
        return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

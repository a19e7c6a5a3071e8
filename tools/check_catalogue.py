#!/usr/bin/env python3
"""Check docs/layers.md's catalogue table against the layer headers.

Every header under include/mortise/{os,layers,sockets} whose contract names a
model-language layer ("[model: NAME]") must have a row in the table of
docs/layers.md, the row's kind must match the header's folder, and every slot
the contract lists ("slot=... → MT_SLOT (default)") must appear in the row's
slots column with the same default. Every row must name a header that exists.
Exits 1 and lists every disagreement, so docs and code cannot drift apart.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
KINDS = {"os": "OS layer", "layers": None, "sockets": "socket"}
MODEL = re.compile(r"\[model:\s*([a-z0-9_]+)\]")
SLOT = re.compile(r"^\s*\*\s+([a-z_]+)=\S*.*?→\s*MT_[A-Z0-9_]+\s*\(([^)]*)\)")


def header_contracts():
    found = {}
    for folder in KINDS:
        for path in sorted((ROOT / "include/mortise" / folder).glob("*.h")):
            text = path.read_text()
            end = text.find("*/")
            contract = text[: end if end > 0 else len(text)]
            m = MODEL.search(contract)
            if not m:
                continue
            slots = {}
            for line in contract.splitlines():
                s = SLOT.match(line)
                if s:
                    slots[s.group(1)] = s.group(2).strip()
            found[m.group(1)] = (folder, path.relative_to(ROOT / "include/mortise"), slots)
    return found


def catalogue_rows():
    rows = {}
    text = (ROOT / "docs/layers.md").read_text()
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 4 and re.fullmatch(r"`[a-z0-9_]+`", cells[0]):
            rows[cells[0].strip("`")] = cells
    return rows


def norm(s):
    return re.sub(r"[\s`]", "", s).lower()


UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
SIZE = re.compile(r"(\d+)\s*([kmg]?)(?:i?b)?(?![a-z0-9_])", re.I)


def sizes(text):
    """Every number in text, with KiB/KB/K/MiB/MB/... suffixes as bytes."""
    return {int(n) * UNITS[u.lower()] for n, u in SIZE.findall(text)}


def default_listed(default, cell_text):
    first = default.split(",")[0].split(";")[0]
    wanted = sizes(first)
    if wanted and re.fullmatch(r"\s*\d+\s*[kmg]?i?b?\s*", first, re.I):
        return wanted <= sizes(cell_text)
    return norm(first) in norm(cell_text)


def main():
    headers, rows, problems = header_contracts(), catalogue_rows(), []
    for name, (folder, path, slots) in headers.items():
        row = rows.get(name)
        if not row:
            problems.append(f"{name}: no row in docs/layers.md (header {path})")
            continue
        kind, where, slot_cell = row[1], row[2], norm(row[3])
        want = KINDS[folder]
        if want and kind != want:
            problems.append(f"{name}: kind '{kind}' in docs, '{want}' by its folder")
        if not want and kind not in ("trunk", "add-on"):
            problems.append(f"{name}: kind '{kind}' should be trunk or add-on")
        if str(path) not in where:
            problems.append(f"{name}: docs name header '{where}', it is {path}")
        for slot, default in slots.items():
            if norm(slot) not in slot_cell:
                problems.append(f"{name}: slot {slot} missing from docs row")
            elif not default_listed(default, row[3]):
                problems.append(f"{name}: slot {slot} default '{default}' not in docs row")
    for name in rows:
        if name not in headers:
            problems.append(f"{name}: docs row but no header with [model: {name}]")
    for p in problems:
        print("catalogue:", p)
    print(f"catalogue: {len(headers)} layers checked, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

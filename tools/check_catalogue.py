#!/usr/bin/env python3
"""Check docs/layers.md's catalogue table against the layer headers.

Every header under include/mortise/{os,layers,sockets} whose contract names a
model-language layer ("[model: NAME]") must have a row in the table of
docs/layers.md, the row's kind must match the header's folder (for layers/,
trunk if the header has a size_handle slot and a page-map id, MT_SELF_ID,
else add-on), and every slot
the contract lists ("slot=... → MT_SLOT (default)") must appear in the row's
slots column with the same default. Every row must name a header that exists.
(The operation count the reference pages give, their file paths and the
dates kept out of include/ are tools/check_docs.py's.)
The aliases the contracts declare ("[alias: NAME]", "[slot alias: NAME →
SLOT]") must be the rows of docs/mortise.md's "Aliases" table, each naming a
real slot and no name the layers already use.
Exits 1 and lists every disagreement, so docs and code cannot drift apart.
The contracts are read by tools/mortise_lib/registry.py, the registry the
`mortise` command uses, so the command, the headers and the catalogue agree.
"""
from __future__ import annotations

import pathlib
import re
import sys
from typing import Dict, List, Tuple

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
from mortise_lib.registry import FOLDER_KIND as KINDS, Registry  # noqa: E402

# name → (folder, header, {slot: default text}, kind)
Contracts = Dict[str, Tuple[str, pathlib.Path, Dict[str, str], str]]
# (alias, what it means) → the layers
Aliases = Dict[Tuple[str, str], List[str]]


def header_contracts() -> Contracts:
    """name → (folder, header, {slot: default text}, kind), from the registry
    that `mortise` uses (tools/mortise_lib/registry.py); slots a policy header
    gives every layer of a slot (lock_stat) are documented there, not per row."""
    reg = Registry(ROOT / "include")
    return {name: (l.folder, l.header, {s.name: s.default_text for s in l.slots.values()
                                        if not s.inherited_from},
                   l.kind)
            for name, l in reg.layers.items()}


def catalogue_rows() -> dict[str, list[str]]:
    rows = {}
    text = (ROOT / "docs/layers.md").read_text()
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 4 and re.fullmatch(r"`[a-z0-9_]+`", cells[0]):
            rows[cells[0].strip("`")] = cells
    return rows


def header_aliases(reg: Registry) -> tuple[Aliases, list[str]]:
    """(alias, what it means, sorted layers it is declared by) from the
    contracts, and the problems of the declarations themselves."""
    found: Aliases = {}
    problems: list[str] = []
    for name, l in reg.layers.items():
        for a in l.aliases:
            if a in reg.layers:
                problems.append(f"{name}: alias '{a}' is the name of a layer")
            found.setdefault((a, f"the layer `{name}`"), []).append(name)
        for a, slot in l.slot_aliases.items():
            if slot not in l.slots:
                problems.append(f"{name}: slot alias '{a}' names no slot of it ('{slot}')")
            if a in l.slots:
                problems.append(f"{name}: slot alias '{a}' is the name of one of its slots")
            found.setdefault((a, f"the slot `{slot}`"), []).append(name)
    return {k: sorted(v) for k, v in found.items()}, problems


def documented_aliases() -> Aliases:
    """(alias, what it means) → the layers its row names, from the table of
    docs/mortise.md's "Aliases" section."""
    text = (ROOT / "docs/mortise.md").read_text()
    start = text.find("\n## Aliases\n")
    section = text[start:text.find("\n## ", start + 1)] if start >= 0 else ""
    rows: Aliases = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and re.fullmatch(r"`[a-z0-9_]+`", cells[0]):
            means = cells[1]
            layers = re.findall(r"`([a-z0-9_]+)`", cells[2]) or re.findall(r"`([a-z0-9_]+)`", means)
            rows[(cells[0].strip("`"), means)] = sorted(layers)
    return rows


def alias_problems(reg: Registry) -> list[str]:
    declared, problems = header_aliases(reg)
    documented = documented_aliases()
    for key, layers in declared.items():
        if documented.get(key) != layers:
            problems.append(f"alias '{key[0]}' ({key[1]}, declared by {', '.join(layers)}): docs/mortise.md's "
                            f"Aliases table says {documented.get(key) or 'nothing'}")
    for key in documented:
        if key not in declared:
            problems.append(f"alias '{key[0]}' ({key[1]}) in docs/mortise.md: no header declares it")
    return problems


def norm(s: str) -> str:
    return re.sub(r"[\s`]", "", s).lower()


UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
SIZE = re.compile(r"(\d+)\s*([kmg]?)(?:i?b)?(?![a-z0-9_])", re.I)


def sizes(text: str) -> set[int]:
    """Every number in text, with KiB/KB/K/MiB/MB/... suffixes as bytes."""
    return {int(n) * UNITS[u.lower()] for n, u in SIZE.findall(text)}


def default_listed(default: str, cell_text: str) -> bool:
    first = default.split(",")[0].split(";")[0].split(":")[0]
    if first.strip().lower() == "empty":     # an empty prefix: docs say "none"
        first = "none" if "none" in norm(cell_text) else first
    wanted = sizes(first)
    if wanted and re.fullmatch(r"\s*\d+\s*[kmg]?i?b?\s*", first, re.I):
        return wanted <= sizes(cell_text)
    return norm(first) in norm(cell_text)


def main() -> int:
    headers, rows = header_contracts(), catalogue_rows()
    problems: list[str] = []
    for name, (folder, path, slots, derived) in headers.items():
        row = rows.get(name)
        if not row:
            problems.append(f"{name}: no row in docs/layers.md (header {path})")
            continue
        kind, where, slot_cell = row[1], row[2], norm(row[3])
        want = KINDS[folder]
        if want and kind != want:
            problems.append(f"{name}: kind '{kind}' in docs, '{want}' by its folder")
        if not want and kind != derived:
            problems.append(f"{name}: kind '{kind}' in docs, '{derived}' by its header "
                            "(trunk: a size_handle slot and a page-map id, MT_SELF_ID)")
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
    problems += alias_problems(Registry(ROOT / "include"))
    for p in problems:
        print("catalogue:", p)
    print(f"catalogue: {len(headers)} layers checked, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Check docs/layers.md's catalogue table against the layer headers.

Every header under include/mortise/{os,layers,sockets} that describes a
model-language layer (its descriptor, MT_DESCRIPTOR_<name>, core/describe.h,
read here live through the C preprocessor: tools/mortise_lib/describe.py)
must have a row in the table of docs/layers.md, the row's kind must be the
descriptor's, and the descriptor's kind must fit the header (its folder; in
layers/, trunk exactly when it has a size_handle slot and a page-map id,
MT_SELF_ID); every slot the descriptor lists must appear in the row's slots
column with the same default, and in the contract's prose (its name). Every
row must name a header that exists.
The descriptor agrees with the code: each default it states is one the
header (or a fragment it includes) #defines for the slot's macro. A
context field it declares (MT_CTX_FIELD) is the one the contract tells the
composition to put in MT_CTX_EXTRA. A policy header's descriptor
(MT_POLICY_DESCRIPTOR_<slot>_<name>) names the slot of its folder and the
header's own name, the contract's prose says slot=name (an extension's:
names each slot it adds).
Every slot macro a header names is forgotten by that header (an #undef;
the headers put them right after `#include "../core/layer_end.h"`), and so
is every per-instance default it sets with `#ifndef MT_X`; a composition
file (instances/, tests/, and the chains instances/*.h hold for several
compositions) never defines a
slot macro that the header included next does not forget: otherwise a
later instance would inherit the value (the core forgets only the
instance's name and id).
(The operation count the reference pages give, their file paths and the
dates kept out of include/ are tools/check_docs.py's.)
The aliases the descriptors declare (for the layer, and each slot's) must
be the rows of docs/mortise.md's "Aliases" table, each naming a real slot
and no name the layers already use.
Exits 1 and lists every disagreement, so docs and code cannot drift apart.
The registry the `mortise` command uses (tools/mortise_lib/registry.py)
reads the same descriptors from the table tools/describe_layers.py writes,
so the command, the headers and the catalogue agree.
"""
from __future__ import annotations

import pathlib
import re
import sys
from typing import Dict, List, Tuple

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import layer_names  # noqa: E402
from mortise_lib.describe import Table, describe  # noqa: E402
from mortise_lib.registry import FOLDER_KIND as KINDS, Layer, Registry, Slot, _contract  # noqa: E402

# The policy slot each folder of policy/ holds.
POLICY_FOLDER_SLOT = {"sync": "sync", "sizeclass": "sizeclass", "chksum": "chksum", "err": "err_handle"}

# name → (folder, header, {slot: default text}, kind)
Contracts = Dict[str, Tuple[str, pathlib.Path, Dict[str, str], str]]
# (alias, what it means) → the layers
Aliases = Dict[Tuple[str, str], List[str]]


def descriptors() -> Table:
    """The descriptors of the headers as they are now, expanded by the
    preprocessor, not the checked-in table (ctest tools.descriptors checks
    that one)."""
    return describe(ROOT / "include")


def header_contracts(reg: Registry) -> Contracts:
    """name → (folder, header, {slot: default text}, kind), from the registry
    that `mortise` uses (tools/mortise_lib/registry.py); slots a policy header
    gives every layer of a slot (lock_stat) are documented there, not per row."""
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


LAYER_END = re.compile(r'^#include "(?:\.\./)+core/layer_end\.h"', re.M)
UNDEF = re.compile(r"^#undef (MT_[A-Z0-9_]+)", re.M)
CORE_FORGETS = {"MT_NAME", "MT_SELF_ID", "MT_HAS_INVARIANTS"}


def forgotten(header: pathlib.Path) -> set[str] | None:
    """The macros a layer header #undefs, with those the core forgets; None
    for a header that does not end a layer (core/layer_end.h)."""
    text = header.read_text()
    if not LAYER_END.search(text):
        return None
    return set(UNDEF.findall(text)) | CORE_FORGETS


def instance_defaults(text: str) -> set[str]:
    """The MT_X a header sets with #ifndef MT_X / #define MT_X for each
    instance: not those inside a once-per-file guard (#ifndef MORTISE_...),
    which configure the layer type for every instance."""
    found: set[str] = set()
    stack: list[bool] = []  # per open conditional: is it a once-guard?
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = re.match(r"#\s*(ifndef|ifdef|if|endif)\b\s*(\S*)", line)
        if not m:
            continue
        if m.group(1) == "endif":
            if stack:
                stack.pop()
            continue
        name = m.group(2)
        if (m.group(1) == "ifndef" and name.startswith("MT_") and not any(stack)
                and i + 1 < len(lines) and re.match(r"#define " + name + r"\b", lines[i + 1])):
            found.add(name)
        stack.append(m.group(1) == "ifndef" and name.startswith("MORTISE_"))
    return found


def forgetting_problems(reg: Registry) -> list[str]:
    problems: list[str] = []
    slot_macros: set[str] = set()
    for name, layer in reg.layers.items():
        header = reg.root / layer.header
        gone = forgotten(header)
        if gone is None:
            problems.append(f"{name}: {layer.header} does not include core/layer_end.h")
            continue
        own = {s.macro for s in layer.slots.values()}
        slot_macros |= own
        text = header.read_text()
        for macro in sorted(own - gone):
            problems.append(f"{name}: slot macro {macro} never forgotten (#undef)")
        # (a socket is the last instance: what it leaves defined is API the
        # program may use, as kernel_socket's MT_KERNEL_MAX_ORDER)
        for macro in sorted(instance_defaults(text) - gone if layer.folder != "sockets" else ()):
            problems.append(f"{name}: default {macro} (#ifndef) never forgotten")
    include = re.compile(r"^#include [<\"](?:mortise/|(?:\.\./)*)((?:layers|os|sockets)/[a-z0-9_/]+\.h)[>\"]"
                         r"|^#include \"(chains/[\w.]+/\w+\.inl)\"", re.M)
    define = re.compile(r"^#define (MT_[A-Z0-9_]+)\b", re.M)
    headers = layer_names.layer_headers()
    files = sorted((ROOT / "instances").glob("*.[ch]")) + sorted((ROOT / "tests").rglob("*.[ch]"))
    for f in files:
        text = f.read_text(errors="replace")
        pending: dict[str, int] = {}
        for m in re.finditer(include.pattern + "|" + define.pattern, text, re.M):
            if m.group(3):
                if m.group(3) in slot_macros:
                    pending[m.group(3)] = text.count("\n", 0, m.start()) + 1
                continue
            included: str | None = m.group(1)
            if m.group(2):   # a layer written out under another name (tools/layer_names.py)
                renamed = layer_names.renamed_layer(f.parent / m.group(2))
                included = str(headers[renamed].relative_to(reg.root)) if renamed in headers else None
            if included is None:
                continue
            gone = forgotten(reg.root / included) if (reg.root / included).exists() else None
            if gone is None:
                continue
            for macro, line in pending.items():
                if macro not in gone:
                    problems.append(f"{f.relative_to(ROOT)}:{line}: {macro} is not a slot of "
                                    f"{included}, which does not forget it")
            pending = {}
    return problems


INCLUDE_REL = re.compile(r'^#include "([^"]+)"', re.M)
DEFINE_VALUE = re.compile(r"^#define (MT_[A-Z0-9_]+)[ \t]+([^\n]*?)\s*(?:/\*.*)?$", re.M)


def header_defines(header: pathlib.Path, seen: set[pathlib.Path] | None = None) -> dict[str, list[str]]:
    """MT_X → the values the header, and the fragments it includes (not
    core/, pal/ or names/), #define for it, in order."""
    seen = set() if seen is None else seen
    header = header.resolve()
    if header in seen or not header.exists():
        return {}
    seen.add(header)
    text = header.read_text(errors="replace")
    found: dict[str, list[str]] = {}
    for m in DEFINE_VALUE.finditer(text):
        found.setdefault(m.group(1), []).append(m.group(2))
    for inc in INCLUDE_REL.findall(text):
        path = (header.parent / inc).resolve()
        if path.parent.name in ("core", "pal", "names"):
            continue
        for k, v in header_defines(path, seen).items():
            found.setdefault(k, []).extend(v)
    return found


def c_number(text: str) -> int | None:
    """A C constant expression of the defaults' kind, ((size_t)64 << 10),
    as a number; None when it names anything else."""
    t = text.replace("SIZE_MAX", str((1 << 64) - 1))
    t = re.sub(r"\((?:size_t|unsigned(?: long)*|uint64_t|uint32_t|int|long)\)", "", t)
    t = re.sub(r"\b(\d+)[uUlL]+\b", r"\1", t)
    if not re.fullmatch(r"[\d\s()<>*+-]+", t):
        return None
    try:
        return int(eval(t, {"__builtins__": {}}))     # digits and operators only (checked above)
    except (SyntaxError, ValueError, TypeError):
        return None


def slot_default_matches(slot: Slot, values: list[str]) -> bool:
    if slot.vtype == "[lo, hi]":
        want = [c_number(x) for x in slot.default_text.split(",")]
        return any([c_number(x) for x in v.split(",")] == want for v in values)
    if slot.vtype in ("BYTES", "N", "0|1"):
        want_n = c_number(str(slot.value))
        return any(c_number(v) == want_n for v in values)
    return slot.default in values


def descriptor_problems(reg: Registry) -> list[str]:
    """The descriptor against the header: its kind, its defaults, and that
    the contract's prose names every slot."""
    problems: list[str] = []
    for name, layer in reg.layers.items():
        header = reg.root / layer.header
        text = header.read_text(errors="replace")
        problems += kind_problems(layer, text)
        if not re.search(r"^#define MT_DESCRIPTOR MT_DESCRIPTOR_" + name + r"\n#include \"(\.\./)+core/layer_end\.h\"",
                         text, re.M):
            problems.append(f"{name}: {layer.header} does not name its descriptor right before core/layer_end.h "
                            f"(#define MT_DESCRIPTOR MT_DESCRIPTOR_{name}): no traits, no slot range checks")
        defines = header_defines(header)
        prose = _contract(text)
        for slot in layer.slots.values():
            if slot.inherited_from:
                continue
            if not re.search(r"(?<![A-Za-z0-9_])" + slot.name + r"(?![A-Za-z0-9_])", prose):
                problems.append(f"{name}: the contract's prose never names slot {slot.name}")
            if slot.required or slot.empty_default:
                continue
            values = defines.get(slot.macro, [])
            if not values and re.search(r"#ifdef " + slot.macro + r"\b", text):
                continue        # the default is the macro left undefined (buddy_glk's sizeclass)
            if not slot_default_matches(slot, values):
                problems.append(f"{name}: slot {slot.name}: the descriptor's default {slot.default_text!r} is "
                                f"not what {layer.header} #defines for {slot.macro} ({', '.join(values) or 'nothing'})")
    return problems


def ctx_problems(reg: Registry) -> list[str]:
    """A layer's context fields (its descriptor's MT_CTX_FIELD entries) are
    the declarations its contract tells the composition to define."""
    problems: list[str] = []
    for name, layer in reg.layers.items():
        prose = re.sub(r"\s+", " ", _contract((reg.root / layer.header).read_text(errors="replace")))
        for decl in layer.ctx_extra:
            if not re.search(r"#define MT_CTX_EXTRA [^\n]*" + re.escape(decl), prose):
                problems.append(f"{name}: the contract never asks for the context field its descriptor "
                                f"declares (#define MT_CTX_EXTRA {decl})")
    return problems


MARKER = re.compile(r"^\s*#\s*define MT_IMPLEMENTS_(\w+)", re.M)


def operation_problems(reg: Registry) -> list[str]:
    """Every operation a descriptor lists (MT_OPS) is marked somewhere in
    the header or the fragments it includes (its written copies, its own
    fragments); layer_end.h already refuses a marked one it leaves out."""
    problems: list[str] = []
    for name, layer in reg.layers.items():
        header = reg.root / layer.header
        files = [header] + layer_names.private_fragments(name)
        files += sorted((layer_names.WRITTEN_DIR / name).glob("*.inl"))
        marked = {op for f in files for op in MARKER.findall(layer_names.strip_c(f.read_text()))}
        for op in layer.operations:
            if op not in marked:
                problems.append(f"{name}: its descriptor lists {op} (MT_OPS), which nothing in "
                                f"{layer.header} marks (#define MT_IMPLEMENTS_{op})")
    return problems


def policy_problems(table: Table, root: pathlib.Path) -> list[str]:
    """Each policy descriptor against its header: the folder's slot, the
    header's name, and the contract's prose."""
    problems: list[str] = []
    for slot, names in table["policies"].items():
        for name, d in names.items():
            header = root / d["header"]
            where = f"{slot}={name} ({d['header']})"
            if POLICY_FOLDER_SLOT.get(header.parent.name) != slot:
                problems.append(f"{where}: policy/{header.parent.name}/ holds policies of "
                                f"{POLICY_FOLDER_SLOT.get(header.parent.name, 'no slot')}")
            if header.stem != name:
                problems.append(f"{where}: the header's name is {header.stem}")
            prose = _contract(header.read_text(errors="replace"))
            if d["kind"] == "policy" and f"{slot}={name}" not in prose:
                problems.append(f"{where}: the contract's prose never says {slot}={name}")
            for s in d["slots"]:
                if not re.search(r"(?<![A-Za-z0-9_])" + s["name"] + r"(?![A-Za-z0-9_])", prose):
                    problems.append(f"{where}: the contract's prose never names slot {s['name']}")
    return problems


def kind_problems(layer: Layer, text: str) -> list[str]:
    want = KINDS[layer.folder]
    if want is None:
        # A trunk layer serves a size range from memory it owns: a
        # size_handle slot and a page-map id (MT_SELF_ID). An add-on passes
        # requests through (caches have a range but no id; delayed_free has
        # an id for the blocks it wraps but no range).
        want = "trunk" if "MT_SELF_ID" in text and "size_handle" in layer.slots else "add-on"
    if layer.kind != want:
        return [f"{layer.name}: the descriptor says {layer.kind}, its header is a {want} "
                "(os/: OS layer, sockets/: socket; layers/: trunk with a size_handle slot and a page-map id, "
                "MT_SELF_ID, else add-on)"]
    return []


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
    table = descriptors()
    reg = Registry(ROOT / "include", descriptors=table)
    headers, rows = header_contracts(reg), catalogue_rows()
    problems: list[str] = []
    for name, (folder, path, slots, derived) in headers.items():
        row = rows.get(name)
        if not row:
            problems.append(f"{name}: no row in docs/layers.md (header {path})")
            continue
        kind, where, slot_cell = row[1], row[2], norm(row[3])
        if kind != derived:
            problems.append(f"{name}: kind '{kind}' in docs, '{derived}' by its descriptor")
        if str(path) not in where:
            problems.append(f"{name}: docs name header '{where}', it is {path}")
        for slot, default in slots.items():
            if norm(slot) not in slot_cell:
                problems.append(f"{name}: slot {slot} missing from docs row")
            elif not default_listed(default, row[3]):
                problems.append(f"{name}: slot {slot} default '{default}' not in docs row")
    for name in rows:
        if name not in headers:
            problems.append(f"{name}: docs row but no header describes it (MT_DESCRIPTOR_{name})")
    problems += alias_problems(reg)
    problems += forgetting_problems(reg)
    problems += descriptor_problems(reg)
    problems += ctx_problems(reg)
    problems += operation_problems(reg)
    problems += policy_problems(table, reg.root)
    for p in problems:
        print("catalogue:", p)
    print(f"catalogue: {len(headers)} layers checked, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

"""The registry of layers, policies and instances, read from the headers.

Nothing here is a table kept by hand: a layer is a header under
include/mortise/{os,layers,sockets} that defines a descriptor,
MT_DESCRIPTOR_<name> (core/describe.h): its model name, kind, traits,
aliases, links and slots (macro, type, default, allowed values, slot
aliases). tools/describe_layers.py expands the descriptors with the C
preprocessor into descriptors.json, which this module reads; only a layer's
summary (its contract's first sentence) and the context fields a socket
needs (MT_CTX_EXTRA) still come from its contract comment. A policy is a
header under include/mortise/policy/ whose first line reads
"SLOT=NAME — ..."; a policy header whose contract states slots of its own
("slot=TYPE → MT_MACRO (default)", policy/sync/lockstat.h) gives them to
every layer with that slot; a ready instance is a composition file with a
"model:" line in its opening comment. So `mortise list`, the spec checker
and tools/check_catalogue.py see exactly what the compiler will see.
"""
from __future__ import annotations

import json
import pathlib
import re
from collections.abc import Iterable
from typing import Any, Dict, List, Tuple

from .describe import Descriptor

FOLDER_KIND: dict[str, str | None] = {"os": "OS layer", "layers": None, "sockets": "socket"}
KIND_ORDER = ("OS layer", "trunk", "add-on", "socket")
# The slots whose values are policies, by the policy folder's slot name.
POLICY_SLOTS = ("sync", "sizeclass", "chksum", "err_handle")

# A policy header's own slots (policy/sync/lockstat.h), as its contract
# states them: slot=TYPE → MT_MACRO (default...), TYPE a word, 0|1 or [lo, hi].
SLOT = re.compile(r"(?<![A-Za-z0-9_])([a-z][a-z0-9_]*)=(\[[^\]]*\]|[^\s→]+)\s*→\s*"
                  r"(MT_[A-Z0-9_]+)\s*\(")
POLICY_LINE = re.compile(r"^/\*\s*([a-z_]+)=([a-z0-9_]+)\s")
# Context fields a layer or socket needs declared before Mortise is included.
CTX_EXTRA = re.compile(r"#define MT_CTX_EXTRA ([^\n]*?)\s*$", re.M)
# Slot extensions by slot: (policy header, the slots it adds) for each.
Extensions = Dict[str, List[Tuple[pathlib.Path, Dict[str, "Slot"]]]]


SIZE_MAX = (1 << 64) - 1
# The layers' descriptors as tools/describe_layers.py wrote them (installed
# beside this module).
TABLE = pathlib.Path(__file__).resolve().parent / "descriptors.json"
# The descriptor's type names that the model language spells otherwise.
VTYPE = {"RANGE": "[lo, hi]", "BOOL": "0|1", "INSTANCE": "LAYER"}


def _size_text(n: Any) -> str:
    if isinstance(n, int) and n:
        for shift, unit in ((30, "GiB"), (20, "MiB"), (10, "KiB")):
            if n % (1 << shift) == 0:
                return f"{n >> shift} {unit}"
    return str(n)


class Slot:
    """One policy slot of a layer as its contract states it."""

    inherited_from: pathlib.Path | None = None    # the policy header that gives it to the layer
    value: Any = None          # a descriptor's default as it states it (65536, [0, "SIZE_MAX"], "tc")

    def __init__(self, name: str, vtype: str, macro: str, default_text: str, line: int,
                 allowed: list[Any] | None = None) -> None:
        self.name = name
        self.vtype = vtype              # "[lo, hi]", "0|1", "BYTES", "N", "POLICY", ...
        self.macro = macro
        self.default_text = default_text  # e.g. "2 MiB", "0, 32768"
        self.line = line                  # line of the contract it is stated on (0: a descriptor's)
        self.allowed = allowed or []      # the descriptor's (lo, hi) or names

    @classmethod
    def described(cls, d: dict[str, Any]) -> "Slot":
        """A slot of a layer's descriptor (descriptors.json): the model
        language's spelling of its type and default."""
        t, dflt, allowed = d["type"], d["default"], d["allowed"]
        vtype = VTYPE.get(t, t)
        if t == "CHOICE":
            vtype = "|".join(allowed)
        if t == "RANGE":
            text = ", ".join(str(x) for x in dflt)
        elif t == "BYTES":
            text = _size_text(dflt)
        else:
            text = str(dflt)
        slot = cls(d["name"], vtype, d["macro"], text, 0, allowed)
        slot.value = dflt
        return slot

    def allows(self, value: int) -> bool:
        """Is value inside the numeric range the descriptor declares (any
        value for a slot without one)?"""
        if len(self.allowed) != 2 or not all(isinstance(x, int) or x == "SIZE_MAX" for x in self.allowed):
            return True
        lo, hi = (SIZE_MAX if x == "SIZE_MAX" else x for x in self.allowed)
        return bool(lo <= value <= hi)

    @property
    def special(self) -> list[int]:
        """Values a numeric slot gives a meaning of their own: 0 ("off")
        where its declared range starts at 0 (core/describe.h)."""
        if self.vtype in ("BYTES", "N") and self.allowed[:1] == [0]:
            return [0]
        return []

    @property
    def default(self) -> str:
        """The default's first item, the part before ';', ':' or ', a ...'."""
        d = self.default_text
        if self.vtype.startswith("["):
            parts = [p.strip() for p in d.split(";")[0].split(":")[0].split(",")]
            return ", ".join(parts[:2])
        d = re.split(r"[;:]|,\s", d)[0].strip()
        d = re.sub(r"\s*=.*$", "", d)       # "0 = off" → "0"
        return d

    @property
    def required(self) -> bool:
        return self.default.lower() == "required"

    @property
    def empty_default(self) -> bool:
        return self.default.lower() in ("empty", "none", "") and self.vtype == "IDENT"


class Layer:
    def __init__(self, name: str, kind: str, folder: str, header: pathlib.Path, slots: dict[str, Slot],
                 ctx_extra: Iterable[str] = ()) -> None:
        self.ctx_extra = list(ctx_extra)   # e.g. "unsigned gfp;" (kernel_socket)
        self.links: list[str] = []                    # libraries to link, e.g. ["unwind"]
        self.name = name
        self.kind = kind          # OS layer, trunk, add-on, socket
        self.folder = folder      # os, layers, sockets
        self.header = header      # path relative to include/mortise
        self.slots = slots        # name → Slot, in contract order
        self.aliases: list[str] = []         # other names of the layer ("[alias: NAME]")
        self.slot_aliases: dict[str, str] = {}    # other slot name → slot name ("[slot alias: A → S]")

    summary = ""              # the contract's first sentence
    traits = "0"              # its MT_TRAIT_* expression (core/ctx.h), as the descriptor states it

    @property
    def include(self) -> str:
        return f"mortise/{self.header}"


def _contract(text: str) -> str:
    end = text.find("*/")
    return text[: end if end > 0 else len(text)]


def _default_text(contract: str, start: int) -> str:
    """The parenthesised default opening at contract[start], across lines."""
    depth, i, out = 0, start, []
    while i < len(contract):
        c = contract[i]
        if c == "(":
            depth += 1
            if depth == 1:
                i += 1
                continue
        elif c == ")":
            depth -= 1
            if depth == 0:
                break
        out.append(c)
        i += 1
    text = "".join(out)
    text = re.sub(r"\n\s*\*\s*", " ", text)      # comment continuation lines
    return re.sub(r"\s+", " ", text).strip()


def summary(contract: str) -> str:
    """'OS-interface layer over POSIX mmap' from '/* mmap_heap — OS-interface
    layer over POSIX mmap.   [model: mmap_heap]': the title up to its end."""
    head = contract.split("\n *\n")[0]
    head = re.sub(r"\n\s*\*\s*", " ", head)
    head = re.sub(r"\[model:[^\]]*\]", "", head.split("—", 1)[-1])
    head = re.sub(r"\s+", " ", head).strip()
    return re.split(r"(?<=\.)\s", head)[0].rstrip(".")


def parse_slots(contract: str) -> dict[str, Slot]:
    slots = {}
    for m in SLOT.finditer(contract):
        name, vtype, macro = m.group(1), m.group(2), m.group(3)
        if name in slots:
            continue
        line = contract.count("\n", 0, m.start()) + 1
        slots[name] = Slot(name, vtype, macro, _default_text(contract, m.end() - 1), line)
    return slots


class Registry:
    """Layers, policies and instances of one include tree."""

    def __init__(self, include_dir: str | pathlib.Path, instance_dirs: Iterable[str | pathlib.Path] = (),
                 descriptors: dict[str, Descriptor] | None = None) -> None:
        """descriptors: the layers' descriptors (describe.describe() of
        include_dir); the checked-in table, descriptors.json, by default."""
        self.include_dir = pathlib.Path(include_dir)
        self.root = self.include_dir / "mortise"
        self.instance_dirs = [pathlib.Path(d) for d in instance_dirs]
        if descriptors is None:
            descriptors = json.loads(TABLE.read_text())
        self.layers = self._read_layers(descriptors)
        self.policies, extensions = self._read_policies()
        self._extend(extensions)

    def _read_layers(self, descriptors: dict[str, Descriptor]) -> dict[str, Layer]:
        layers = {}

        def order(item: tuple[str, Descriptor]) -> tuple[int, str]:   # by folder, then header
            header = item[1]["header"]
            return list(FOLDER_KIND).index(header.split("/")[0]), header
        for name, d in sorted(descriptors.items(), key=order):
            header = pathlib.Path(d["header"])
            slots = {s["name"]: Slot.described(s) for s in d["slots"]}
            path = self.root / header
            contract = _contract(path.read_text(errors="replace")) if path.exists() else ""
            layer = Layer(name, d["kind"], header.parts[0], header, slots, CTX_EXTRA.findall(contract))
            layer.summary = summary(contract)
            layer.links = list(d["links"])
            layer.aliases = list(d["aliases"])
            layer.slot_aliases = {a: s["name"] for s in d["slots"] for a in s["aliases"]}
            layer.traits = d["traits"]
            layers[name] = layer
        return layers

    def _read_policies(self) -> tuple[dict[str, dict[str, pathlib.Path]], Extensions]:
        """Policies: headers of policy/FOLDER/ whose first line reads
        SLOT=NAME. A header there whose contract declares slots of its own
        (policy/sync/lockstat.h: lock_stat=0|1 → MT_LOCK_STAT (0)) extends
        the slot instead: every layer with that slot has those too."""
        policies: dict[str, dict[str, pathlib.Path]] = {}
        extensions: Extensions = {}
        folder_slot: dict[str, str] = {}
        for path in sorted((self.root / "policy").glob("*/*.h")):
            text = path.read_text(errors="replace")
            own = parse_slots(_contract(text))
            rel = path.relative_to(self.root)
            if own:
                extensions.setdefault(path.parent.name, []).append((rel, own))
                continue
            m = POLICY_LINE.match(text)
            if m:
                policies.setdefault(m.group(1), {})[m.group(2)] = rel
                folder_slot[path.parent.name] = m.group(1)
        return policies, {folder_slot[f]: e for f, e in extensions.items()
                          if f in folder_slot}

    def _extend(self, extensions: Extensions) -> None:
        for slot_name, headers in extensions.items():
            for layer in self.layers.values():
                if slot_name not in layer.slots:
                    continue
                for rel, slots in headers:
                    for name, slot in slots.items():
                        if name not in layer.slots:
                            slot.inherited_from = rel
                            layer.slots[name] = slot

    def aliases(self) -> dict[str, str]:
        """Every layer alias → the layer's name."""
        return {a: l.name for l in self.layers.values() for a in l.aliases}

    def by_kind(self, kind: str) -> list[Layer]:
        return [l for l in self.layers.values() if l.kind == kind]

    def policy_names(self, slot: str) -> list[str]:
        return sorted(self.policies.get(slot, {}))

    def instances(self) -> dict[str, tuple[str, pathlib.Path]]:
        """name → (model line, composition file), from the "model:" lines."""
        found: dict[str, tuple[str, pathlib.Path]] = {}
        for d in self.instance_dirs:
            for path in sorted(d.glob("*.c")):
                line = instance_model_line(path.read_text(errors="replace"))
                if line:
                    found.setdefault(path.stem, (line, path))
        return found


def instance_model_line(text: str) -> str | None:
    """The model line of a composition file's opening comment, joined, or None.

    The line starts at "model:" and runs over the comment's following lines
    until a line that does not continue it (blank, or one that does not start
    with a layer separator or continue an open bracket).
    """
    comment = _contract(text)
    lines = [re.sub(r"^\s*/?\*+\s?", "", l) for l in comment.splitlines()]
    for i, l in enumerate(lines):
        m = re.match(r"\s*model:\s*(.*)$", l)
        if not m:
            continue
        parts = [m.group(1).strip()]
        for nxt in lines[i + 1:]:
            s = nxt.strip()
            depth = sum(p.count("(") + p.count("[") - p.count(")") - p.count("]")
                        for p in parts)
            if s.startswith("::") or (s and depth > 0):
                parts.append(s)
            else:
                break
        return re.sub(r"\s*::\s*", "::", " ".join(parts)).strip()
    return None

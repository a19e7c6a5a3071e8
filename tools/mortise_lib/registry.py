"""The registry of layers, policies and instances, read from the headers.

Nothing here is a table kept by hand: a layer is a header under
include/mortise/{os,layers,sockets} that defines a descriptor,
MT_DESCRIPTOR_<name> (core/describe.h): its model name, kind, traits,
aliases, links and slots (macro, type, default, allowed values, slot
aliases) and the context fields it needs (MT_CTX_EXTRA). A policy is a
header under include/mortise/policy/ that defines a policy descriptor,
MT_POLICY_DESCRIPTOR_<slot>_<name>: its slot, name and kind; an extension
(policy/sync/lockstat.h) is no value of its slot but gives the slots its
descriptor states to every layer with that slot. tools/describe_layers.py
expands the descriptors with the C preprocessor into descriptors.json,
which this module reads; only a layer's summary (its contract's first
sentence) still comes from its contract comment. A ready instance is a
composition file with a "model:" line in its opening comment. So `mortise
list`, the spec checker and tools/check_catalogue.py see exactly what the
compiler will see.
"""
from __future__ import annotations

import json
import pathlib
import re
from collections.abc import Iterable
from typing import Any, Dict, List, Tuple

from .describe import Table

FOLDER_KIND: dict[str, str | None] = {"os": "OS layer", "layers": None, "sockets": "socket"}
KIND_ORDER = ("OS layer", "trunk", "add-on", "socket")
# The slots whose values are policies, by the policy folder's slot name.
POLICY_SLOTS = ("sync", "sizeclass", "chksum", "err_handle")
# Slot extensions by slot: (policy header, the slots it adds) for each.
Extensions = Dict[str, List[Tuple[pathlib.Path, Dict[str, "Slot"]]]]


SIZE_MAX = (1 << 64) - 1
# The layers' and policies' descriptors as tools/describe_layers.py wrote
# them (installed beside this module).
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
    """One slot of a layer as its descriptor states it."""

    inherited_from: pathlib.Path | None = None    # the policy header that gives it to the layer
    value: Any = None          # a descriptor's default as it states it (65536, [0, "SIZE_MAX"], "tc")

    def __init__(self, name: str, vtype: str, macro: str, default_text: str,
                 allowed: list[Any] | None = None) -> None:
        self.name = name
        self.vtype = vtype              # "[lo, hi]", "0|1", "BYTES", "N", "POLICY", ...
        self.macro = macro
        self.default_text = default_text  # e.g. "2 MiB", "0, 32768"
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
        slot = cls(d["name"], vtype, d["macro"], text, allowed)
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
        self.operations: list[str] = []    # the operations it implements (MT_OPS), core/ops.h's order
        self.links: list[str] = []                    # libraries to link (the descriptor's links)
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


def summary(contract: str) -> str:
    """'OS-interface layer over POSIX mmap' from '/* mmap_heap — OS-interface
    layer over POSIX mmap.   [model: mmap_heap]': the title up to its end."""
    head = contract.split("\n *\n")[0]
    head = re.sub(r"\n\s*\*\s*", " ", head)
    head = re.sub(r"\[model:[^\]]*\]", "", head.split("—", 1)[-1])
    head = re.sub(r"\s+", " ", head).strip()
    return re.split(r"(?<=\.)\s", head)[0].rstrip(".")


class Registry:
    """Layers, policies and instances of one include tree."""

    def __init__(self, include_dir: str | pathlib.Path, instance_dirs: Iterable[str | pathlib.Path] = (),
                 descriptors: Table | None = None) -> None:
        """descriptors: the layers' and policies' descriptors
        (describe.describe() of include_dir); the checked-in table,
        descriptors.json, by default."""
        self.include_dir = pathlib.Path(include_dir)
        self.root = self.include_dir / "mortise"
        self.instance_dirs = [pathlib.Path(d) for d in instance_dirs]
        if descriptors is None:
            descriptors = json.loads(TABLE.read_text())
        self.layers = self._read_layers(descriptors["layers"])
        self.policies, extensions = self._read_policies(descriptors["policies"])
        self._extend(extensions)

    def _read_layers(self, descriptors: dict[str, Any]) -> dict[str, Layer]:
        layers = {}

        def order(item: tuple[str, Any]) -> tuple[int, str]:   # by folder, then header
            header = item[1]["header"]
            return list(FOLDER_KIND).index(header.split("/")[0]), header
        for name, d in sorted(descriptors.items(), key=order):
            header = pathlib.Path(d["header"])
            slots = {s["name"]: Slot.described(s) for s in d["slots"]}
            path = self.root / header
            contract = _contract(path.read_text(errors="replace")) if path.exists() else ""
            layer = Layer(name, d["kind"], header.parts[0], header, slots, d["ctx"])
            layer.summary = summary(contract)
            layer.links = list(d["links"])
            layer.aliases = list(d["aliases"])
            layer.slot_aliases = {a: s["name"] for s in d["slots"] for a in s["aliases"]}
            layer.traits = d["traits"]
            layer.operations = list(d["operations"])
            layers[name] = layer
        return layers

    @staticmethod
    def _read_policies(descriptors: dict[str, Any]) -> tuple[dict[str, dict[str, pathlib.Path]], Extensions]:
        """Policies by slot, from their descriptors. An extension
        (policy/sync/lockstat.h: lock_stat, MT_LOCK_STAT, BOOL) is no value of
        its slot: every layer with that slot has the slots it declares."""
        policies: dict[str, dict[str, pathlib.Path]] = {}
        extensions: Extensions = {}
        for slot_name, names in sorted(descriptors.items()):
            for name, d in sorted(names.items(), key=lambda item: item[1]["header"]):
                rel = pathlib.Path(d["header"])
                if d["kind"] == "extension":
                    own = {s["name"]: Slot.described(s) for s in d["slots"]}
                    extensions.setdefault(slot_name, []).append((rel, own))
                else:
                    policies.setdefault(slot_name, {})[name] = rel
        return policies, extensions

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

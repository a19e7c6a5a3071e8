"""The registry of layers, policies and instances, read from the headers.

Nothing here is a table kept by hand: a layer is a header under
include/mortise/{os,layers,sockets} whose contract block carries
"[model: NAME]"; its slots are the contract's "slot=TYPE → MT_MACRO (default)"
entries; other names the model language accepts for it are its "[alias: NAME]"
and, for a slot, "[slot alias: NAME → SLOT]" tags (the paper's spellings); a
policy is a header under include/mortise/policy/ whose first line reads
"SLOT=NAME — ..."; a ready instance is a composition file with a "model:"
line in its opening comment. So `mortise list`, the spec checker and
tools/check_catalogue.py see exactly what the compiler will see.
"""
from __future__ import annotations

import pathlib
import re
from collections.abc import Iterable
from typing import Dict, List, Tuple

FOLDER_KIND: dict[str, str | None] = {"os": "OS layer", "layers": None, "sockets": "socket"}
KIND_ORDER = ("OS layer", "trunk", "add-on", "socket")
# The slots whose values are policies, by the policy folder's slot name.
POLICY_SLOTS = ("sync", "sizeclass", "chksum", "err_handle")

MODEL = re.compile(r"\[model:\s*([a-z0-9_]+)\]")
ALIAS = re.compile(r"\[alias:\s*([a-z0-9_]+)\]")
SLOT_ALIAS = re.compile(r"\[slot alias:\s*([a-z0-9_]+)\s*→\s*([a-z0-9_]+)\]")
# slot=TYPE → MT_MACRO (default...): TYPE is a word, 0|1, or [lo, hi].
SLOT = re.compile(r"(?<![A-Za-z0-9_])([a-z][a-z0-9_]*)=(\[[^\]]*\]|[^\s→]+)\s*→\s*"
                  r"(MT_[A-Z0-9_]+)\s*\(")
POLICY_LINE = re.compile(r"^/\*\s*([a-z_]+)=([a-z0-9_]+)\s")
# Libraries a layer needs linked ("[links: unwind]": -lunwind).
LINKS = re.compile(r"\[links:\s*([a-z0-9_ ]+)\]")
# Context fields a layer or socket needs declared before Mortise is included.
CTX_EXTRA = re.compile(r"#define MT_CTX_EXTRA ([^\n]*?)\s*$", re.M)
# Slot extensions by slot: (policy header, the slots it adds) for each.
Extensions = Dict[str, List[Tuple[pathlib.Path, Dict[str, "Slot"]]]]


class Slot:
    """One policy slot of a layer as its contract states it."""

    inherited_from: pathlib.Path | None = None    # the policy header that gives it to the layer

    def __init__(self, name: str, vtype: str, macro: str, default_text: str, line: int) -> None:
        self.name = name
        self.vtype = vtype              # "[lo, hi]", "0|1", "BYTES", "N", "POLICY", ...
        self.macro = macro
        self.default_text = default_text  # as written, e.g. "2 MiB", "0, 32768"
        self.line = line                  # line of the header it is stated on

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
    head = MODEL.sub("", head.split("—", 1)[-1])
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

    def __init__(self, include_dir: str | pathlib.Path, instance_dirs: Iterable[str | pathlib.Path] = ()) -> None:
        self.include_dir = pathlib.Path(include_dir)
        self.root = self.include_dir / "mortise"
        self.instance_dirs = [pathlib.Path(d) for d in instance_dirs]
        self.layers = self._read_layers()
        self.policies, extensions = self._read_policies()
        self._extend(extensions)

    def _read_layers(self) -> dict[str, Layer]:
        layers = {}
        for folder, kind in FOLDER_KIND.items():
            for path in sorted((self.root / folder).glob("*.h")):
                text = path.read_text(errors="replace")
                contract = _contract(text)
                m = MODEL.search(contract)
                if not m:
                    continue
                slots = parse_slots(contract)
                if kind is None:
                    # A trunk layer serves a size range from memory it owns:
                    # a size_handle slot and a page-map id (MT_SELF_ID). An
                    # add-on passes requests through (caches have a range but
                    # no id; delayed_free has an id for the blocks it wraps
                    # but no range).
                    owns = "MT_SELF_ID" in text
                    kind = "trunk" if owns and "size_handle" in slots else "add-on"
                layer = Layer(m.group(1), kind, folder, path.relative_to(self.root),
                              slots, CTX_EXTRA.findall(contract))
                layer.summary = summary(contract)
                links = LINKS.search(contract)
                layer.links = links.group(1).split() if links else []
                layer.aliases = ALIAS.findall(contract)
                layer.slot_aliases = dict(SLOT_ALIAS.findall(contract))
                layers[m.group(1)] = layer
                kind = FOLDER_KIND[folder]
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

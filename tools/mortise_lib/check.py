"""A parsed spec checked against the registry: the composition it stands for.

Rules (docs/mortise.md, "Semantics"):
- exactly one OS layer, first; exactly one socket, last; at most 16 instances
  (MT_COMPOSE's limit); trunk layers and add-ons between, in any order;
- every slot is one the layer's contract lists (or name=, the instance name),
  given once, with a value of the slot's type; required slots are given;
- the trunk layers' size_handle ranges [lo, hi) (defaults filled in), leaving
  out layers only reached through a cond_bypass target, are disjoint and
  together cover [0, top) without a gap; above top the OS layer serves.
"""
from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from typing import Any, NoReturn

from .registry import POLICY_SLOTS, Layer, Registry, Slot
from .spec import SIZE_MAX, UNITS, Arg, LayerRef, Spec, SpecError, Value, Warning_, format_size, parse

MAX_INSTANCES = 16
C_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def suggest(word: str, choices: Iterable[str]) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f"; did you mean '{close[0]}'?" if close else ""


class SlotValue:
    """A slot of an instance: its value, and whether the spec gave it.

    value by the slot's type: an int (a size, a count, 0|1, SIZE_MAX), a name,
    a (lo, hi) range, or None (no default)."""

    length = 1      # of the value's text in the spec, set where the spec gives it

    def __init__(self, slot: Slot, value: Any, given: bool, pos: int | None = None,
                 text: str | None = None) -> None:
        self.slot, self.value, self.given, self.pos = slot, value, given, pos
        self.text = text if text is not None else render_value(slot, value)


class Instance:
    def __init__(self, ref: LayerRef, layer: Layer, name: str) -> None:
        self.ref, self.layer, self.name = ref, layer, name
        self.values: dict[str, SlotValue] = {}          # slot name → SlotValue, contract order
        self.given: list[str] = []           # the slots the spec gives, in its order
        self.named = False        # name= given

    @property
    def kind(self) -> str:
        return self.layer.kind

    def range(self) -> Any:
        sv = self.values.get("size_handle")
        return sv.value if sv else None


class Composition:
    def __init__(self, spec: Spec, instances: list[Instance], warnings: list[Warning_]) -> None:
        self.spec, self.instances, self.warnings = spec, instances, warnings

    @property
    def os(self) -> Instance:
        return self.instances[0]

    @property
    def socket(self) -> Instance:
        return self.instances[-1]


def render_value(slot: Slot, value: Any) -> str:
    """A value as the model language writes it (for explain and comments)."""
    if value is None:
        return "(empty)"
    if isinstance(value, tuple):
        return f"[{render_scalar(value[0])}, {render_scalar(value[1])}]"
    if isinstance(value, int) and slot.vtype == "BYTES":
        return format_size(value).replace(" ", "")
    return render_scalar(value)


def render_scalar(v: int | str) -> str:
    if v == SIZE_MAX:
        return "SIZE_MAX"
    return str(v)


def parse_default(slot: Slot) -> Any:
    """The contract's default as a value of the slot's type, or None."""
    d = slot.default
    if slot.required or slot.empty_default:
        return None
    try:
        if slot.vtype.startswith("["):
            lo, hi = (x.strip() for x in d.split(","))
            return (scalar_of_text(lo), scalar_of_text(hi))
        if slot.vtype in ("BYTES", "N", "0|1"):
            return scalar_of_text(d)
    except (ValueError, SpecError):
        return d
    return d


def scalar_of_text(text: str) -> int:
    text = text.strip().replace(" ", "")
    if text == "SIZE_MAX":
        return SIZE_MAX
    m = re.fullmatch(r"(\d+)([A-Za-z]*)", text)
    if not m:
        raise ValueError(text)
    return int(m.group(1)) * UNITS.get(m.group(2).lower(), 1) if m.group(2) else int(m.group(1))


class Checker:
    def __init__(self, registry: Registry, text: str) -> None:
        self.registry = registry
        self.text = text

    def error(self, msg: str, pos: int, length: int = 1) -> NoReturn:
        raise SpecError(msg, pos, length)

    def run(self) -> Composition:
        spec = parse(self.text)
        warnings = list(spec.warnings)
        instances = [self.instance(ref, warnings) for ref in spec.layers]
        self.order(instances)
        self.name_instances(instances)
        for inst in instances:
            self.slots(inst, instances, warnings)
        self.ranges(instances)
        warnings.sort(key=lambda w: w.pos)
        return Composition(spec, instances, warnings)

    # -- layers and their order ------------------------------------------------
    def instance(self, ref: LayerRef, warnings: list[Warning_]) -> Instance:
        layer = self.registry.layers.get(ref.name)
        alias_of = self.registry.aliases().get(ref.name)
        if layer is None and alias_of:
            layer = self.registry.layers[alias_of]
            warnings.append(Warning_(f"'{ref.name}' read as the layer '{layer.name}' (an alias: "
                                     "the paper's name)", ref.pos, len(ref.name)))
        if layer is None:
            for slot, names in self.registry.policies.items():
                if ref.name in names:
                    self.error(f"'{ref.name}' is a {slot} policy, not a layer: write "
                               f"it as a slot value, e.g. segfit_lk({slot}={ref.name})",
                               ref.pos, len(ref.name))
            self.error(f"unknown layer '{ref.name}'" +
                       suggest(ref.name, self.registry.layers), ref.pos, len(ref.name))
        return Instance(ref, layer, layer.name)

    def names_of(self, kind: str) -> str:
        return ", ".join(l.name for l in self.registry.by_kind(kind))

    def order(self, instances: list[Instance]) -> None:
        oses = [i for i in instances if i.kind == "OS layer"]
        sockets = [i for i in instances if i.kind == "socket"]
        first, last = instances[0], instances[-1]
        if not oses:
            self.error("no OS layer: a composition starts with exactly one ("
                       + self.names_of("OS layer") + ")", first.ref.pos, len(first.ref.name))
        if first.kind != "OS layer":
            o = oses[0]
            self.error(f"the OS layer '{o.name}' must come first (the list runs from "
                       "the OS layer to the socket)", o.ref.pos, len(o.name))
        if len(oses) > 1:
            o = oses[1]
            self.error(f"a second OS layer '{o.name}': a composition has exactly one, "
                       "first", o.ref.pos, len(o.name))
        if not sockets:
            self.error("no socket: a composition ends with exactly one ("
                       + self.names_of("socket") + ")", last.ref.end)
        if len(sockets) > 1:
            s = sockets[0] if last.kind == "socket" else sockets[1]
            self.error(f"a second socket '{s.name}': a composition has exactly one, "
                       "last", s.ref.pos, len(s.name))
        if last.kind != "socket":
            s = sockets[0]
            self.error(f"the socket '{s.name}' must come last (the list runs from "
                       "the OS layer to the socket)", s.ref.pos, len(s.name))
        if len(instances) > MAX_INSTANCES:
            r = instances[MAX_INSTANCES].ref
            self.error(f"more than {MAX_INSTANCES} layers (MT_COMPOSE's limit)",
                       r.pos, len(r.name))

    def name_instances(self, instances: list[Instance]) -> None:
        """name= where given; a type written twice gets TYPE_1, TYPE_2, ..."""
        count: dict[str, int] = {}
        for inst in instances:
            count[inst.layer.name] = count.get(inst.layer.name, 0) + 1
        seen: dict[str, int] = {}
        taken: dict[str, Instance] = {}
        for inst in instances:
            for a in inst.ref.args:
                if a.name == "name":
                    if a.value is None or a.value.kind != "name" or \
                            not C_IDENT.fullmatch(a.value.name):
                        self.error("name= takes a C identifier, the instance's name",
                                   a.value.pos if a.value else a.pos)
                    inst.name, inst.named = a.value.name, True
            if not inst.named and count[inst.layer.name] > 1:
                seen[inst.layer.name] = seen.get(inst.layer.name, 0) + 1
                inst.name = f"{inst.layer.name}_{seen[inst.layer.name]}"
            if inst.name in taken:
                self.error(f"two instances named '{inst.name}' (name each one with "
                           "name=...)", inst.ref.pos, len(inst.ref.name))
            taken[inst.name] = inst

    # -- slots -------------------------------------------------------------------
    def slots(self, inst: Instance, instances: list[Instance], warnings: list[Warning_]) -> None:
        layer = inst.layer
        given: dict[str, Arg] = {}
        for a in inst.ref.args:
            if a.name == "name":
                continue
            slot = layer.slots.get(a.name)
            if slot is None and a.name in layer.slot_aliases:
                alias, a.name = a.name, layer.slot_aliases[a.name]
                slot = layer.slots[a.name]
                warnings.append(Warning_(f"'{alias}' read as {layer.name}'s slot '{a.name}' (an "
                                         "alias: the paper's name)", a.pos, len(alias)))
            if a.value is None:
                if slot is None:
                    warnings.append(Warning_(
                        f"'{a.name}' without a value, and {layer.name} has no slot "
                        f"'{a.name}': ignored (as printed in the paper's hslab line)",
                        a.pos, len(a.name)))
                    continue
                self.error(f"slot '{a.name}' of {layer.name} needs a value "
                           f"({a.name}={slot.vtype})", a.pos, len(a.name))
            if slot is None:
                choices = list(layer.slots) + ["name"]
                have = ", ".join(layer.slots) or "none"
                self.error(f"unknown slot '{a.name}' for {layer.name}" +
                           (suggest(a.name, choices) or f" (its slots: {have})"),
                           a.pos, len(a.name))
            if a.name in given:
                self.error(f"slot '{a.name}' given twice", a.pos, len(a.name))
            given[a.name] = a
            inst.given.append(a.name)
        for name, slot in layer.slots.items():
            g = given.get(name)
            if g is None:
                if slot.required:
                    self.error(f"{layer.name} needs slot '{name}' ({name}={slot.vtype})",
                               inst.ref.pos, len(inst.ref.name))
                inst.values[name] = SlotValue(slot, parse_default(slot), False)
                continue
            v = g.value
            assert v is not None        # a slot without a value was refused or skipped above
            value = self.value(inst, slot, v, instances)
            text = f"[{v.items[0].text}, {v.items[1].text}]" \
                if v.kind == "range" else v.text
            inst.values[name] = SlotValue(slot, value, True, v.pos, text)
            inst.values[name].length = v.end - v.pos

    def bad(self, v: Value, msg: str) -> NoReturn:
        self.error(msg, v.pos, v.end - v.pos)

    def value(self, inst: Instance, slot: Slot, v: Value, instances: list[Instance]) -> Any:
        t, where = slot.vtype, f"{slot.name} of {inst.layer.name}"
        if t.startswith("["):
            if v.kind != "range":
                self.bad(v, f"{where} is a size range [lo, hi], not '{v.text}'")
            lo, hi = (self.size(x, where) for x in v.items)
            if lo == SIZE_MAX:
                self.bad(v.items[0], f"{where}: the lower bound cannot be SIZE_MAX")
            if lo >= hi:
                self.bad(v, f"{where}: empty range [{format_size(lo)}, {format_size(hi)}) "
                         "(lo must be below hi; [lo, hi] serves lo <= size < hi)")
            return (lo, hi)
        if v.kind == "range":
            self.bad(v, f"{where} takes one value ({t}), not a range")
        if t == "0|1":
            if v.kind != "number" or v.unit or v.number not in (0, 1):
                self.bad(v, f"{where} is 0 or 1, not '{v.text}'")
            return v.number
        if t in ("N", "BYTES"):
            if t == "N" and v.kind != "number":
                self.bad(v, f"{where} is a count (a plain number), not '{v.text}'")
            if t == "N" and v.unit:
                self.bad(v, f"{where} is a count: no unit ('{v.text}')")
            n = v.number if t == "N" else self.size(v, where)
            if not slot.allows(n):      # what the layer's descriptor declares, and the compiler checks
                lo, hi = (x if isinstance(x, str) or t == "N" else format_size(x) for x in slot.allowed)
                self.bad(v, f"{where} is {lo} to {hi} (its descriptor), not '{v.text}'")
            return n
        if t == "POLICY" or slot.name in self.registry.policies or \
                ("|" in t and t != "0|1"):
            if v.kind != "name":
                self.bad(v, f"{where} names a policy, not '{v.text}'")
            known = self.registry.policy_names(slot.name)
            if "|" in t:                      # an enumeration: a|b|c
                known = sorted(set(known) | set(t.split("|")))
            if v.name in known or v.name == slot.default:
                return v.name
            if slot.name in POLICY_SLOTS or known:
                listed = ", ".join(known) or "none in this include tree"
                what = "policy" if slot.name in self.registry.policies else "value"
                self.bad(v, f"unknown {slot.name} {what} '{v.name}'" +
                         (suggest(v.name, known) or f" (known: {listed})"))
            return v.name
        if t == "LAYER":
            if v.kind != "name":
                self.bad(v, f"{where} names a layer instance, not '{v.text}'")
            below = instances[:instances.index(inst)]
            names = [i.name for i in below]
            if v.name not in names:
                above = [i.name for i in instances if i.name == v.name]
                if above:
                    self.bad(v, f"{where}: '{v.name}' is not below {inst.name} (a "
                             "target above would recurse)")
                types = [i for i in below if i.layer.name == v.name]
                if len(types) > 1:
                    self.bad(v, f"{where}: '{v.name}' is written {len(types)} times "
                             "below; name the one you mean with name=... and use that")
                self.bad(v, f"{where}: no instance '{v.name}' below {inst.name}" +
                         suggest(v.name, names))
            return v.name
        # IDENT, FUNCTION and any other word-valued slot: a C identifier.
        if v.kind != "name" or not C_IDENT.fullmatch(v.name):
            self.bad(v, f"{where} is a C identifier, not '{v.text}'")
        return v.name

    def size(self, v: Value, where: str) -> int:
        if v.kind == "number":
            return v.number
        if v.is_size_max:
            return SIZE_MAX
        self.bad(v, f"{where}: '{v.text}' is not a size (write e.g. 65536, 64KB, "
                 "64KiB, 0x10000 or SIZE_MAX)" + suggest(v.text, ["SIZE_MAX"]))

    # -- size ranges ---------------------------------------------------------------
    def ranges(self, instances: list[Instance]) -> None:
        bypassed = {i.values["target"].value for i in instances
                    if "target" in i.values and i.values["target"].value}
        trunks = [i for i in instances if i.kind == "trunk" and i.range()
                  and i.name not in bypassed]
        trunks.sort(key=lambda i: i.range())
        covered = 0
        prev = None
        for inst in trunks:
            lo, hi = inst.range()
            pos, length = self.range_pos(inst)
            if prev is not None and lo < covered:
                self.error(f"size ranges overlap: {inst.name} {fmt_range(lo, hi)} and "
                           f"{prev.name} {fmt_range(*prev.range())} both serve "
                           f"{fmt_range(lo, min(hi, covered))}", pos, length)
            if lo > covered:
                self.error(f"gap in the size ranges: no trunk layer serves "
                           f"{fmt_range(covered, lo)} (below {inst.name}'s "
                           f"{fmt_range(lo, hi)}); the trunk layers' ranges must "
                           "cover [0, top) without gaps", pos, length)
            covered, prev = hi, inst

    def range_pos(self, inst: Instance) -> tuple[int, int]:
        sv = inst.values.get("size_handle")
        if sv is not None and sv.given and sv.pos is not None:     # given: pos is set
            return sv.pos, sv.length
        return inst.ref.pos, len(inst.ref.name)


def fmt_range(lo: int, hi: int) -> str:
    """[lo, hi) for humans; a bound one past a round size is shown inclusive
    from the other side: max_block=1MiB serves [0, 1 MiB], then (1 MiB, ...)."""
    def round_(n: int) -> bool:
        return n % 1024 == 0 and n >= 1024
    left = f"({format_size(lo - 1)}" if lo and not round_(lo) and round_(lo - 1) \
        else f"[{format_size(lo)}"
    if hi == SIZE_MAX:
        right = "SIZE_MAX]"
    elif not round_(hi) and round_(hi - 1):
        right = f"{format_size(hi - 1)}]"
    else:
        right = f"{format_size(hi)})"
    return f"{left}, {right}"


def check(registry: Registry, text: str) -> Composition:
    return Checker(registry, text).run()


def bands(comp: Composition) -> list[tuple[int, int, Instance, str]]:
    """Who serves which sizes in the end: [(lo, hi, instance, note)], lo-ordered.

    A trunk layer serves its size_handle up to its max_block (if it has one);
    whatever no trunk layer serves goes to the OS layer.
    """
    bypassed = {i.values["target"].value for i in comp.instances if "target" in i.values}
    out: list[tuple[int, int, Instance, str]] = []
    for inst in comp.instances:
        if inst.kind != "trunk" or not inst.range() or inst.name in bypassed:
            continue
        lo, hi = inst.range()
        mb = inst.values.get("max_block")
        if mb is not None and isinstance(mb.value, int) and mb.value != SIZE_MAX \
                and mb.value + 1 < hi and mb.value + 1 > lo:
            out.append((lo, mb.value + 1, inst, ""))
            out.append((mb.value + 1, hi, comp.os, f"above {inst.name}'s max_block"))
        else:
            out.append((lo, hi, inst, ""))
    out.sort(key=lambda b: b[0])
    filled: list[tuple[int, int, Instance, str]] = []
    at = 0
    for lo, hi, inst, note in out:
        if lo > at:
            filled.append((at, lo, comp.os, "no trunk layer"))
        filled.append((lo, hi, inst, note))
        at = hi
    if at != SIZE_MAX:
        filled.append((at, SIZE_MAX, comp.os, "above every trunk range"))
    cuts = {b for i in comp.instances if i.kind == "add-on" and i.range() for b in i.range()}
    split: list[tuple[int, int, Instance, str]] = []
    for lo, hi, inst, note in filled:
        points = [lo] + sorted(c for c in cuts if lo < c < hi) + [hi]
        split += [(a, b, inst, note) for a, b in zip(points, points[1:])]
    return split

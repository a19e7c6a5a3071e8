"""The layers' and policies' descriptors, as the C preprocessor expands them.

Every layer header defines MT_DESCRIPTOR_<name>(LAYER, SLOT) right after its
contract comment (core/describe.h) and guards the rest with
`#ifndef MT_DESCRIBE`; every policy header under policy/ defines
MT_POLICY_DESCRIPTOR_<slot>_<name>(POLICY, SLOT) so and leaves the rest out
in describe mode too. describe() preprocesses one unit that includes every
such header in describe mode and expands each descriptor with LAYER, POLICY
and SLOT that stringify their arguments, so the fields arrive as the
compiler reads them; tools/describe_layers.py writes the result to
descriptors.json, the table the registry reads.
"""
from __future__ import annotations

import ast
import os
import pathlib
import re
import shlex
import subprocess
from typing import Any, Dict, List, Union

FOLDERS = ("os", "layers", "sockets")
KINDS = {"os": "OS layer", "trunk": "trunk", "addon": "add-on", "socket": "socket"}
NUMERIC = ("BOOL", "BYTES", "N", "RANGE")
POLICY_FOLDERS = ("sync", "sizeclass", "chksum", "err")
POLICY_KINDS = ("policy", "extension")
# Locating a descriptor is reading code, not a comment: the #define line.
DEFINE = re.compile(r"^#define (MT_DESCRIPTOR_(\w+))\(LAYER, SLOT\)", re.M)
POLICY_DEFINE = re.compile(r"^#define (MT_POLICY_DESCRIPTOR_(\w+))\(POLICY, SLOT\)", re.M)
PRINTERS = """
#define MT__DL(name, kind, traits, aliases, links) ["layer", #name, #kind, #traits, #aliases, #links],
#define MT__DP(slot, name, kind) ["policy", #slot, #name, #kind],
#define MT__DS(name, macro, type, dflt, allowed, aliases) \\
    ["slot", #name, #macro, #type, #dflt, #allowed, #aliases],
"""

Value = Union[int, str, List[Union[int, str]]]
Descriptor = Dict[str, Any]
# {"layers": model name → descriptor,
#  "policies": policy slot → policy name → descriptor}
Table = Dict[str, Dict[str, Any]]


class DescribeError(Exception):
    pass


def compiler() -> list[str]:
    return shlex.split(os.environ.get("CC") or "cc")


def headers(include_dir: pathlib.Path, policies: bool = False) -> dict[str, pathlib.Path]:
    """Descriptor macro name → header, for every header of os/, layers/,
    sockets/ that defines one (policies: of policy/*/)."""
    found: dict[str, pathlib.Path] = {}
    root = include_dir / "mortise"
    folders = [root / "policy" / f for f in POLICY_FOLDERS] if policies else [root / f for f in FOLDERS]
    for folder in folders:
        for path in sorted(folder.glob("*.h")):
            m = (POLICY_DEFINE if policies else DEFINE).search(path.read_text(errors="replace"))
            if m:
                found[m.group(1)] = path
    return found


def _number(text: str) -> int | str:
    """64 << 10 → 65536; SIZE_MAX stays a name (it is the target's)."""
    text = text.strip()
    if text == "SIZE_MAX":
        return text
    node = ast.parse(text, mode="eval").body

    def ev(n: ast.expr) -> int:
        if isinstance(n, ast.Constant) and isinstance(n.value, int):
            return n.value
        if isinstance(n, ast.BinOp) and isinstance(n.op, (ast.LShift, ast.Mult, ast.Add)):
            a, b = ev(n.left), ev(n.right)
            return a << b if isinstance(n.op, ast.LShift) else a * b if isinstance(n.op, ast.Mult) else a + b
        raise DescribeError(f"not a constant: {text}")
    return ev(node)


def _items(text: str) -> list[str]:
    """'(a, b)' → ['a', 'b']; '()' → []."""
    inner = text.strip()
    if not (inner.startswith("(") and inner.endswith(")")):
        raise DescribeError(f"expected a parenthesised list: {text}")
    return [x.strip() for x in inner[1:-1].split(",") if x.strip()]


def _slot(fields: list[str]) -> dict[str, Any]:
    name, macro, vtype, dflt, allowed, aliases = fields
    out: dict[str, Any] = {"name": name, "macro": macro, "type": vtype}
    if vtype == "RANGE":
        out["default"] = [_number(x) for x in _items(dflt)]
    elif vtype in NUMERIC:
        out["default"] = _number(dflt)
    else:
        out["default"] = dflt
    out["allowed"] = [_number(x) for x in _items(allowed)] if vtype in NUMERIC else _items(allowed)
    out["aliases"] = _items(aliases)
    return out


def _expand(include_dir: pathlib.Path, found: dict[str, pathlib.Path], printers: str) -> list[tuple[str, list[Any]]]:
    """(header relative to mortise/, its descriptor's entries as lists of
    strings) for each descriptor macro of found, expanded in describe mode."""
    # (core/describe.h: the shared slots a descriptor may name)
    unit = ["#define MT_DESCRIBE 1", '#include "mortise/core/describe.h"']
    unit += [f'#include "{p.relative_to(include_dir)}"' for p in found.values()]
    unit.append(PRINTERS)
    unit += [f'"{p.relative_to(include_dir / "mortise")}" {macro}({printers})' for macro, p in found.items()]
    r = subprocess.run(compiler() + ["-E", "-P", "-I", str(include_dir), "-x", "c", "-"],
                       input="\n".join(unit) + "\n", capture_output=True, text=True)
    if r.returncode != 0:
        raise DescribeError(f"the preprocessor failed in describe mode:\n{r.stderr}")
    out = []
    for line in r.stdout.splitlines():
        line = line.strip()
        if not line.startswith('"'):
            continue
        header, rows = line.split(" ", 1)
        try:
            parsed = ast.literal_eval("[" + rows + "]")
        except (SyntaxError, ValueError) as e:
            raise DescribeError(f"{header}: cannot read the expanded descriptor ({e}): {rows}")
        out.append((ast.literal_eval(header), parsed))
    return out


def operations(include_dir: pathlib.Path) -> list[str]:
    """core/ops.h's operations (MT_FOR_EACH_OP), in order, as the
    preprocessor expands the list."""
    unit = '#include "mortise/core/ops.h"\n#define MT__DO(unused, op) #op,\n"ops" [MT_FOR_EACH_OP(MT__DO, ~)]\n'
    r = subprocess.run(compiler() + ["-E", "-P", "-I", str(include_dir), "-x", "c", "-"],
                       input=unit, capture_output=True, text=True)
    line = [x for x in r.stdout.splitlines() if x.startswith('"ops"')]
    if r.returncode != 0 or not line:
        raise DescribeError(f"the preprocessor cannot expand core/ops.h's MT_FOR_EACH_OP:\n{r.stderr}")
    return [str(op) for op in ast.literal_eval(line[0].split(" ", 1)[1])]


def _layers(include_dir: pathlib.Path) -> dict[str, Descriptor]:
    found = headers(include_dir)
    known = operations(include_dir) + ["none"]
    table: dict[str, Descriptor] = {}
    for header, parsed in _expand(include_dir, found, "MT__DL, MT__DS"):
        if not parsed or parsed[0][0] != "layer":
            raise DescribeError(f"{header}: the descriptor does not start with LAYER(...)")
        _, name, kind, traits, aliases, links = parsed[0]
        if kind not in KINDS:
            raise DescribeError(f"{header}: kind '{kind}' is none of {', '.join(KINDS)}")
        if any(row[0] != "slot" for row in parsed[1:]):
            raise DescribeError(f"{header}: LAYER(...) more than once")
        entries = [_slot(list(row[1:])) for row in parsed[1:]]
        ops = [e["allowed"] for e in entries if e["type"] == "OPS"]
        if len(ops) != 1:
            raise DescribeError(f"{header}: the descriptor lists the operations the layer implements "
                                "once, MT_OPS(SLOT, ...) (core/describe.h)")
        unknown = [op for op in ops[0] if op not in known]
        in_order = sorted(ops[0], key=lambda op: known.index(op) if op in known else 0)
        if unknown or ("none" in ops[0] and len(ops[0]) > 1) or ops[0] != in_order:
            raise DescribeError(f"{header}: MT_OPS lists {', '.join(ops[0])}: operations of core/ops.h "
                                "in its order, or none alone")
        table[name] = {
            "header": header,
            "kind": KINDS[kind],
            "traits": traits,
            "aliases": _items(aliases),
            "links": _items(links),
            # MT_OPS(SLOT, ...): in core/ops.h's order; [] for none
            "operations": [op for op in ops[0] if op != "none"],
            "slots": [e for e in entries if e["type"] not in ("CTX", "OPS")],
            # MT_CTX_FIELD(SLOT, type, field): the declaration MT_CTX_EXTRA carries
            "ctx": [e["default"] for e in entries if e["type"] == "CTX"],
        }
    for macro, path in found.items():
        if macro[len("MT_DESCRIPTOR_"):] not in table:
            raise DescribeError(f"{path}: {macro} describes another layer name")
    return table


def _policies(include_dir: pathlib.Path) -> dict[str, dict[str, Descriptor]]:
    found = headers(include_dir, policies=True)
    table: dict[str, dict[str, Descriptor]] = {}
    for header, parsed in _expand(include_dir, found, "MT__DP, MT__DS"):
        if not parsed or parsed[0][0] != "policy":
            raise DescribeError(f"{header}: the descriptor does not start with POLICY(...)")
        _, slot, name, kind = parsed[0]
        if kind not in POLICY_KINDS:
            raise DescribeError(f"{header}: kind '{kind}' is none of {', '.join(POLICY_KINDS)}")
        if any(row[0] != "slot" for row in parsed[1:]):
            raise DescribeError(f"{header}: POLICY(...) more than once")
        slots = [_slot(list(row[1:])) for row in parsed[1:]]
        if slots and kind != "extension":
            raise DescribeError(f"{header}: a policy's descriptor states no slots (an extension's does)")
        if name in table.get(slot, {}):
            raise DescribeError(f"{header}: {slot}={name} is described twice")
        table.setdefault(slot, {})[name] = {"header": header, "kind": kind, "slots": slots}
    described = {f"MT_POLICY_DESCRIPTOR_{slot}_{name}" for slot, names in table.items() for name in names}
    for macro, path in found.items():
        if macro not in described:
            raise DescribeError(f"{path}: {macro} describes another slot or policy name")
    return table


def describe(include_dir: str | pathlib.Path) -> Table:
    """{"layers": model name → descriptor, for every layer header of
    include_dir; "policies": slot → policy name → descriptor, for every
    policy header}."""
    include_dir = pathlib.Path(include_dir).resolve()
    return {"layers": _layers(include_dir), "policies": _policies(include_dir)}

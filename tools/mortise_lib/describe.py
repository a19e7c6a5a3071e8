"""The layers' descriptors, as the C preprocessor expands them.

Every layer header defines MT_DESCRIPTOR_<name>(LAYER, SLOT) right after its
contract comment (core/describe.h) and guards the rest with
`#ifndef MT_DESCRIBE`. describe() preprocesses one unit that includes every
such header in describe mode and expands each descriptor with LAYER and
SLOT that stringify their arguments, so the fields arrive as the compiler
reads them; tools/describe_layers.py writes the result to descriptors.json,
the table the registry reads.
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
# Locating a descriptor is reading code, not a comment: the #define line.
DEFINE = re.compile(r"^#define (MT_DESCRIPTOR_(\w+))\(LAYER, SLOT\)", re.M)
PRINTERS = """
#define MT__DL(name, kind, traits, aliases, links) ["layer", #name, #kind, #traits, #aliases, #links],
#define MT__DS(name, macro, type, dflt, allowed, aliases) \\
    ["slot", #name, #macro, #type, #dflt, #allowed, #aliases],
"""

Value = Union[int, str, List[Union[int, str]]]
Descriptor = Dict[str, Any]


class DescribeError(Exception):
    pass


def compiler() -> list[str]:
    return shlex.split(os.environ.get("CC") or "cc")


def headers(include_dir: pathlib.Path) -> dict[str, pathlib.Path]:
    """Descriptor macro name → header, for every header of os/, layers/,
    sockets/ that defines one."""
    found: dict[str, pathlib.Path] = {}
    root = include_dir / "mortise"
    for folder in FOLDERS:
        for path in sorted((root / folder).glob("*.h")):
            m = DEFINE.search(path.read_text(errors="replace"))
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


def describe(include_dir: str | pathlib.Path) -> dict[str, Descriptor]:
    """Model name → descriptor, for every layer header of include_dir."""
    include_dir = pathlib.Path(include_dir).resolve()
    found = headers(include_dir)
    # (core/describe.h: the shared slots a descriptor may name)
    unit = ["#define MT_DESCRIBE 1", '#include "mortise/core/describe.h"']
    unit += [f'#include "{p.relative_to(include_dir)}"' for p in found.values()]
    unit.append(PRINTERS)
    unit += [f'"{p.relative_to(include_dir / "mortise")}" {macro}(MT__DL, MT__DS)' for macro, p in found.items()]
    r = subprocess.run(compiler() + ["-E", "-P", "-I", str(include_dir), "-x", "c", "-"],
                       input="\n".join(unit) + "\n", capture_output=True, text=True)
    if r.returncode != 0:
        raise DescribeError(f"the preprocessor failed in describe mode:\n{r.stderr}")
    table: dict[str, Descriptor] = {}
    for line in r.stdout.splitlines():
        line = line.strip()
        if not line.startswith('"'):
            continue
        header, rows = line.split(" ", 1)
        try:
            parsed = ast.literal_eval("[" + rows + "]")
        except (SyntaxError, ValueError) as e:
            raise DescribeError(f"{header}: cannot read the expanded descriptor ({e}): {rows}")
        if not parsed or parsed[0][0] != "layer":
            raise DescribeError(f"{header}: the descriptor does not start with LAYER(...)")
        _, name, kind, traits, aliases, links = parsed[0]
        if kind not in KINDS:
            raise DescribeError(f"{header}: kind '{kind}' is none of {', '.join(KINDS)}")
        table[name] = {
            "header": ast.literal_eval(header),
            "kind": KINDS[kind],
            "traits": traits,
            "aliases": _items(aliases),
            "links": _items(links),
            "slots": [_slot(list(row[1:])) for row in parsed[1:]],
        }
        if any(row[0] != "slot" for row in parsed[1:]):
            raise DescribeError(f"{header}: LAYER(...) more than once")
    for macro, path in found.items():
        if macro[len("MT_DESCRIPTOR_"):] not in table:
            raise DescribeError(f"{path}: {macro} describes another layer name")
    return table

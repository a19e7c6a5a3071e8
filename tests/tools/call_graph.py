#!/usr/bin/env python3
"""A static call-graph walk over the source text of every ready allocator.

For each instances/NAME.c this reads the files it includes (transitively:
the layer headers, the sockets, instances/chains/NAME.inl), finds every
function definition written there, and draws an edge from a function to
every defined function its body names (a call, or a function passed as
`next`). No preprocessor runs: what the walk finds is what grep finds.
It then checks that
  - malloc reaches NAME_alloc of every layer of the composition, down to
    the OS layer's (MT_COMPOSE's first) and mt_end_alloc below it, and
  - free reaches NAME_free of every layer and mt_end_free,
and prints each path from malloc to the OS layer. As a control, the same
walk without instances/chains/NAME.inl must not reach the OS layer.

Every name is read as it is written: the fragments several layers share
are included as each layer's written-out copy (include/mortise/written/),
and a layer an instance renames with MT_NAME (bypass.c's segfit_lower) as
the instance's copy (instances/chains/bypass/segfit_lower.inl), both by
tools/layer_names.py; the malloc(3) family is written under its own names.

    tests/tools/call_graph.py [-v] [instances/NAME.c ...]
"""
from __future__ import annotations

import argparse
import re
import sys
from collections import deque
from pathlib import Path
from typing import Dict, List, Optional, Set, Tuple

ROOT = Path(__file__).resolve().parents[2]
INCLUDE = ROOT / "include"

INCLUDE_LINE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
COMPOSE = re.compile(r"MT_COMPOSE\(([^()]*)\)")
IDENT = re.compile(r"\b[A-Za-z_]\w*\b")
DEF_HEAD = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
KEYWORDS = {"if", "while", "for", "switch", "return", "sizeof", "_Static_assert", "__attribute__",
            "_Alignof", "__typeof__", "typeof", "defined", "__builtin_expect"}


def strip(text: str) -> str:
    """Comments, literals and preprocessor lines blanked (newlines kept)."""
    def blank(m: re.Match[str]) -> str:
        return re.sub(r"[^\n]", " ", m.group(0))
    text = re.sub(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', blank, text, flags=re.S)
    return re.sub(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", blank, text, flags=re.M)


def match(text: str, i: int, open_: str, close: str) -> int:
    """Index just past the bracket that closes the one at text[i]."""
    depth = 0
    for j in range(i, len(text)):
        if text[j] == open_:
            depth += 1
        elif text[j] == close:
            depth -= 1
            if depth == 0:
                return j + 1
    return len(text)


def definitions(text: str) -> List[Tuple[str, str]]:
    """(name, body) of every function defined at file scope."""
    out: List[Tuple[str, str]] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c == "{":          # a body not preceded by a function head (struct, enum)
            i = match(text, i, "{", "}")
            continue
        m = DEF_HEAD.match(text, i) if (c.isalpha() or c == "_") and (i == 0 or not (
            text[i - 1].isalnum() or text[i - 1] == "_")) else None
        if not m:
            i += 1
            continue
        name = m.group(1)
        if name in KEYWORDS:
            i = match(text, m.end() - 1, "(", ")")
            continue
        end = match(text, m.end() - 1, "(", ")")
        k = end
        while k < len(text) and text[k].isspace():
            k += 1
        if k < len(text) and text[k] == "{":
            close = match(text, k, "{", "}")
            out.append((name, text[k:close]))
            i = close
        else:
            i = end
    return out


def resolve_include(frm: Path, kind: str, name: str) -> Optional[Path]:
    candidates = [frm.parent / name] if kind == '"' else []
    candidates += [INCLUDE / name, ROOT / "instances" / name]
    for c in candidates:
        if c.is_file():
            return c.resolve()
    return None


def included(src: Path) -> Dict[Path, Set[Path]]:
    """Every file src includes, transitively, mapped to the files that include it."""
    by: Dict[Path, Set[Path]] = {src.resolve(): set()}
    pending = [src.resolve()]
    while pending:
        f = pending.pop()
        for m in INCLUDE_LINE.finditer(f.read_text()):
            p = resolve_include(f, m.group(1), m.group(2))
            if p is None:
                continue
            if p not in by:
                by[p] = set()
                pending.append(p)
            by[p].add(f)
    return by


class Graph:
    def __init__(self, src: Path, chains: bool = True) -> None:
        self.bodies: Dict[str, List[str]] = {}
        self.where: Dict[str, Path] = {}
        for f in included(src):
            if f.suffix not in (".c", ".h", ".inl") or "names" == f.parent.name or (
                    not chains and f.parent.name == "chains"):
                continue
            for name, body in definitions(strip(f.read_text())):
                self.bodies.setdefault(name, []).append(body)
                self.where.setdefault(name, f)

    def defined(self, name: str) -> Optional[str]:
        return name if name in self.bodies else None

    def callees(self, name: str) -> Set[str]:
        out: Set[str] = set()
        for body in self.bodies.get(name, []):
            for ident in IDENT.findall(body):
                d = self.defined(ident)
                if d and d != name:
                    out.add(d)
        return out

    def path(self, start: str, goal: str) -> Optional[List[str]]:
        goal_def = self.defined(goal)
        if goal_def is None or start not in self.bodies:
            return None
        prev: Dict[str, Optional[str]] = {start: None}
        q = deque([start])
        while q:
            n = q.popleft()
            if n == goal_def:
                out: List[str] = []
                cur: Optional[str] = n
                while cur is not None:
                    out.append(cur)
                    cur = prev[cur]
                return out[::-1]
            for c in sorted(self.callees(n)):
                if c not in prev:
                    prev[c] = n
                    q.append(c)
        return None


def check(src: Path, verbose: bool) -> List[str]:
    m = COMPOSE.search(src.read_text())
    if not m:
        return [f"{src.name}: no MT_COMPOSE(...)"]
    layers = [x.strip() for x in m.group(1).split(",")]
    g = Graph(src)
    problems: List[str] = []
    for start, op in (("malloc", "alloc"), ("free", "free")):
        # every layer's operation, and the end of the chain below the OS layer
        for goal in [f"{layer}_{op}" for layer in layers] + [f"mt_end_{op}"]:
            p = g.path(start, goal)
            if p is None:
                why = "not defined in the source" if g.defined(goal) is None else "not reached"
                problems.append(f"{src.name}: {start} -> {goal}: {why}")
            elif verbose or (start == "malloc" and goal == f"{layers[0]}_{op}"):
                print(f"{src.stem}: {' -> '.join(p)}")
    # The control: without the written-out chain the walk must stop (at
    # mt_chain_alloc), else this test would prove nothing.
    if Graph(src, chains=False).path("malloc", f"{layers[0]}_alloc") is not None:
        problems.append(f"{src.name}: malloc reaches {layers[0]}_alloc without chains/{src.stem}.inl")
    return problems


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-v", "--verbose", action="store_true", help="print every path")
    ap.add_argument("files", nargs="*", type=Path)
    a = ap.parse_args()
    files = a.files or sorted((ROOT / "instances").glob("*.c"))
    problems = [p for f in files for p in check(f, a.verbose)]
    for p in problems:
        print("FAIL", p)
    print(f"call_graph.py: {len(files)} compositions, {len(problems)} missing paths")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

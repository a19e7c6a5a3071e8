#!/usr/bin/env python3
"""The names of a layer's functions and state, as plain C names.

A layer header writes everything it defines under its default instance
name (slab_wf_alloc, mmap_heap_state), so that grep, ctags and a debugger
find each function by the name the program runs it under. An instance with
another name (`#define MT_NAME lower` before the header) must get its own
copies: for it the header includes include/mortise/names/LAYER.h first,
which maps every such name to MT_SELF(...) (lower_alloc), and again at the
end, which forgets the mapping. This tool writes those files from the
headers, and checks that they are up to date (ctest tools.layer_names).

    tools/layer_names.py --write     regenerate include/mortise/names/*.h and
                                     include/mortise/written/*/*.inl
    tools/layer_names.py --check     fail if any is missing or stale, or a
                                     layer header includes a shared fragment
    tools/layer_names.py --convert   one-off: MT_SELF(x) -> LAYER_x in the
                                     headers that own a default name

The names of a layer are the identifiers LAYER_x its header (and the
fragments only it includes: layers/affinity/ for affinity_pool) mentions
outside comments, string literals and #define lines.

A fragment several layers share (layers/cache/, layers/segfit/,
layers/glk/, layers/safety/, os/granule_*.h, os/large_keep.h,
stats/slots.h, ...) is written once, with MT_SELF(x), and is a template:
no layer header includes it. The tool writes it out for each layer that
uses it, as include/mortise/written/LAYER/FRAGMENT.inl with every MT_SELF(x)
outside #define lines spelt LAYER_x and its includes of other shared
fragments pointed at LAYER's copies; the layer header includes its copies.
Those names join the layer's names file like any other. To change a shared
fragment, edit it and run --write.

    tools/layer_names.py --copies LAYER   the written copies LAYER includes
"""
from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
INCLUDE = ROOT / "include" / "mortise"
NAMES_DIR = INCLUDE / "names"
WRITTEN_DIR = INCLUDE / "written"
INSTANCES = ROOT / "instances"
DEFAULT_NAME = re.compile(r"^#ifndef MT_NAME\n#define MT_NAME (\w+)\n#endif\n", re.M)
RENAMED = re.compile(r"^#ifdef MT_NAME[^\n]*\n#include \"\.\./names/(\w+)\.h\"\n#else\n#define MT_NAME (\w+)\n#endif\n",
                     re.M)
SELF_USE = re.compile(r"\bMT_SELF\((\w+)\)")
INCLUDE_LINE = re.compile(r'^(\s*#\s*include\s+")([^"]+)(")', re.M)
# fragments that belong to one layer only
PRIVATE_FRAGMENTS = {"affinity_pool": ["layers/affinity/*.h"]}


def layer_headers() -> dict[str, Path]:
    """Default instance name -> header, for every header that owns one."""
    out: dict[str, Path] = {}
    for path in sorted(INCLUDE.rglob("*.h")):
        if NAMES_DIR in path.parents:
            continue
        text = path.read_text()
        m = DEFAULT_NAME.search(text) or RENAMED.search(text)
        if m:
            out[m.group(m.lastindex or 1)] = path
    return out


def private_fragments(name: str) -> list[Path]:
    return [p for pattern in PRIVATE_FRAGMENTS.get(name, []) for p in sorted(INCLUDE.glob(pattern))]


def strip_c(text: str) -> str:
    """The text without comments, string and character literals."""
    return re.sub(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'',
                  lambda m: " " if m.group(0).startswith("/") else '""', text, flags=re.S)


def code_lines(text: str) -> list[str]:
    """Lines of C outside #define directives (continuations joined)."""
    joined = strip_c(text).replace("\\\n", " ")
    return [line for line in joined.split("\n") if not re.match(r"\s*#\s*define\b", line)]


def names_of(name: str, texts: list[str]) -> list[str]:
    pattern = re.compile(r"\b" + re.escape(name) + r"_(\w+)")
    found: set[str] = set()
    for text in texts:
        for line in code_lines(text):
            found.update(pattern.findall(line))
    return sorted(found)


def included(path: Path) -> list[tuple[re.Match[str], Path]]:
    """The quoted includes of a file, with the headers they name."""
    return [(m, (path.parent / m.group(2)).resolve()) for m in INCLUDE_LINE.finditer(path.read_text())]


def shared_fragments() -> set[Path]:
    """Headers written with MT_SELF(x) outside #define lines that are no
    layer's own: templates, written out for each layer that includes them.
    (core/layer_end.h, which every layer includes, names only constants.)"""
    own = set(layer_headers().values())
    own.update(p for name in PRIVATE_FRAGMENTS for p in private_fragments(name))
    out: set[Path] = set()
    for path in INCLUDE.rglob("*.h"):
        if NAMES_DIR in path.parents or INCLUDE / "core" in path.parents or path in own:
            continue
        if any(SELF_USE.search(line) for line in code_lines(path.read_text())):
            out.add(path.resolve())
    return out


def copy_path(name: str, fragment: Path) -> Path:
    """Where LAYER's copy of a shared fragment is written:
    layers/segfit/classes.h -> written/LAYER/segfit_classes.inl."""
    rel = fragment.relative_to(INCLUDE.resolve()).with_suffix("")
    parts = rel.parts[1:] if rel.parts[0] == "layers" else rel.parts
    return WRITTEN_DIR / name / ("_".join(parts) + ".inl")


def point_includes(path: Path, text: str, name: str, fragments: set[Path], at: Path) -> str:
    """text (of path) with every include of a shared fragment pointed at
    LAYER's copy, and every other include made relative to `at`'s folder."""
    def repoint(m: re.Match[str]) -> str:
        target = (path.parent / m.group(2)).resolve()
        if target in fragments:
            target = copy_path(name, target)
        rel = os.path.relpath(target, at.parent.resolve())
        return m.group(1) + rel + m.group(3)
    return INCLUDE_LINE.sub(repoint, text)


def written_copies(name: str, sources: list[Path], fragments: set[Path]) -> dict[Path, str]:
    """Every copy LAYER needs: the shared fragments its header and private
    fragments include, and those they include in turn."""
    out: dict[Path, str] = {}
    copied = {copy_path(name, frag).resolve(): frag for frag in fragments}
    pending = [copied.get(target, target) for src in sources for _, target in included(src)]
    pending = [target for target in pending if target in fragments]
    while pending:
        frag = pending.pop()
        dest = copy_path(name, frag)
        if dest in out:
            continue
        rel = frag.relative_to(INCLUDE.resolve())
        text = point_includes(frag, convert_text(name, frag.read_text(), False), name, fragments, dest)
        notice = (f"/* mortise/written/{name}/{dest.name} — {rel} written out for {name} by\n"
                  f" * tools/layer_names.py; do not edit: edit {rel}, then run --write. */\n")
        out[dest] = notice + text
        pending += [target for _, target in included(frag) if target in fragments]
    return out


def names_file(name: str, header: Path, members: list[str]) -> str:
    rel = header.relative_to(INCLUDE)
    lines = [
        f"/* mortise/names/{name}.h — written by tools/layer_names.py from {rel}; do not edit.",
        f" * {rel} writes its functions and state under the default instance",
        f" * name {name}; an instance with another MT_NAME includes this file",
        " * before them, so that each name becomes the instance's own (MT_SELF),",
        " * and again after them, to forget the mapping. (No include guard.) */",
        f"#ifndef MT_NAMES_{name}",
        f"#define MT_NAMES_{name}",
    ]
    lines += [f"#define {name}_{m} MT_SELF({m})" for m in members]
    lines += ["#else", f"#undef MT_NAMES_{name}"]
    lines += [f"#undef {name}_{m}" for m in members]
    lines += ["#endif", ""]
    return "\n".join(lines)


def expected_files() -> dict[Path, str]:
    """The names files and the written copies, each with its text."""
    out: dict[Path, str] = {}
    fragments = shared_fragments()
    for name, header in layer_headers().items():
        sources = [header] + private_fragments(name)
        copies = written_copies(name, sources, fragments)
        out.update(copies)
        members = names_of(name, [src.read_text() for src in sources] + list(copies.values()))
        out[NAMES_DIR / f"{name}.h"] = names_file(name, header, members)
    renamed, _ = renamed_files()
    out.update(renamed)
    return out


def fragment_includes() -> list[tuple[Path, str, Path]]:
    """(file, its text with the includes pointed at the written copies,
    the first fragment it included) for every layer header or private
    fragment that includes a shared fragment itself."""
    fragments = shared_fragments()
    out = []
    for name, header in layer_headers().items():
        for src in [header] + private_fragments(name):
            hits = [target for _, target in included(src) if target in fragments]
            if hits:
                out.append((src, point_includes(src, src.read_text(), name, fragments, src), hits[0]))
    return out


def renamed_sites() -> list[tuple[Path, str, Path, str]]:
    """(instance source, the layer's default name, its header, the
    instance's name) for each layer a ready allocator includes under
    another name (#define MT_NAME x before the header's #include)."""
    headers = {path.resolve(): name for name, path in layer_headers().items()}
    out = []
    for src in sorted(INSTANCES.glob("*.c")):
        name = None
        for line in src.read_text().split("\n"):
            m = re.match(r"#define MT_NAME (\w+)", line)
            if m:
                name = m.group(1)
            m = re.match(r'#include (?:<mortise/([\w/]+\.h)>|"(chains/[\w.]+/\w+\.inl)")', line)
            if m and name:
                if m.group(1):
                    header = (INCLUDE / m.group(1)).resolve()
                    default = headers.get(header)
                else:
                    default = renamed_layer(src.parent / m.group(2))
                    header = layer_headers()[default].resolve() if default else INCLUDE
                if default and default != name:
                    out.append((src, default, header, name))
                name = None
    return out


def renamed_layer(copy: Path) -> str | None:
    """The layer a renamed copy writes out: the descriptor it names."""
    if not copy.is_file():
        return None
    m = re.search(r"^#define MT_DESCRIPTOR MT_DESCRIPTOR_(\w+)$", copy.read_text(), re.M)
    return m.group(1) if m else None


def renamed_path(src: Path, name: str) -> Path:
    return INSTANCES / "chains" / src.stem / f"{name}.inl"


def renamed_copy(src: Path, default: str, header: Path, name: str, copies: dict[Path, str],
                 members: list[str]) -> str:
    """The layer header with its written copies inlined and every name of
    its names file spelt for the instance `name` (default_x -> name_x)."""
    def flatten(path: Path, text: str) -> str:
        def inline(m: re.Match[str]) -> str:
            target = (path.parent / m.group(2)).resolve()
            if target in copies:
                return flatten(target, copies[target]).rstrip("\n")
            return "#include <mortise/" + str(target.relative_to(INCLUDE.resolve())) + ">"
        return INCLUDE_LINE.sub(inline, text)
    text = flatten(header, header.read_text())
    rename = re.compile(r"\b" + re.escape(default) + r"_(" + "|".join(map(re.escape, members)) + r")\b")
    text = rename.sub(lambda m: f"{name}_{m.group(1)}", text)
    rel = header.relative_to(INCLUDE.resolve())
    notice = (f"/* instances/chains/{src.stem}/{name}.inl — {rel} and the fragments it shares with\n"
              f" * other layers, written out for {src.name}'s instance {name} by tools/layer_names.py;\n"
              f" * do not edit: edit {rel} (or its fragments), then run --write. */\n")
    return notice + text


def renamed_files() -> tuple[dict[Path, str], dict[Path, str]]:
    """The renamed copies, and the instance sources including them."""
    copies: dict[Path, str] = {}
    sources: dict[Path, str] = {}
    fragments = shared_fragments()
    for src, default, header, name in renamed_sites():
        written = {p.resolve(): t for p, t in written_copies(default, [header], fragments).items()}
        members = names_of(default, [header.read_text()] + list(written.values()))
        copies[renamed_path(src, name)] = renamed_copy(src, default, header, name, written, members)
        text = sources.get(src, src.read_text())
        rel = header.relative_to(INCLUDE.resolve())
        line = f'#include "chains/{src.stem}/{name}.inl" /* <mortise/{rel}> as {name} */'
        text = re.sub(r"^(#define MT_NAME " + name + r"\n(?:#define [^\n]*\n)*)#include [^\n]*$",
                      lambda m: m.group(1) + line, text, count=1, flags=re.M)
        sources[src] = text
    return copies, sources


def generated() -> list[Path]:
    """The files this tool writes that are there now."""
    return (sorted(NAMES_DIR.glob("*.h")) + sorted(WRITTEN_DIR.glob("*/*.inl"))
            + sorted((INSTANCES / "chains").glob("*/*.inl")))


def convert_text(name: str, text: str, is_header: bool) -> str:
    """MT_SELF(x) -> name_x outside #define lines; the rename hooks."""
    out = []
    in_define = False
    for line in text.split("\n"):
        starts_define = bool(re.match(r"\s*#\s*define\b", line))
        if starts_define or in_define:
            out.append(line)
        else:
            out.append(SELF_USE.sub(lambda m: f"{name}_{m.group(1)}", line))
        in_define = (starts_define or in_define) and line.endswith("\\")
    text = "\n".join(out)
    if is_header:
        hook = (f"#ifdef MT_NAME /* another instance name: the names below become its own */\n"
                f"#include \"../names/{name}.h\"\n#else\n#define MT_NAME {name}\n#endif\n")
        if not RENAMED.search(text):  # (converted already: only MT_SELF uses added since)
            text, n = DEFAULT_NAME.subn(hook, text, count=1)
            assert n == 1, name
            text = text.rstrip("\n") + (f"\n#ifdef MT_NAMES_{name}\n#include \"../names/{name}.h\" /* forget them */\n"
                                        "#endif\n")
    return text


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true")
    mode.add_argument("--check", action="store_true")
    mode.add_argument("--convert", action="store_true")
    mode.add_argument("--copies", metavar="LAYER")
    a = ap.parse_args()
    if a.convert:
        for name, header in layer_headers().items():
            header.write_text(convert_text(name, header.read_text(), True))
            for frag in private_fragments(name):
                frag.write_text(convert_text(name, frag.read_text(), False))
        a.write = True
    if a.copies:
        header = layer_headers()[a.copies]
        for path in written_copies(a.copies, [header] + private_fragments(a.copies), shared_fragments()):
            print(path.relative_to(ROOT))
        return 0
    if a.write:
        for src, text, _ in fragment_includes():
            src.write_text(text)
        # the renamed copies first: the instance sources, once rewritten,
        # name their layer only through them (renamed_layer)
        renamed, sources = renamed_files()
        for path, text in renamed.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        for src, text in sources.items():
            src.write_text(text)
    want = expected_files()
    if a.write:
        for path, text in want.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            if not path.exists() or path.read_text() != text:
                path.write_text(text)
        for path in generated():
            if path not in want:
                path.unlink()
        for folder in WRITTEN_DIR.glob("*"):
            if folder.is_dir() and not any(folder.iterdir()):
                folder.rmdir()
        return 0
    bad = [str(p.relative_to(ROOT)) for p, t in want.items() if not p.exists() or p.read_text() != t]
    bad += [str(p.relative_to(ROOT)) for p in generated() if p not in want]
    for p in bad:
        print(f"layer_names: {p} is stale or missing; run tools/layer_names.py --write", file=sys.stderr)
    for src, _, frag in fragment_includes():
        print(f"layer_names: {src.relative_to(ROOT)} includes the shared fragment "
              f"{frag.relative_to(ROOT)}, not its written copy; run tools/layer_names.py --write",
              file=sys.stderr)
    unrenamed = [src for src, text in renamed_files()[1].items() if src.read_text() != text]
    for src in unrenamed:
        print(f"layer_names: {src.relative_to(ROOT)} includes a layer under another name, not its "
              "written-out copy; run tools/layer_names.py --write", file=sys.stderr)
    return 1 if bad or fragment_includes() or unrenamed else 0


if __name__ == "__main__":
    sys.exit(main())

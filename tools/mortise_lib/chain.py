"""A composition's glue and forwarders, written out as literal C.

core/layer_end.h forwards every operation a layer does not implement
(NAME_op(ctx, next) { return next(ctx); }) and MT_COMPOSE (core/compose.h)
links the layers (mt_link_*, mt_below_*, mt_at_*, mt_chain_*). Only the
preprocessor sees those definitions: grep, ctags and a static call-graph
walk do not. A composition that defines MT_GLUE_WRITTEN_OUT before its
first layer and includes chains/NAME.inl in place of its MT_COMPOSE line,

    /* MT_COMPOSE(mmap_heap, segfit_lk, malloc_socket), written out: */
    #include "chains/segfit.inl"

gets the same definitions from that file: the macros' own expansion (they
stay the source of truth), with platform.h's attribute macros and the
trait names kept, formatted with the repository's .clang-format.
tools/compose_chain.py writes them for instances/*.c; `mortise build
--written-out` for a user's composition.
"""
from __future__ import annotations

import os
import pathlib
import re
import shutil
import subprocess
import tempfile
from collections.abc import Sequence

SWITCH = "MT_GLUE_WRITTEN_OUT"
COMPOSE = re.compile(r"MT_COMPOSE\(([^()]*)\)")
CHAIN_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]+"chains/([\w.-]+\.inl)"[ \t]*$', re.M)
SWITCH_LINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+" + SWITCH + r"\b[^\n]*\n?", re.M)
MARKER = re.compile(r'^#\s*(\d+)\s+"([^"]*)"')
OPS = ("create|alloc|free|alloc_batch|free_batch|getmeta|resize|thread_exit"
       "|fork_prepare|fork_parent|fork_child|purge|check")
FORWARDER = re.compile(r"\*(\w+?)_(?:" + OPS + r")\(mt_ctx \*ctx, mt_lfunc \*next\)"
                       r"|void (\w+)_report_unowned\(")
# What platform.h's attribute macros expand to, back to their names: the
# written-out file reads like the headers and stays portable.
ATTRIBUTES = [("static inline __attribute__((always_inline))", "MT_INLINE"),
              ("static __attribute__((noinline, cold))", "MT_SLOW"),
              ("__attribute__((unused))", "MT_UNUSED")]


class ChainError(Exception):
    pass


def preprocess(cc: Sequence[str], text: str, flags: Sequence[str], quote_dir: pathlib.Path) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        src = pathlib.Path(tmp) / "composition.c"
        src.write_text(text)
        r = subprocess.run([*cc, "-E", *flags, "-iquote", str(quote_dir), str(src)],
                           capture_output=True, text=True)
    if r.returncode:
        raise ChainError(f"{' '.join(cc)} -E failed:\n{r.stderr}")
    return r.stdout


def composition_args(c_text: str) -> tuple[str, bool]:
    """The instance list of the file's MT_COMPOSE, and whether the file
    already includes a written-out chain (else the line is plain code)."""
    m = COMPOSE.search(c_text)
    if not m:
        raise ChainError("no MT_COMPOSE(...) line")
    return " ".join(m.group(1).split()), bool(CHAIN_INCLUDE.search(c_text))


def macro_form(c_text: str) -> str:
    """The composition as the macros alone make it: no switch, and
    MT_COMPOSE where the written-out chain is included."""
    args, written = composition_args(c_text)
    text = SWITCH_LINE.sub("", c_text)
    if written:
        text = CHAIN_INCLUDE.sub(f"MT_COMPOSE({args})", text)
    return text


def written_form(c_text: str, stem: str) -> str:
    """c_text with the switch defined before its first #include and its
    MT_COMPOSE line replaced by chains/STEM.inl."""
    args, written = composition_args(c_text)
    if written:
        return c_text
    text, n = re.subn(r"^MT_COMPOSE\(([^()]*)\)[ \t]*$",
                      f'/* MT_COMPOSE({args}), written out: */\n#include "chains/{stem}.inl"',
                      c_text, count=1, flags=re.M)
    first = re.search(r"^#\s*include\b", text, re.M)
    if not n or not first:
        raise ChainError("MT_COMPOSE(...) must stand on a line of its own, after an #include")
    return (text[:first.start()] + f"/* Forwarders and glue written out: chains/{stem}.inl */\n"
            f"#define {SWITCH}\n" + text[first.start():])


def forwarders(pre: str, layer_end: pathlib.Path) -> list[str]:
    """Each layer's expansion of MT_LAYER_OPS_DEFAULTS (core/layer_end.h), in
    the order the layers are included."""
    line_no = next(i for i, t in enumerate(layer_end.read_text().splitlines(), 1)
                   if t.startswith("MT_LAYER_OPS_DEFAULTS("))
    out: list[str] = []
    file: str | None = None
    line = 0
    for text in pre.splitlines():
        m = MARKER.match(text)
        if m:
            file, line = m.group(2), int(m.group(1))
            continue
        if (file and line == line_no and os.path.basename(file) == "layer_end.h"
                and pathlib.Path(file).resolve() == layer_end.resolve()):
            out.append(text.strip())
        line += 1
    return out


def unexpand(text: str) -> str:
    for expanded, name in ATTRIBUTES:
        text = text.replace(expanded, name)
    return text


def glue(cc: Sequence[str], args: str, flags: Sequence[str], quote_dir: pathlib.Path) -> str:
    """MT_COMPOSE(args) expanded with the attribute and trait macros kept."""
    probe = "#include <mortise/core/compose.h>\n"
    defined = preprocess(cc, probe, ["-dM", *flags], quote_dir)
    keep = sorted({m.group(1) for m in re.finditer(r"^#define (MT_TRAIT_\w+)", defined, re.M)}
                  | {name for _, name in ATTRIBUTES})
    text = probe + "".join(f"#undef {k}\n" for k in keep) + "@@glue@@\n" + f"MT_COMPOSE({args})\n"
    return preprocess(cc, text, ["-P", *flags], quote_dir).split("@@glue@@", 1)[1].strip()


def clang_format(text: str, style: pathlib.Path | None) -> str:
    """text formatted with the style file; as it is without clang-format."""
    program = shutil.which("clang-format") or shutil.which("clang-format-14")
    if not program or style is None or not style.is_file():
        return text
    r = subprocess.run([program, f"--style=file:{style}", "--assume-filename=chain.h"],
                       input=text, capture_output=True, text=True)
    if r.returncode:
        raise ChainError(f"clang-format failed:\n{r.stderr}")
    return r.stdout


def chain_header(c_text: str, origin: str, cc: Sequence[str], flags: Sequence[str],
                 include: pathlib.Path, quote_dir: pathlib.Path) -> str:
    """The text of chains/NAME.inl for composition c_text (instances/NAME.c or
    a generated one): flags are its compile flags (with -I include), quote_dir
    where its "..." includes are found."""
    args, _ = composition_args(c_text)
    pre = preprocess(cc, macro_form(c_text), flags, quote_dir)
    fwd = forwarders(pre, include / "mortise" / "core" / "layer_end.h")
    out = [f"/* Generated by tools/compose_chain.py from {origin}:",
           f" * MT_COMPOSE({args})",
           " * and the forwarders of its layers (MT_LAYER_OPS_DEFAULTS, core/layer_end.h),",
           " * written out so that grep, ctags and a call-graph walk find every function",
           " * a debugger names. Do not edit: `tools/compose_chain.py --write` rewrites it.",
           " */"]
    # The forwarders come first, each layer's in the order its header was
    # included: only the glue follows them, and it is what calls them.
    for f in fwd:
        m = FORWARDER.search(f)
        if m:
            out += ["", f"/* {m.group(1) or m.group(2)}: the operations it leaves to core/layer_end.h */",
                    unexpand(f)]
    out += ["", "/* The composition (core/compose.h) */", unexpand(glue(cc, args, flags, quote_dir))]
    return clang_format("\n".join(out) + "\n", include.parent / ".clang-format")

"""mortise — compose, build, run and explain Mortise allocators.

Every command reads the registry from the headers it compiles against, so
what it accepts is what the headers provide.
"""
from __future__ import annotations

import argparse
import hashlib
import os
import pathlib
import platform
import re
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from typing import NoReturn

from . import chain, gen, tune
from .check import Composition, bands, check, fmt_range, suggest
from .paths import Paths
from .registry import KIND_ORDER, Registry, Slot
from .spec import SIZE_MAX, SpecError, render

DEFAULT_OPT = ["-O2", "-g", "-DNDEBUG"]
C_MACRO = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# cmake/Mortise.cmake's MORTISE_ALLOCATOR_FLAGS: the compiler must not turn the
# allocator's own malloc+memset into calloc, TLS must be initial-exec even in
# a shared library, and only the socket's entry points are exported.
ALLOCATOR_FLAGS = ["-fno-builtin-malloc", "-fno-builtin-calloc", "-fno-builtin-realloc",
                   "-fno-builtin-free", "-ftls-model=initial-exec", "-fvisibility=hidden"]
GCC_FLAGS = ["--param=max-early-inliner-iterations=32"]   # deep chains fold (compose.h)
X86_64_FLAGS = ["-mcx16"]                                   # segfit_lf's cmpxchg16b
LINK_FLAGS = ["-pthread", "-ldl"]


class Failure(Exception):
    """A command failed; the message is printed and the exit status is code."""

    def __init__(self, msg: str, code: int = 1) -> None:
        super().__init__(msg)
        self.code = code


def registry(paths: Paths) -> Registry:
    return Registry(paths.include, [paths.instances])


def checked(reg: Registry, text: str) -> Composition:
    """The composition of text, warnings printed; a SpecError becomes Failure."""
    try:
        comp = check(reg, text)
    except SpecError as e:
        raise Failure(render(text, "error", e.msg, e.pos, e.length), 2)
    for w in comp.warnings:
        print(render(text, "warning", w.msg, w.pos, w.length), file=sys.stderr)
    return comp


def with_prefix(reg: Registry, comp: Composition, prefix: str) -> Composition:
    """The composition with its socket named by prefix: malloc_socket becomes
    custom_socket(prefix=P), a socket with a prefix slot gets P."""
    sock = comp.socket
    if sock.layer.name == "malloc_socket":
        term = f"custom_socket(prefix={prefix})"
    elif "prefix" in sock.layer.slots:
        args = [f"{n}={sv.text}" for n, sv in sock.values.items() if sv.given and n != "prefix"]
        term = f"{sock.layer.name}({', '.join(args + ['prefix=' + prefix])})"
    else:
        raise Failure(f"--prefix: the socket {sock.layer.name} has no prefix slot", 2)
    line = "::".join([gen.model_text(i) for i in comp.instances[:-1]] + [term])
    return checked(reg, line)


def compiler() -> list[str]:
    return shlex.split(os.environ.get("CC", "cc"))


def is_clang(cc: list[str]) -> bool:
    try:
        out = subprocess.run(cc + ["--version"], capture_output=True, text=True).stdout
    except OSError:
        raise Failure(f"no C compiler '{' '.join(cc)}' (set CC)")
    return "clang" in out


def compile_flags(paths: Paths, cc: list[str], opt: list[str]) -> list[str]:
    flags = ["-std=c11", "-D_GNU_SOURCE", "-Wall", "-Wextra"] + opt + \
        ["-fPIC", f"-I{paths.include}"] + ALLOCATOR_FLAGS
    if not is_clang(cc):
        flags += GCC_FLAGS
    if platform.machine() in ("x86_64", "AMD64"):
        flags += X86_64_FLAGS
    return flags + ["-pthread"]


def run_cmd(cmd: list[str], verbose: bool) -> None:
    if verbose:
        print("+ " + " ".join(shlex.quote(c) for c in cmd), file=sys.stderr)
    r = subprocess.run(cmd)
    if r.returncode:
        raise Failure(f"mortise: `{cmd[0]}` failed (exit {r.returncode}) on the "
                      "generated composition; the spec checks passed, so this is "
                      "a constraint a header states with _Static_assert (see above)")


def layer_libs(comp: Composition) -> list[str]:
    """-lNAME for every library a layer of the composition links (its
    descriptor's links, core/describe.h)."""
    libs: list[str] = []
    for i in comp.instances:
        libs += [f"-l{n}" for n in getattr(i.layer, "links", []) if f"-l{n}" not in libs]
    return libs


def written_out(paths: Paths, c_text: str, stem: str, origin: str,
                opt: list[str] | None = None) -> tuple[str, str]:
    """c_text with its forwarders and glue written out (mortise_lib/chain.py):
    the composition that includes chains/STEM.inl, and that file's text."""
    cc = compiler()
    flags = compile_flags(paths, cc, opt if opt is not None else DEFAULT_OPT)
    try:
        header = chain.chain_header(c_text, origin, cc, flags, paths.include, pathlib.Path.cwd())
        return chain.written_form(c_text, stem), header
    except chain.ChainError as e:
        raise Failure(f"mortise: writing out the glue: {e}", 1)


def build_files(paths: Paths, c_text: str, out_so: str | os.PathLike[str] | None = None,
                out_a: str | os.PathLike[str] | None = None, opt: list[str] | None = None,
                verbose: bool = False, libs: Sequence[str] = (), chain_h: str | None = None) -> list[str]:
    """Compile c_text once (-fPIC) into out_so and/or out_a; chain_h: the
    text of chains/composition.inl it includes (written_out)."""
    cc = compiler()
    flags = compile_flags(paths, cc, opt if opt is not None else DEFAULT_OPT)
    with tempfile.TemporaryDirectory(prefix="mortise-") as tmp:
        src = pathlib.Path(tmp) / "composition.c"
        obj = pathlib.Path(tmp) / "composition.o"
        src.write_text(c_text)
        if chain_h is not None:
            (pathlib.Path(tmp) / "chains").mkdir()
            (pathlib.Path(tmp) / "chains" / "composition.inl").write_text(chain_h)
        run_cmd(cc + flags + ["-c", str(src), "-o", str(obj)], verbose)
        if out_so:
            run_cmd(cc + ["-shared", "-o", str(out_so), str(obj)] + LINK_FLAGS + list(libs), verbose)
        if out_a:
            pathlib.Path(out_a).unlink(missing_ok=True)
            run_cmd(["ar", "rcs", str(out_a), str(obj)], verbose)
    return flags


def cmd_build(args: argparse.Namespace, paths: Paths) -> int:
    if not (args.output or args.static or args.emit_c):
        raise Failure("mortise build: give -o LIB.so, --static LIB.a or --emit-c FILE.c", 2)
    reg = registry(paths)
    comp = checked(reg, args.spec)
    if args.prefix:
        comp = with_prefix(reg, comp, args.prefix)
    includes = [os.path.abspath(i) for i in args.include]
    missing_pred = [i for i in comp.instances if "pred" in i.values and not includes]
    if missing_pred and (args.output or args.static):
        p = missing_pred[0].values["pred"]
        raise Failure(render(args.spec, "error", f"pred={p.value} names a C function: "
                             "give its definition with --include FILE.h", p.pos or 0,
                             len(p.text)), 2)
    defines = []
    for d in args.define:
        name, _, value = d.partition("=")
        if not C_MACRO.fullmatch(name):
            raise Failure(f"mortise build: -D {d}: not a macro name", 2)
        slot_macros = {s.macro for l in reg.layers.values() for s in l.slots.values()}
        if name in slot_macros or name in ("MT_NAME", "MT_CTX_EXTRA"):
            raise Failure(f"mortise build: -D {d}: {name} is a slot macro; write the "
                          "slot in the spec", 2)
        defines.append((name, value or "1"))
    c_text = gen.composition_c(comp, includes, defines=defines)
    opt = shlex.split(args.opt) if args.opt is not None else None
    if args.written_out and args.emit_c == "-":
        raise Failure("mortise build: --written-out writes two files: give --emit-c FILE.c", 2)
    if args.emit_c == "-":
        sys.stdout.write(c_text)
    elif args.emit_c:
        emit = pathlib.Path(args.emit_c)
        if args.written_out:
            text, header = written_out(paths, c_text, emit.stem, emit.name, opt)
            (emit.parent / "chains").mkdir(exist_ok=True)
            (emit.parent / "chains" / f"{emit.stem}.inl").write_text(header)
            emit.write_text(text)
        else:
            emit.write_text(c_text)
    if args.output or args.static:
        chain_h = None
        if args.written_out:
            c_text, chain_h = written_out(paths, c_text, "composition", "mortise build", opt)
        build_files(paths, c_text, args.output, args.static, opt, args.verbose, layer_libs(comp), chain_h)
    return 0


def cache_dir() -> pathlib.Path:
    base = os.environ.get("MORTISE_CACHE_DIR")
    if base:
        return pathlib.Path(base)
    xdg = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return pathlib.Path(xdg) / "mortise"


def cached_library(paths: Paths, comp: Composition, verbose: bool) -> pathlib.Path:
    """The spec built into the cache, rebuilt when the composition, the
    compiler, its flags or any header changes (the key hashes all of them)."""
    c_text = gen.composition_c(comp, origin="mortise run")
    cc = compiler()
    key = hashlib.sha256()
    key.update(c_text.encode())
    key.update(" ".join(cc + compile_flags(paths, cc, DEFAULT_OPT)).encode())
    headers = (paths.include / "mortise").rglob("*.h")
    written = (paths.include / "mortise").rglob("*.inl")   # layers' copies of shared fragments
    for h in sorted([*headers, *written]):
        key.update(str(h.relative_to(paths.include)).encode())
        key.update(h.read_bytes())
    d = cache_dir()
    lib = d / f"{key.hexdigest()[:32]}.so"
    if not lib.is_file():
        d.mkdir(parents=True, exist_ok=True)
        tmp = d / f".{lib.name}.{os.getpid()}"
        build_files(paths, c_text, tmp, verbose=verbose, libs=layer_libs(comp))
        (d / f"{lib.stem}.c").write_text(c_text)
        os.replace(tmp, lib)
    elif verbose:
        print(f"mortise: cached {lib}", file=sys.stderr)
    return lib


def looks_like_name(text: str) -> bool:
    return text.isidentifier()


def cmd_run(args: argparse.Namespace, paths: Paths) -> NoReturn:
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        raise Failure("mortise run: no command (mortise run NAME|'SPEC' -- command args...)", 2)
    target = args.target
    lib = paths.instance_library(target) if looks_like_name(target) else None
    if lib is None:
        reg = registry(paths)
        if looks_like_name(target) and target not in reg.layers:
            built = sorted(p.name[len("libmortise-"):-3] for d in paths.libs
                           for p in d.glob("libmortise-*.so"))
            raise Failure(f"mortise run: no built instance '{target}' in "
                          f"{', '.join(map(str, paths.libs))}" + suggest(target, built) +
                          (f"\n  built: {', '.join(built)}" if built else
                           "\n  (build them with make, or give a spec)"), 2)
        comp = checked(reg, target)
        if comp.socket.layer.name != "malloc_socket":
            print(f"mortise run: warning: {comp.socket.layer.name} does not provide "
                  "malloc; preloading it changes nothing the program calls",
                  file=sys.stderr)
        lib = cached_library(paths, comp, args.verbose)
    env = dict(os.environ)
    env["LD_PRELOAD"] = str(lib) + (":" + env["LD_PRELOAD"] if env.get("LD_PRELOAD") else "")
    if args.verbose:
        print(f"mortise: LD_PRELOAD={env['LD_PRELOAD']}", file=sys.stderr)
    try:
        os.execvpe(command[0], command, env)
    except OSError as e:
        raise Failure(f"mortise run: cannot run {command[0]}: {e.strerror}", 127)


def slot_line(slot: Slot) -> str:
    d = slot.default_text if slot.vtype.startswith("[") else slot.default
    if slot.vtype.startswith("["):
        d = "[" + slot.default + "]"
    return f"{slot.name}={slot.vtype} ({d})"


def cmd_list(args: argparse.Namespace, paths: Paths) -> int:
    reg = registry(paths)
    print("Layers (from the descriptors, MT_DESCRIPTOR_NAME, of the headers of "
          f"{paths.include / 'mortise'}; slot=TYPE (default)):")
    titles = {"OS layer": "OS layers (first, exactly one)", "trunk": "trunk layers",
              "add-on": "add-on layers", "socket": "sockets (last, exactly one)"}
    for kind in KIND_ORDER:
        layers = reg.by_kind(kind)
        print(f"\n  {titles[kind]}:")
        for l in sorted(layers, key=lambda l: l.name):
            slots = ", ".join(slot_line(s) for s in l.slots.values()) or "no slots"
            print(f"    {l.name:<16} {l.summary}")
            print(f"    {'':<16} {slots}")
            aliases = [f"{a} for {l.name}" for a in l.aliases] + \
                [f"{a} for {s}" for a, s in l.slot_aliases.items()]
            if aliases:
                print(f"    {'':<16} aliases (the paper's names): {', '.join(aliases)}")
    print("\nPolicies (slot=value, from include/mortise/policy/):")
    for slot in sorted(reg.policies):
        print(f"  {slot:<10} {', '.join(reg.policy_names(slot))}")
    print("\nInstances (model lines of the composition files in "
          f"{paths.instances}; built: libmortise-NAME.so in "
          f"{' or '.join(str(d) for d in paths.libs)}):")
    for name, (line, _) in sorted(reg.instances().items()):
        lib = paths.instance_library(name)
        state = "built" if lib else "not built"
        print(f"  {name:<12} [{state}] {line}")
    return 0


def cmd_explain(args: argparse.Namespace, paths: Paths) -> int:
    reg = registry(paths)
    comp = checked(reg, args.spec)
    print(f"model: {gen.model_line(comp)}\n")
    print("Layers, from the OS layer (bottom) to the socket (top); requests enter at "
          "the socket\nand go down until a layer serves them:")
    for n, inst in enumerate(comp.instances, 1):
        label = inst.name if inst.name == inst.layer.name else \
            f"{inst.name} ({inst.layer.name})"
        print(f"  {n}. {label:<24} {inst.kind:<9} <mortise/{inst.layer.header}>")
        for sname, sv in inst.values.items():
            how = "given" if sv.given else "default"
            extra = ""
            if sname == "size_handle" and isinstance(sv.value, tuple):
                extra = "  = sizes " + fmt_range(*sv.value)
            print(f"       {sname} = {sv.text}  ({how}){extra}")
        if inst.kind == "OS layer":
            print("       serves every size no trunk layer takes")
        elif inst.kind == "add-on" and inst.range():
            print(f"       acts on sizes {fmt_range(*inst.range())}")
    print("\nPolicies chosen:")
    any_policy = False
    for inst in comp.instances:
        for sname, sv in inst.values.items():
            if sv.slot.vtype == "POLICY":
                any_policy = True
                print(f"  {inst.name}: {sname}={sv.text}" + ("" if sv.given else " (default)"))
    if not any_policy:
        print("  none (no layer with a policy slot)")
    print("\nWho serves which sizes (a request of size s is served by the first layer"
          "\nfrom the top whose range holds s; add-ons in front of it listed):")
    for lo, hi, inst, note in bands(comp):
        caches = [i.name for i in comp.instances if i.kind == "add-on" and i.range()
                  and i.range()[0] <= lo and (hi <= i.range()[1] or i.range()[1] == SIZE_MAX)]
        front = f"  (through {', '.join(reversed(caches))})" if caches else ""
        why = f"  [{note}]" if note else ""
        print(f"  {fmt_range(lo, hi):<28} {inst.name}{why}{front}")
    return 0


def cmd_bench(args: argparse.Namespace, paths: Paths) -> NoReturn:
    harness = paths.tools / "bench.py"
    if not harness.is_file():
        raise Failure(f"mortise bench: no benchmark harness at {harness}", 2)
    rest = args.bench_args[1:] if args.bench_args[:1] == ["--"] else args.bench_args
    os.execv(sys.executable, [sys.executable, str(harness)] + rest)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="mortise",
        description="Compose, build, run and explain Mortise allocators written in "
                    "the model language, e.g. "
                    "'mmap_heap::segfit_lk(sync=spinlock)::thread_cache::malloc_socket'. "
                    "Layers, slots and policies come from the headers "
                    "(see `mortise list`); docs/mortise.md has the grammar.")
    sub = p.add_subparsers(dest="cmd", metavar="COMMAND")
    sub.required = True

    b = sub.add_parser("build", help="compile a spec into a shared and/or static library",
                       description="Check SPEC, generate its C composition (one block "
                       "per layer, then MT_COMPOSE) and compile it with the flags of "
                       "cmake/Mortise.cmake (C11, -fPIC, -fno-builtin-malloc/calloc/"
                       "realloc/free, -ftls-model=initial-exec, -fvisibility=hidden, "
                       "gcc's --param=max-early-inliner-iterations=32, -mcx16 on "
                       "x86-64, -pthread; linked with -ldl). Exit status: 0 built, "
                       "2 the spec was refused, 1 the compiler failed.")
    b.add_argument("spec", metavar="SPEC", help="the model-language line (quote it)")
    b.add_argument("-o", dest="output", metavar="LIB.so", help="shared library to write")
    b.add_argument("--static", metavar="LIB.a", help="static library to write")
    b.add_argument("--prefix", metavar="P_",
                   help="entry points P_malloc, P_free, ... beside the system malloc: "
                   "malloc_socket becomes custom_socket(prefix=P_)")
    b.add_argument("--emit-c", metavar="FILE.c",
                   help="write the generated composition ('-': standard output)")
    b.add_argument("--written-out", action="store_true",
                   help="write the layers' forwarders and MT_COMPOSE's glue out as C "
                   "(chains/FILE.inl beside --emit-c FILE.c, which includes it), so "
                   "that grep, ctags and a call-graph walk find every function "
                   "(same machine code)")
    b.add_argument("-O", "--opt", dest="opt", metavar="FLAGS",
                   help="optimisation flags replacing the default '-O2 -g -DNDEBUG' "
                   "(e.g. -O '-O3 -march=native')")
    b.add_argument("--include", action="append", default=[], metavar="FILE.h",
                   help="a header included before the layers (e.g. cond_bypass's "
                   "predicate); repeatable")
    b.add_argument("-D", dest="define", action="append", default=[], metavar="NAME[=VALUE]",
                   help="a tuning macro that is not a model slot (e.g. "
                   "MT_BUDDY_MIN_SHIFT=4), defined at the top of the composition; "
                   "repeatable")
    b.add_argument("-v", "--verbose", action="store_true", help="print the commands run")
    b.set_defaults(fn=cmd_build)

    r = sub.add_parser("run", help="run a program on an instance or a spec (LD_PRELOAD)",
                       description="Run COMMAND with LD_PRELOAD of the ready instance "
                       "NAME (libmortise-NAME.so in $MORTISE_LIB_DIR, the build's lib/ "
                       "or the installed lib/) or of SPEC built into the cache "
                       "($MORTISE_CACHE_DIR, else $XDG_CACHE_HOME/mortise or "
                       "~/.cache/mortise, named by a hash of the composition, the "
                       "compiler and flags, and every header: rebuilt when any changes).")
    r.add_argument("target", metavar="NAME|SPEC")
    r.add_argument("command", nargs=argparse.REMAINDER, metavar="-- COMMAND ARGS")
    r.add_argument("-v", "--verbose", action="store_true",
                   help="print the library preloaded and any build commands")
    r.set_defaults(fn=cmd_run)

    ls = sub.add_parser("list", help="layers, policies, slots with defaults, instances",
                        description="Print the layers by kind with their slots "
                        "(slot=TYPE (default)) and the aliases the model language accepts for "
                        "them (the paper's names), the policies per slot and the ready "
                        "instances with their model lines, all read from the headers "
                        "and composition files.")
    ls.set_defaults(fn=cmd_list)

    e = sub.add_parser("explain", help="the composition as the compiler understands it",
                       description="Check SPEC and print its layers from the OS layer "
                       "up with every slot (given or default), the policies chosen, and "
                       "which layer serves which band of sizes in the end.")
    e.add_argument("spec", metavar="SPEC")
    e.set_defaults(fn=cmd_explain)

    bn = sub.add_parser("bench", help="run the benchmark harness (tools/bench.py)",
                        description="Hand every argument to tools/bench.py, the "
                        "benchmark harness, if this tree has one "
                        "(`mortise bench -- --help` for its options).")
    bn.add_argument("bench_args", nargs=argparse.REMAINDER, metavar="ARGS")
    bn.set_defaults(fn=cmd_bench)

    tune.add_parser(sub, sys.modules[__name__])
    return p


def glue_opt(argv: list[str]) -> list[str]:
    """`-O '-O3 -march=native'`: argparse would read the value, which starts
    with '-', as an option; pass it as --opt=VALUE instead."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        if argv[i] == "--":
            return out + argv[i:]
        if argv[i] == "-O" and i + 1 < len(argv):
            out.append("--opt=" + argv[i + 1])
            i += 2
            continue
        out.append(argv[i])
        i += 1
    return out


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(glue_opt(sys.argv[1:] if argv is None else argv))
    try:
        return args.fn(args, Paths())
    except Failure as f:
        print(str(f), file=sys.stderr)
        return f.code

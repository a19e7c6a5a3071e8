"""The commands a benchmark runs besides its own program (the real programs'
servers and tools, bench/programs/programs.tsv's last column): found on
PATH, else installed with apt-get the way the peers are, else the benchmark
is left out with a note naming the package, instead of failing under every
allocator.
"""
from __future__ import annotations

import shutil
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Tuple

from . import allocators

if TYPE_CHECKING:     # suite imports this module; only mypy needs Bench here
    from .suite import Bench

# (command, the Debian package that has it)
Need = Tuple[str, str]


def parse(text: str) -> list[Need]:
    """'cmd:package cmd2:package2' -> [(cmd, package), ...]; a bare cmd is its own package."""
    out = []
    for item in text.split():
        command, _, package = item.partition(":")
        out.append((command, package or command))
    return out


def missing(pairs: Sequence[Need]) -> list[Need]:
    return [(c, p) for c, p in pairs if not shutil.which(c)]


def install_missing(pairs: Sequence[Need], install: bool, log: str, say: Callable[[str], object],
                    notes: list[str], why: str = "") -> None:
    """apt-get install the packages of the commands not on PATH, when
    install is on and we may (root, apt-get); notes say why not."""
    packages = sorted({p for _, p in missing(pairs)})
    if not packages or not install:
        return
    if not allocators.may_install():
        notes.append("not root or no apt-get: cannot install %s" % ", ".join(packages))
        return
    say("installing %s (apt-get)%s ..." % (", ".join(packages), why))
    if not allocators.apt_install(packages, log):
        notes.append("apt-get could not install %s (see %s)" % (", ".join(packages), log))


def runnable(benches: Sequence[Bench], install: bool, log: str, say: Callable[[str], object],
             notes: list[str], listing: bool = False) -> list[Bench]:
    """The benchmarks whose commands are all there once the missing ones were
    installed (when allowed); each other one is not run, with a note."""
    install_missing([n for b in benches for n in b.needs], install, log, say, notes, " for the real programs")
    kept = []
    for b in benches:
        gone = missing(b.needs)
        if not gone:
            kept.append(b)
            continue
        notes.append("%s not run: %s not installed (package %s%s)" % (
            b.name, ", ".join(c for c, _ in gone), ", ".join(sorted({p for _, p in gone})),
            "; `make bench` installs it" if listing else "" if install else "; installing is off"))
    return kept

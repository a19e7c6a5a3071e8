"""Which allocators a run compares: Mortise instances from the build, the
system malloc, and the peers from the distribution's packages (installed with
apt-get when missing, if the user may and allows it).
"""
from __future__ import annotations

import glob
import os
import shutil
import subprocess
from collections.abc import Callable, Collection, Iterable
from typing import Optional, Tuple

# (name, Debian package or None, library to preload)
Peer = Tuple[str, Optional[str], str]

# docs/design.md §4: the ready instances, in the paper's order. The default set is
# those of them the build has, plus glibc and the peers (TARGET_PEERS, or all in --full).
READY = ["tlsf", "tlsfcc", "hslab", "wfslab", "wfslabfl", "wfslabm", "wfslabs", "hslabd", "tlsfccsd"]

# name, Debian package, library to preload (tbbmalloc replaces malloc through
# its proxy library; libtbbmalloc.so.2 alone only exports scalable_malloc).
PEERS: list[Peer] = [
    ("jemalloc", "libjemalloc2", "libjemalloc.so.2"),
    ("tcmalloc", "libtcmalloc-minimal4", "libtcmalloc_minimal.so.4"),
    ("mimalloc", "libmimalloc2.0", "libmimalloc.so.2"),
    ("tbbmalloc", "libtbbmalloc2", "libtbbmalloc_proxy.so.2"),
]
# scudo is compared where present (docs/design.md §5) but never installed for it.
OPTIONAL_PEERS: list[Peer] = [("scudo", None, "libclang_rt.scudo_standalone-x86_64.so")]
# The peers of the quick suite's default set: those the targets of
# docs/design.md §6 compare with. The others (jemalloc, tbbmalloc, scudo)
# join in --full: three runs of 0.3 s and more under 14 allocators would not
# fit the quick suite's 10 minutes on a loaded 2-core machine (docs/bench.md).
TARGET_PEERS = ["tcmalloc", "mimalloc"]
LIB_DIRS = ["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib",
            "/usr/local/lib"]
SYSTEM = "glibc"


class Allocator:
    def __init__(self, name: str, kind: str, lib: str | None = None, origin: str = "") -> None:
        self.name = name      # as shown in the report
        self.kind = kind      # system | peer | mortise
        self.lib = lib        # the library to LD_PRELOAD (None: the system malloc)
        self.origin = origin  # package and version, or the build path

    def __repr__(self) -> str:
        return "Allocator(%s)" % self.name


def package_version(package: str | None) -> str:
    if not package or not shutil.which("dpkg-query"):
        return ""
    r = subprocess.run(["dpkg-query", "-W", "-f=${Version}", package], capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 else ""


def locate(package: str | None, soname: str) -> str | None:
    """The path of soname: first from the package's file list, then the usual
    library directories (and llvm's for scudo). None when not found."""
    if package and shutil.which("dpkg"):
        r = subprocess.run(["dpkg", "-L", package], capture_output=True, text=True)
        if r.returncode == 0:
            for line in r.stdout.splitlines():
                if os.path.basename(line) == soname and os.path.exists(line):
                    return line
    for d in LIB_DIRS:
        path = os.path.join(d, soname)
        if os.path.exists(path):
            return path
    hits = sorted(glob.glob("/usr/lib/llvm-*/lib/clang/*/lib/linux/" + soname))
    return hits[-1] if hits else None


def may_install() -> bool:
    return os.geteuid() == 0 and shutil.which("apt-get") is not None


def apt_install(packages: Iterable[str], log: str) -> bool:
    """apt-get install the packages (update first); True when it worked."""
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    with open(log, "a") as f:
        for cmd in (["apt-get", "update", "-qq"],
                    ["apt-get", "install", "-y", "-qq", "--no-install-recommends"] + list(packages)):
            r = subprocess.run(cmd, env=env, stdin=subprocess.DEVNULL, stdout=f, stderr=subprocess.STDOUT)
            if r.returncode != 0:
                return False
    return True


def find_peers(install: bool, log: str, say: Callable[[str], object],
               names: Collection[str] | None = None) -> tuple[dict[str, Allocator], list[str]]:
    """{name: Allocator} of the peers present (installing missing ones when
    install is true and we are root), and notes for the ones skipped.
    names restricts the peers looked at (None: all)."""
    found: dict[str, Allocator] = {}
    notes: list[str] = []
    wanted = [p for p in PEERS + OPTIONAL_PEERS if names is None or p[0] in names]
    missing = [p for p in wanted if p[1] and not locate(p[1], p[2])]
    packages = [p[1] for p in missing if p[1]]     # all of them: missing has a package each
    if missing and install:
        if may_install():
            say("installing %s (apt-get) ..." % ", ".join(packages))
            if not apt_install(packages, log):
                notes.append("apt-get could not install %s (see %s)" % (", ".join(packages), log))
        else:
            notes.append("not root or no apt-get: cannot install %s" % ", ".join(packages))
    for name, package, soname in wanted:
        path = locate(package, soname)
        if path:
            version = package_version(package)
            found[name] = Allocator(name, "peer", path, "%s %s" % (package, version) if package else path)
        elif package:
            notes.append("%s skipped: %s (package %s) not installed%s"
                         % (name, soname, package, "" if install else " and installing is off"))
    return found, notes


def mortise_lib(build: str, name: str) -> str:
    return os.path.join(build, "lib", "libmortise-%s.so" % name)


def mortise_instances(build: str) -> list[str]:
    """Names of every Mortise instance the build has, sorted."""
    libs = glob.glob(os.path.join(build, "lib", "libmortise-*.so"))
    return sorted(os.path.basename(p)[len("libmortise-"):-3] for p in libs)


def resolve(spec: str | None, build: str, install: bool, log: str, say: Callable[[str], object],
            full: bool = False) -> tuple[list[Allocator], list[str]]:
    """The allocators of a run from a comma list (see bench.py --help):
    names of instances or peers, paths of libraries, 'default',
    'instances' (every built instance), 'peers'. Returns (allocators, notes);
    an unknown name is an error (ValueError)."""
    items = [s.strip() for s in (spec or "default").split(",") if s.strip()]
    peer_names = [p[0] for p in PEERS + OPTIONAL_PEERS]
    default_peers = peer_names if full else TARGET_PEERS
    wanted: set[str] = set()
    for i in items:
        wanted |= set(default_peers if i == "default" else peer_names if i == "peers" else
                      [i] if i in peer_names else [])
    peers, notes = (find_peers(install, log, say, wanted) if wanted else ({}, []))
    built = mortise_instances(build)
    chosen: list[Allocator] = []
    seen: set[str] = set()

    def add(a: Allocator) -> None:
        if a.name not in seen:
            seen.add(a.name)
            chosen.append(a)

    def add_instance(name: str) -> None:
        add(Allocator(name, "mortise", os.path.abspath(mortise_lib(build, name)), "build"))

    for item in items:
        if item == "default":
            ready = [n for n in READY if n in built]
            if not ready:
                notes.append("none of the ready instances (%s) is built" % ", ".join(READY))
            for n in READY:
                if n in built:
                    add_instance(n)
                else:
                    notes.append("instance %s not built: skipped" % n)
            add(Allocator(SYSTEM, "system", None, "the C library's malloc"))
            for name in default_peers:
                if name in peers:
                    add(peers[name])
        elif item == "instances":
            for n in built:
                add_instance(n)
        elif item == "peers":
            add(Allocator(SYSTEM, "system", None, "the C library's malloc"))
            for name in peer_names:
                if name in peers:
                    add(peers[name])
        elif item in (SYSTEM, "system"):
            add(Allocator(SYSTEM, "system", None, "the C library's malloc"))
        elif item in peer_names:
            if item in peers:
                add(peers[item])
        elif "/" in item or item.endswith(".so"):
            path = os.path.abspath(item)
            if not os.path.exists(path):
                raise ValueError("allocator library %s does not exist" % item)
            base = os.path.basename(path)
            name = base[len("libmortise-"):-3] if base.startswith("libmortise-") and base.endswith(".so") \
                else base.split(".so")[0]
            add(Allocator(name, "mortise" if base.startswith("libmortise-") else "peer", path, path))
        elif item in built:
            add_instance(item)
        else:
            raise ValueError("unknown allocator %r: not a peer (%s), not built as %s"
                             % (item, ", ".join([SYSTEM] + peer_names), mortise_lib(build, item)))
    return chosen, notes

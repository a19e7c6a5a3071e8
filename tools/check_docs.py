#!/usr/bin/env python3
"""Check that the reference pages and the headers state what is true now.

    tools/check_docs.py [--root DIR]

Fails (exit 1, one line per problem) when
  - a file path written in docs/*.md or README.md (the reference pages; the
    archive docs/results/ is not read) names no file of the repository:
    a path with a slash is looked up from the root, from the page's folder,
    from include/mortise/ (and its layers/ and policy/ folders, which the
    pages name as `cache/thread_state.h`, `err/`), and as the tail of a
    file's path (`riscv/start.S`); a bare file name (`slab_lk.h`) must be
    the name of some file. Placeholders (`NAME.c`, `tests/layers/LAYER/`),
    build outputs (`build/`, `bin/`, `lib/`), the files a page's own code
    blocks make (a block opened with ```c file=NAME, which
    tests/layers/guide/extract_code.py writes out) and the C library's
    headers are not paths of the repository and are skipped;
  - a markdown link of a reference page leads to no file;
  - "the N operations" in a reference page (N a number or a number word)
    does not count the operations core/ops.h's MT_FOR_EACH_OP lists, or
    the operations table of docs/writing-a-layer.md lists others;
  - the table of docs/design.md §3 (every layer and policy by kind) misses
    a layer (a descriptor, MT_DESCRIPTOR_NAME, in os/, layers/, sockets/) or a
    policy (a policy descriptor of kind policy, MT_POLICY_DESCRIPTOR_SLOT_NAME,
    in policy/) of the headers, as the preprocessor expands them
    (tools/mortise_lib/describe.py), or names one that no header declares;
  - a header under include/ or a composition file under instances/ quotes a
    results page (docs/results/) or a date: measured figures and their
    history live in docs/results/, headers say what is true now;
  - README.md's "## Documentation" list misses a page of docs/;
  - docs/results/README.md, the archive's index, misses a page or folder
    of docs/results/, gives one no description, or links to nothing.
Run by the ctest test tools.check_docs (tests/tools/CMakeLists.txt).
"""
from __future__ import annotations

import argparse
import pathlib
import re
import sys
from typing import Iterator, List, Set, Tuple

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from mortise_lib.describe import DescribeError, describe  # noqa: E402

# What a bare name or a path may end with to be taken for a file.
EXTENSIONS = ("h", "c", "S", "py", "sh", "md", "txt", "cmake", "json", "ini", "in", "ld", "svg", "out")
FILE_NAME = re.compile(r"[\w.+-]+\.(?:" + "|".join(EXTENSIONS) + r")")
# A run of characters a path is written with.
WORD = re.compile(r"[\w./+-]+")
# Words that stand for a name the reader fills in.
PLACEHOLDERS = {"NAME", "KEY", "FILE", "HASH", "DIR", "SLOT", "LAYER", "KIND", "SUITE", "CASE",
                "TARGET", "ALLOCATOR", "BENCH", "RUN", "BUILD", "N", "CPU", "OS", "PREFIX", "SIZE"}
# A code block whose text is a file of the page's example (extract_code.py).
PAGE_FILE = re.compile(r"^```c file=([\w.+-]+)", re.M)
# First folders of paths in a build tree or an install prefix, and folders
# the tools write into: not the sources.
OUTPUT_DIRS = {"build", "bin", "lib", "share", "work", "runs", "profiles", "path"}
OUTPUT_PREFIXES = ("bench/results/", "bench/results")
# Files a page names that are not the repository's: the C library's and the
# system's headers, the reader's own files in examples, files a tool writes.
NOT_OURS = {
    "assert.h", "complex.h", "ctype.h", "errno.h", "fenv.h", "float.h", "inttypes.h", "iso646.h",
    "limits.h", "locale.h", "math.h", "setjmp.h", "signal.h", "stdalign.h", "stdarg.h",
    "stdatomic.h", "stdbool.h", "stddef.h", "stdint.h", "stdio.h", "stdlib.h", "stdnoreturn.h",
    "string.h", "tgmath.h", "threads.h", "time.h", "uchar.h", "wchar.h", "wctype.h",
    "malloc.h", "unwind.h", "libunwind.h", "dlfcn.h", "pthread.h", "unistd.h",
    "app.c", "mine.c", "myheap.c", "prog.c", "file.c", "heap.c",
    "board.ld", "out.json", "wcet.json", "report.md", "summary.txt",
}
# The folders of the repository that hold files the pages name.
SOURCE_DIRS = ("include", "tools", "tests", "docs", "bench", "instances", "cmake", ".ci")

NUMBER_WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen "
    "fourteen fifteen sixteen seventeen eighteen nineteen twenty".split())}
SAYS_OPS = re.compile(r"\b(?:the|all|all the) (\w+) (?:layer )?operations\b", re.I)
DATED = re.compile(r"docs/results/|\b20\d\d-\d\d-\d\d\b")
LINK = re.compile(r"\]\(([^)\s]+)\)")


class Repo:
    """The files of the source tree at root (build trees and .git left out)."""

    def __init__(self, root: pathlib.Path) -> None:
        self.root = root
        self.files: List[str] = []
        for top in SOURCE_DIRS:
            base = root / top
            if base.is_dir():
                self.files += [p.relative_to(root).as_posix() for p in base.rglob("*")
                               if p.is_file() and "__pycache__" not in p.parts]
        self.files += [p.name for p in root.iterdir() if p.is_file()]
        self.names: Set[str] = {f.rsplit("/", 1)[-1] for f in self.files}
        self.dirs: Set[str] = {f.rsplit("/", 1)[0] for f in self.files if "/" in f}
        # every folder, not only the ones holding files directly
        for d in list(self.dirs):
            while "/" in d:
                d = d.rsplit("/", 1)[0]
                self.dirs.add(d)
        inc = "include/mortise"
        self.bases = ["", inc, inc + "/layers", inc + "/policy"]
        self.first_dirs = {d.split("/")[0] for d in self.dirs}
        for b in self.bases[1:]:
            self.first_dirs |= {d[len(b) + 1:].split("/")[0] for d in self.dirs if d.startswith(b + "/")}

    def has(self, rel: str) -> bool:
        rel = rel.rstrip("/")
        return rel in self.dirs or rel in self.files

    def resolves(self, token: str, page_dir: str) -> bool:
        """A path written on a page in page_dir names a file or folder."""
        bases = self.bases + [page_dir]
        for b in bases:
            joined = (pathlib.PurePosixPath(b) / token).as_posix() if b else token
            parts: List[str] = []
            for part in joined.split("/"):      # fold "..", as the reader does
                if part == "..":
                    if parts:
                        parts.pop()
                elif part not in ("", "."):
                    parts.append(part)
            rel = "/".join(parts)
            if self.has(rel) or (token.endswith("/") and rel in self.dirs):
                return True
            if token.endswith(("_", "-")) and any(f.startswith(rel) for f in self.files):
                return True            # a prefix: include/mortise/pal/pal_
            if not FILE_NAME.fullmatch(rel.rsplit("/", 1)[-1]) and \
                    any(f.startswith(rel + ".") for f in self.files):
                return True            # a program built from rel.c
        tail = "/" + re.sub(r"^(?:\.\./)+", "", token).rstrip("/")
        return any(("/" + f).endswith(tail) for f in self.files) or \
            any(("/" + d).endswith(tail) for d in self.dirs)


def reference_pages(root: pathlib.Path) -> List[pathlib.Path]:
    return sorted((root / "docs").glob("*.md")) + [root / "README.md"]


def path_tokens(line: str) -> Iterator[str]:
    """The words of a line written like a path of the repository."""
    for m in WORD.finditer(line):
        if m.start() > 0 and line[m.start() - 1] in ":<$@~":
            continue                   # a URL, a <placeholder>, a variable
        word = m.group(0).rstrip(".,;-")
        word = word.lstrip("-") if not word.startswith("../") else word
        if not word or word.startswith(("/", "./", "...")) or "//" in word:
            continue
        parts = [p for p in word.split("/") if p]
        if not parts or any(p in PLACEHOLDERS or any(w in PLACEHOLDERS for w in re.split(r"[-_.]", p))
                            for p in parts):
            continue
        if "/" in word:
            yield word
        elif FILE_NAME.fullmatch(word):
            yield word


def path_problems(root: pathlib.Path, repo: Repo) -> List[str]:
    problems: List[str] = []
    for page in reference_pages(root):
        rel_page = page.relative_to(root).as_posix()
        page_dir = page.parent.relative_to(root).as_posix()
        page_dir = "" if page_dir == "." else page_dir
        text = page.read_text()
        own = set(PAGE_FILE.findall(text))     # files the page's code blocks make
        for n, line in enumerate(text.splitlines(), 1):
            for target in LINK.findall(line):
                target = target.split("#")[0]
                if not target or re.match(r"[a-z]+:", target):
                    continue
                if not (page.parent / target).exists():
                    problems.append(f"{rel_page}:{n}: link to '{target}': no such file")
            for word in path_tokens(line):
                first = word.lstrip("./").split("/")[0]
                if "/" in word:
                    if first in OUTPUT_DIRS or word.startswith(OUTPUT_PREFIXES):
                        continue
                    # a/b without a suffix is often a pair of names (alloc/free,
                    # segfit/segfit_fake): a path only from a source folder or
                    # written with its closing slash
                    looks_like = first in SOURCE_DIRS or word.startswith("../") or \
                        (word.endswith("/") and first in repo.first_dirs) or \
                        FILE_NAME.fullmatch(word.rstrip("/").rsplit("/", 1)[-1]) is not None
                    if looks_like and not repo.resolves(word, page_dir):
                        problems.append(f"{rel_page}:{n}: '{word}' names no file of the repository")
                elif word not in NOT_OURS and word not in own and word not in repo.names:
                    problems.append(f"{rel_page}:{n}: '{word}': no file of the repository has that name")
    return problems


def operations(root: pathlib.Path) -> List[str]:
    """The operations core/ops.h's MT_FOR_EACH_OP lists, in order."""
    text = (root / "include/mortise/core/ops.h").read_text()
    m = re.search(r"#define MT_FOR_EACH_OP\(X, \.\.\.\)(.*?)\n\n", text, re.S)
    if m is None:
        raise SystemExit("check_docs: include/mortise/core/ops.h defines no MT_FOR_EACH_OP")
    return re.findall(r"X\(__VA_ARGS__, (\w+)\)", m.group(1))


def count_problems(root: pathlib.Path) -> List[str]:
    """"the N operations" on every reference page; the operations table of
    docs/writing-a-layer.md (rows "| `op` | ...") against core/ops.h."""
    problems: List[str] = []
    names = operations(root)
    ops = len(names)
    guide = root / "docs/writing-a-layer.md"
    lines = guide.read_text().splitlines()
    first = next((i for i, l in enumerate(lines) if l.startswith(f"| `{names[0]}` |")), len(lines))
    table: List[str] = []
    for l in lines[first:]:            # the rows of that table, down to its end
        m = re.match(r"\| `([a-z_]+)` \|", l)
        if not m:
            break
        table.append(m.group(1))
    if table != names:
        problems.append(f"docs/writing-a-layer.md: its operations table lists {', '.join(table) or 'nothing'}; "
                        f"core/ops.h lists {', '.join(names)}")
    for page in reference_pages(root):
        for n, line in enumerate(page.read_text().splitlines(), 1):
            for word in SAYS_OPS.findall(line):
                count = NUMBER_WORDS.get(word.lower(), int(word) if word.isdigit() else None)
                if count is not None and count != ops:
                    problems.append(f"{page.relative_to(root)}:{n}: says {word} operations, "
                                    f"core/ops.h lists {ops}")
    return problems


def design_table_problems(root: pathlib.Path) -> List[str]:
    """docs/design.md §3's table names every layer and policy of the
    headers, and nothing else in backquotes."""
    try:
        table = describe(root / "include")      # as tools/mortise_lib/registry.py reads them
    except DescribeError as e:
        return [f"include/: the descriptors cannot be read: {e}"]
    declared: Set[str] = set(table["layers"])
    for names in table["policies"].values():
        declared |= {name for name, d in names.items() if d["kind"] == "policy"}
    text = (root / "docs/design.md").read_text()
    start = text.find("\n## 3.")
    if start < 0:
        return ["docs/design.md: no section '## 3.' (the layers and the model language)"]
    end = text.find("\n## ", start + 1)
    rows = [l for l in text[start:end if end > 0 else None].splitlines() if l.startswith("| ")][2:]
    named: Set[str] = set()
    problems: List[str] = []
    for row in rows:
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        if len(cells) < 2:
            continue
        if cells[0] == "policies":   # `sync=` (none, spinlock, ...): the names in brackets
            named |= set(re.findall(r"[a-z0-9_]+", " ".join(re.findall(r"\(([^)]*)\)", cells[1]))))
        else:
            named |= set(re.findall(r"`([a-z0-9_]+)`", cells[1]))
    for name in sorted(declared - named):
        problems.append(f"docs/design.md §3: '{name}' (declared by a header) is not in the table")
    for name in sorted(named - declared):
        problems.append(f"docs/design.md §3: '{name}' is in the table, no header declares it")
    return problems


def dated_problems(root: pathlib.Path) -> List[str]:
    problems: List[str] = []
    sources = sorted((root / "include").rglob("*.h")) + sorted((root / "instances").glob("*.[ch]"))
    for src in sources:
        for n, line in enumerate(src.read_text().splitlines(), 1):
            if DATED.search(line):
                problems.append(f"{src.relative_to(root)}:{n}: cites a results page or a date "
                                "(measurements belong in docs/results/)")
    return problems


def readme_list_problems(root: pathlib.Path) -> List[str]:
    """Every page of docs/ is linked from README.md's "## Documentation"."""
    text = (root / "README.md").read_text()
    start = text.find("\n## Documentation\n")
    if start < 0:
        return ["README.md: no '## Documentation' section"]
    end = text.find("\n## ", start + 1)
    section = text[start:end if end > 0 else None]
    return [f"README.md: docs/{page.name} is not in the '## Documentation' list"
            for page in sorted((root / "docs").glob("*.md")) if f"(docs/{page.name})" not in section]


def index_problems(root: pathlib.Path) -> List[str]:
    """docs/results/README.md lists every page and folder of the archive,
    each with a description, and links to nothing that is not there."""
    results = root / "docs/results"
    index = results / "README.md"
    if not index.is_file():
        return ["docs/results/README.md: missing (the archive's index)"]
    described: List[Tuple[str, str]] = []
    problems: List[str] = []
    for n, line in enumerate(index.read_text().splitlines(), 1):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        for target in LINK.findall(line):
            target = target.split("#")[0]
            if re.match(r"[a-z]+:", target):
                continue
            if not (results / target).exists():
                problems.append(f"docs/results/README.md:{n}: link to '{target}': no such file")
            if len(cells) >= 2 and target in cells[0]:
                described.append((target.split("/")[0], cells[1]))
    listed = {entry: text for entry, text in described}
    for entry in sorted(p.name for p in results.iterdir() if p.name != "README.md"):
        if entry not in listed:
            problems.append(f"docs/results/{entry}: not listed in docs/results/README.md")
        elif not listed[entry]:
            problems.append(f"docs/results/{entry}: listed in docs/results/README.md without a description")
    return problems


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--root", type=pathlib.Path, default=pathlib.Path(__file__).resolve().parent.parent,
                    help="the source tree to check (default: this one)")
    root = ap.parse_args().root.resolve()
    repo = Repo(root)
    problems = (path_problems(root, repo) + count_problems(root) + design_table_problems(root)
                + dated_problems(root) + readme_list_problems(root) + index_problems(root))
    for p in problems:
        print("check_docs:", p)
    print(f"check_docs: {len(reference_pages(root))} reference pages, {len(repo.files)} files, "
          f"{len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

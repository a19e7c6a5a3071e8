#!/usr/bin/env python3
"""tools/check_docs.py can fail: on a copy of the sources it passes, then
each kind of drift it exists for is written into the copy, one at a time,
and it must exit 1 naming the place."""
import pathlib
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
FOLDERS = ("include", "tools", "tests", "docs", "bench", "instances", "cmake", ".ci")


class CheckDocs(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.t = pathlib.Path(cls.tmp.name)
        for d in FOLDERS:
            if (ROOT / d).is_dir():
                shutil.copytree(ROOT / d, cls.t / d, ignore=shutil.ignore_patterns("__pycache__"))
        for f in ROOT.iterdir():
            if f.is_file():
                shutil.copy(f, cls.t / f.name)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def run_check(self):
        return subprocess.run([sys.executable, str(self.t / "tools/check_docs.py"), "--root", str(self.t)],
                              capture_output=True, text=True)

    def changed(self, rel, old, new):
        """Run the check with old replaced by new (once) in file rel; put it back."""
        path = self.t / rel
        text = path.read_text()
        self.assertIn(old, text, rel)
        path.write_text(text.replace(old, new, 1))
        try:
            return self.run_check()
        finally:
            path.write_text(text)

    def with_page(self, rel):
        """Run the check with a new page at rel; take it away again."""
        page = self.t / rel
        page.write_text("# probe\n")
        try:
            return self.run_check()
        finally:
            page.unlink()

    def fails_with(self, r, *words):
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        for w in words:
            self.assertIn(w, r.stdout)

    def test_clean_copy_passes(self):
        r = self.run_check()
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn(" 0 problems", r.stdout)

    # (file, text, replaced by, what the check must say): one drift each
    EDITS = [
        ("docs/design.md", "include/mortise/pal/", "include/mortise/port/",
         ["docs/design.md:", "'include/mortise/port/"]),
        ("README.md", "\n", "\nThe slabs live in `slab_lkk.h`.\n",
         ["README.md:2: 'slab_lkk.h': no file of the repository has that name"]),
        ("docs/architecture.md", "(mortise.md#semantics)", "(mortise2.md#semantics)",
         ["link to 'mortise2.md': no such file"]),
        ("docs/design.md", "the thirteen operations", "the ten operations",
         ["docs/design.md:", "says ten operations, core/ops.h lists 13"]),
        ("include/mortise/core/ops.h", "X(__VA_ARGS__, check)", "X(__VA_ARGS__, check) X(__VA_ARGS__, probe)",
         ["says thirteen operations, core/ops.h lists 14",
          "docs/writing-a-layer.md: its operations table lists create, alloc"]),
        # the names the guide's ```c file=NAME blocks make are the page's; no other
        ("docs/writing-a-layer.md", "```c file=tiny_pool_malloc.c\n",
         "```c file=tiny_pool_malloc.c\n#include \"tiny_pooll.h\"\n",
         ["docs/writing-a-layer.md:", "'tiny_pooll.h': no file of the repository has that name"]),
        ("docs/design.md", "`tarrcache`, ", "",
         ["docs/design.md §3: 'tarrcache' (declared by a header) is not in the table"]),
        ("docs/design.md", "(tc, supermalloc,", "(tc, jemalloc, supermalloc,",
         ["docs/design.md §3: 'jemalloc' is in the table, no header declares it"]),
        ("include/mortise/layers/slab_lk.h", " */", " * (2026-11-27: 12 % faster)\n */",
         ["include/mortise/layers/slab_lk.h:", "cites a results page or a date"]),
        ("instances/segfit.c", " */", " * (docs/results/2026-11-27-full/README.md)\n */",
         ["instances/segfit.c:", "cites a results page or a date"]),
    ]

    def test_each_edit_fails(self):
        for rel, old, new, said in self.EDITS:
            with self.subTest(file=rel, new=new):
                self.fails_with(self.changed(rel, old, new), *said)

    def test_an_operation_missing_from_the_guide(self):
        lines = (self.t / "docs/writing-a-layer.md").read_text().splitlines()
        row = next(l for l in lines if l.startswith("| `purge` |"))
        r = self.changed("docs/writing-a-layer.md", row + "\n", "")
        self.fails_with(r, "its operations table lists create, alloc, free, alloc_batch, free_batch, getmeta, "
                        "resize, thread_exit, fork_prepare, fork_parent, fork_child, check; core/ops.h lists")

    def test_a_page_missing_from_the_readme(self):
        self.fails_with(self.with_page("docs/probe.md"),
                        "README.md: docs/probe.md is not in the '## Documentation' list")

    def test_a_results_page_missing_from_the_index(self):
        self.fails_with(self.with_page("docs/results/2099-01-01-probe.md"),
                        "docs/results/2099-01-01-probe.md: not listed in docs/results/README.md")

    def test_an_index_row_without_a_description(self):
        index = (self.t / "docs/results/README.md").read_text()
        row = next(l for l in index.splitlines() if l.startswith("| [2026-12-02-fork.md]"))
        r = self.changed("docs/results/README.md", row, "| [2026-12-02-fork.md](2026-12-02-fork.md) | |")
        self.fails_with(r, "docs/results/2026-12-02-fork.md: listed in docs/results/README.md without a description")


if __name__ == "__main__":
    unittest.main()

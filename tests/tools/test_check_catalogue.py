#!/usr/bin/env python3
"""tools/check_catalogue.py can fail at what it checks that a layer forgets
and that its descriptor states: on a copy of the sources it passes, then a
layer's forgotten slot, a forgotten per-instance default, a composition's
stray slot macro, a descriptor default the header does not #define and a
descriptor the header does not name for core/layer_end.h are written into
the copy, one at a time, and it must exit 1 naming each."""
import pathlib
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
FOLDERS = ("include", "tools", "tests", "docs", "instances")


class CheckCatalogue(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.t = pathlib.Path(cls.tmp.name)
        for d in FOLDERS:
            shutil.copytree(ROOT / d, cls.t / d, ignore=shutil.ignore_patterns("__pycache__", ".mypy_cache"))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def run_check(self):
        return subprocess.run([sys.executable, str(self.t / "tools/check_catalogue.py")],
                              capture_output=True, text=True)

    def changed(self, rel, old, new):
        """Run the check with old replaced by new (once) in file rel; put it back."""
        path = self.t / rel
        text = path.read_text()
        self.assertEqual(text.count(old), 1, rel)
        path.write_text(text.replace(old, new, 1))
        try:
            return self.run_check()
        finally:
            path.write_text(text)

    def fails_with(self, r, *words):
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        for w in words:
            self.assertIn(w, r.stdout)

    def test_copy_passes(self):
        r = self.run_check()
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def test_slot_not_forgotten(self):
        r = self.changed("include/mortise/layers/count.h", "#undef MT_SIZE_HANDLE\n", "")
        self.fails_with(r, "count: slot macro MT_SIZE_HANDLE")

    def test_default_not_forgotten(self):
        r = self.changed("include/mortise/layers/slab_wf.h", "#undef MT_SLAB_WF_SWEEP\n", "")
        self.fails_with(r, "slab_wf: default MT_SLAB_WF_SWEEP")

    def test_composition_defines_a_foreign_slot(self):
        r = self.changed("instances/tcache.c", "#include <mortise/layers/thread_cache.h>",
                         "#define MT_TLLABS 4\n#include <mortise/layers/thread_cache.h>")
        self.fails_with(r, "instances/tcache.c:", "MT_TLLABS is not a slot of layers/thread_cache.h")

    def test_shared_chain_defines_a_foreign_slot(self):
        """instances/*.h (a chain several compositions include) is checked too."""
        r = self.changed("instances/hslab_chain.h", "#include <mortise/layers/thread_cache.h>",
                         "#define MT_TLLABS 4\n#include <mortise/layers/thread_cache.h>")
        self.fails_with(r, "instances/hslab_chain.h:", "MT_TLLABS is not a slot of layers/thread_cache.h")

    def test_descriptor_default_drifts(self):
        """The descriptor states a default the header does not #define."""
        r = self.changed("include/mortise/layers/slab_wf.h", "SLOT(tllabs, MT_TLLABS, N, 40,",
                         "SLOT(tllabs, MT_TLLABS, N, 41,")
        self.fails_with(r, "slab_wf: slot tllabs: the descriptor's default '41' is not what "
                        "layers/slab_wf.h #defines for MT_TLLABS (40)")

    def test_descriptor_not_named_at_the_end(self):
        """Without MT_DESCRIPTOR before layer_end.h the compiler checks nothing."""
        r = self.changed("include/mortise/layers/count.h", "#define MT_DESCRIPTOR MT_DESCRIPTOR_count\n", "")
        self.fails_with(r, "count: layers/count.h does not name its descriptor")


if __name__ == "__main__":
    unittest.main()

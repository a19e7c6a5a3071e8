#!/usr/bin/env python3
"""The `mortise` command's spec compiler: one case per error class (message
and column), the typesetting slips it accepts with a warning, numbers and
units, instance naming, the generated C, the registry read from the headers,
and the commands' exit codes. Run by ctest as tools.unit (python3 -m unittest).
"""
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
sys.dont_write_bytecode = True

from mortise_lib import chain, gen  # noqa: E402
from mortise_lib.check import bands, check  # noqa: E402
from mortise_lib.describe import describe  # noqa: E402
from mortise_lib.registry import Registry, instance_model_line  # noqa: E402
from mortise_lib.spec import SIZE_MAX, SpecError, location, render  # noqa: E402

REG = Registry(ROOT / "include", [ROOT / "instances"])


def registry_with(headers: dict[str, str]) -> Registry:
    """The registry of a copy of include/ with headers added (path under
    include/mortise/ → text), its descriptors expanded by the preprocessor."""
    with tempfile.TemporaryDirectory() as tmp:
        inc = pathlib.Path(tmp) / "include"
        shutil.copytree(ROOT / "include", inc)
        for rel, text in headers.items():
            (inc / "mortise" / rel).write_text(text)
        return Registry(inc, descriptors=describe(inc))


MORTISE = [sys.executable, str(ROOT / "tools" / "mortise")]


def col(text, needle, nth=1):
    """1-based column of the nth occurrence of needle in text."""
    at = -1
    for _ in range(nth):
        at = text.index(needle, at + 1)
    return at + 1


class Errors(unittest.TestCase):
    """Every error names the problem and the column of the culprit."""

    def refused(self, text, *words, at=None):
        with self.assertRaises(SpecError) as cm:
            check(REG, text)
        e = cm.exception
        for w in words:
            self.assertIn(w, e.msg)
        if at is not None:
            self.assertEqual(location(text, e.pos)[1], at, e.msg)
        return e

    # unknown names, with a suggestion
    def test_unknown_layer(self):
        t = "mmap_heap::segfit_lx::malloc_socket"
        self.refused(t, "unknown layer 'segfit_lx'", "did you mean 'segfit_lk'?",
                     at=col(t, "segfit_lx"))

    def test_paper_measuring_sketch_names_wcet_stat(self):
        """Paper section 4.2's 'malloc_heap::wacet_stat' is a sketch: refused,
        pointing at the layer it means."""
        t = r"malloc\_heap::wacet\_stat"
        self.refused(t, "unknown layer 'wacet_stat'", "did you mean 'wcet_stat'?", at=15)

    def test_policy_written_as_layer(self):
        t = "mmap_heap::spinlock::malloc_socket"
        self.refused(t, "'spinlock' is a sync policy, not a layer", at=12)

    def test_unknown_policy(self):
        t = "mmap_heap::segfit_lk(sync=spinlok)::malloc_socket"
        self.refused(t, "unknown sync policy 'spinlok'", "did you mean 'spinlock'?",
                     at=col(t, "spinlok"))

    def test_unknown_sizeclass_policy(self):
        t = "mmap_heap::segfit_lk(sizeclass=log2)::malloc_socket"
        self.refused(t, "unknown sizeclass policy 'log2'", "'log2b'", at=col(t, "log2"))

    def test_unknown_enumerated_value(self):
        t = "mmap_heap::segfit_lk::tail_chksum(chksum=xr)::malloc_socket"
        self.refused(t, "unknown chksum policy 'xr'", "did you mean 'xor'?", at=col(t, "xr"))

    def test_unknown_slot(self):
        t = "mmap_heap::segfit_lk(sinc=spinlock)::malloc_socket"
        self.refused(t, "unknown slot 'sinc' for segfit_lk", "did you mean 'sync'?",
                     at=col(t, "sinc"))

    def test_unknown_slot_without_suggestion_lists_slots(self):
        t = "mmap_heap::segfit_lk(qqq=1)::malloc_socket"
        self.refused(t, "its slots: size_handle, sync, sizeclass", at=col(t, "qqq"))

    # OS layer and socket: exactly one each, first and last
    def test_missing_os_layer(self):
        self.refused("segfit_lk::malloc_socket", "no OS layer", "mmap_heap", at=1)

    def test_misplaced_os_layer(self):
        t = "segfit_lk::mmap_heap::malloc_socket"
        self.refused(t, "OS layer 'mmap_heap' must come first", at=12)

    def test_second_os_layer(self):
        t = "mmap_heap::brk_heap::segfit_lk::malloc_socket"
        self.refused(t, "a second OS layer 'brk_heap'", at=12)

    def test_missing_socket(self):
        t = "mmap_heap::segfit_lk"
        self.refused(t, "no socket", "malloc_socket", at=len(t) + 1)

    def test_misplaced_socket(self):
        t = "mmap_heap::malloc_socket::segfit_lk"
        self.refused(t, "socket 'malloc_socket' must come last", at=12)

    def test_second_socket(self):
        t = "mmap_heap::segfit_lk::custom_socket::malloc_socket"
        self.refused(t, "a second socket 'custom_socket'", at=col(t, "custom_socket"))

    def test_too_many_layers(self):
        t = "mmap_heap::" + "::".join(["fake"] * 15) + "::malloc_socket"
        self.refused(t, "more than 16 layers", at=col(t, "malloc_socket"))

    # size ranges of the trunk layers
    def test_gap_between_ranges(self):
        t = ("mmap_heap::segfit_lk(size_handle=[0, 4096])"
             "::slab_wf(size_handle=[8192, 65536])::malloc_socket")
        self.refused(t, "gap in the size ranges", "[4 KiB, 8 KiB)", at=col(t, "[8192"))

    def test_gap_at_zero_with_a_default_range(self):
        t = "mmap_heap::buddy_glk::malloc_socket"      # default [32768, SIZE_MAX]
        self.refused(t, "gap", "[0, 32 KiB)", at=col(t, "buddy_glk"))

    def test_overlap_of_defaults(self):
        t = "mmap_heap::segfit_lk::slab_wf::malloc_socket"
        self.refused(t, "size ranges overlap", "[0, 64 KiB)", at=col(t, "segfit_lk"))

    def test_overlap_given(self):
        t = ("mmap_heap::segfit_lf(size_handle=[32768, SIZE_MAX])"
             "::slab_wf(size_handle=[0, 65536])::malloc_socket")
        self.refused(t, "overlap", "[32 KiB, 64 KiB)", at=col(t, "[32768"))

    def test_a_range_above_the_top_goes_to_the_os_layer(self):
        comp = check(REG, "mmap_heap::slab_wf(size_handle=[0, 65536])::malloc_socket")
        b = bands(comp)
        self.assertEqual((b[-1][0], b[-1][1], b[-1][2].name), (65536, SIZE_MAX, "mmap_heap"))

    def test_bypass_target_may_overlap(self):
        t = ("mmap_heap::segfit_lk(name=lower, size_handle=[0, 65536])"
             "::segfit_lk(name=upper)::cond_bypass(pred=odd, target=lower)::malloc_socket")
        comp = check(REG, t)
        self.assertEqual([i.name for i in comp.instances][1:3], ["lower", "upper"])

    # numbers and units
    def test_bad_unit(self):
        t = "mmap_heap(threadlocal_heap_size=2XB)::malloc_socket"
        self.refused(t, "unknown unit 'XB'", "KiB", at=col(t, "XB"))

    def test_number_too_large(self):
        t = "mmap_heap::segfit_lk(size_handle=[0, 99999999999999999999999])::malloc_socket"
        self.refused(t, "does not fit in 64 bits", at=col(t, "9999"))

    def test_fraction(self):
        t = "mmap_heap(threadlocal_heap_size=1.5MB)::malloc_socket"
        self.refused(t, "sizes are whole numbers", at=col(t, "1.5"))

    def test_size_that_is_a_word(self):
        t = "mmap_heap::segfit_lk::thread_cache(cache_size=big)::malloc_socket"
        self.refused(t, "'big' is not a size", at=col(t, "big"))

    def test_size_max_misspelt(self):
        t = "mmap_heap::tlsf_glk(size_handle=[0, SIZEMAX])::malloc_socket"
        self.refused(t, "did you mean 'SIZE_MAX'", at=col(t, "SIZEMAX"))

    def test_count_with_a_unit(self):
        t = "mmap_heap::slab_wf(tllabs=4KB)::malloc_socket"
        self.refused(t, "tllabs of slab_wf is a count", at=col(t, "4KB"))

    # bad values of a slot's type
    def test_flag_not_0_or_1(self):
        t = "mmap_heap(huge_page=2)::segfit_lk::malloc_socket"
        self.refused(t, "huge_page of mmap_heap is 0 or 1", at=col(t, "2"))

    def test_range_expected(self):
        t = "mmap_heap::segfit_lk(size_handle=64KB)::malloc_socket"
        self.refused(t, "is a size range [lo, hi]", at=col(t, "64KB"))

    def test_range_where_one_value(self):
        t = "mmap_heap::segfit_lk(sync=[0, 1])::malloc_socket"
        self.refused(t, "takes one value", at=col(t, "[0"))

    def test_empty_range(self):
        t = "mmap_heap::segfit_lk(size_handle=[65536, 0])::malloc_socket"
        self.refused(t, "empty range", at=col(t, "[65536"))

    def test_size_max_as_lower_bound(self):
        t = "mmap_heap::segfit_lk(size_handle=[SIZE_MAX, SIZE_MAX])::malloc_socket"
        self.refused(t, "lower bound cannot be SIZE_MAX", at=col(t, "SIZE_MAX"))

    def test_bad_identifier(self):
        t = "mmap_heap::segfit_lk::custom_socket(prefix=12)"
        self.refused(t, "is a C identifier", at=col(t, "12"))

    def test_slot_given_twice(self):
        t = "mmap_heap::segfit_lk(sync=spinlock, sync=ticket)::malloc_socket"
        self.refused(t, "slot 'sync' given twice", at=col(t, "sync", 2))

    def test_bare_slot_the_layer_has(self):
        t = "mmap_heap::segfit_lk(sync)::malloc_socket"
        self.refused(t, "slot 'sync' of segfit_lk needs a value", at=col(t, "sync"))

    def test_required_slot_missing(self):
        t = "mmap_heap::segfit_lk::cond_bypass(target=segfit_lk)::malloc_socket"
        self.refused(t, "cond_bypass needs slot 'pred'", at=col(t, "cond_bypass"))

    def test_bypass_target_above(self):
        t = ("mmap_heap::cond_bypass(pred=p, target=segfit_lk)::segfit_lk"
             "::malloc_socket")
        self.refused(t, "'segfit_lk' is not below cond_bypass", "would recurse",
                     at=col(t, "segfit_lk"))

    def test_bypass_target_ambiguous(self):
        t = ("mmap_heap::segfit_lk(size_handle=[0, 65536])::segfit_lk"
             "::cond_bypass(pred=p, target=segfit_lk)::malloc_socket")
        self.refused(t, "written 2 times", "name=", at=col(t, "segfit_lk", 3))

    def test_two_instances_with_one_name(self):
        t = "mmap_heap::fake(name=f)::fake(name=f)::segfit_lk::malloc_socket"
        self.refused(t, "two instances named 'f'", at=col(t, "fake", 2))

    # brackets, separators, syntax
    def test_unclosed_parenthesis(self):
        t = "mmap_heap(huge_page=1::malloc_socket"
        self.refused(t, "'(' is never closed", at=10)

    def test_bracket_closed_by_parenthesis(self):
        t = "mmap_heap::segfit_lk(size_handle=[0, 4096)::malloc_socket"
        self.refused(t, "')' closes the '[' opened at column 34", at=42)

    def test_unopened_parenthesis(self):
        t = "mmap_heap)::segfit_lk::malloc_socket"
        self.refused(t, "')' without a matching '('", at=10)

    def test_four_colons(self):
        t = "mmap_heap::::segfit_lk::malloc_socket"
        self.refused(t, "'::::' is not a separator", at=10)

    def test_missing_separator(self):
        t = "mmap_heap segfit_lk::malloc_socket"
        self.refused(t, "expected '::' between layers", at=11)

    def test_trailing_separator(self):
        t = "mmap_heap::segfit_lk::"
        self.refused(t, "expected a layer name after '::'", at=23)

    def test_unexpected_character(self):
        t = "mmap_heap::segfit_lk;malloc_socket"
        self.refused(t, "unexpected character ';'", at=21)

    def test_empty_spec(self):
        self.refused("   ", "empty spec", at=1)

    def test_value_missing(self):
        t = "mmap_heap::segfit_lk(sync=)::malloc_socket"
        self.refused(t, "expected a value", at=col(t, ")"))

    def test_column_on_a_later_line(self):
        t = "mmap_heap\n  ::segfit_lx::malloc_socket"
        with self.assertRaises(SpecError) as cm:
            check(REG, t)
        out = render(t, "error", cm.exception.msg, cm.exception.pos)
        self.assertIn("line 2, column 5", out)


class Slips(unittest.TestCase):
    """The paper's typesetting slips: accepted, each with a warning at its column."""

    def warnings(self, text):
        return [(w.msg, location(text, w.pos)[1]) for w in check(REG, text).warnings]

    def test_single_and_triple_colon(self):
        t = "mmap_heap:segfit_lk:::malloc_socket"
        w = self.warnings(t)
        self.assertEqual([c for _, c in w], [10, 20])
        self.assertIn("':' read as '::'", w[0][0])
        self.assertIn("':::' read as '::'", w[1][0])

    def test_bare_slot_the_layer_lacks(self):
        t = "mmap_heap::segfit_lk::thread_cache(sync, cache_size=1MB)::malloc_socket"
        w = self.warnings(t)
        self.assertEqual(len(w), 1)
        self.assertIn("thread_cache has no slot 'sync': ignored", w[0][0])
        self.assertEqual(w[0][1], col(t, "sync"))

    def test_escaped_underscore_and_full_stop(self):
        t = r"mmap\_heap::segfit\_lk::malloc\_socket."
        comp = check(REG, t)
        self.assertEqual([i.name for i in comp.instances],
                         ["mmap_heap", "segfit_lk", "malloc_socket"])
        msgs = [w.msg for w in comp.warnings]
        self.assertEqual(sum("'\\_' read as '_'" in m for m in msgs), 3)
        self.assertIn("full stop", msgs[-1])

    def test_clean_line_has_no_warning(self):
        self.assertEqual(self.warnings("mmap_heap::segfit_lk::malloc_socket"), [])


class Aliases(unittest.TestCase):
    """The paper's names for delayed_free and the chksum slot (docs/mortise.md,
    "Aliases"): read as the real names, each with a warning at its column."""

    def test_paper_delayed_layer_as_printed(self):
        t = "brk_heap::tlsf_glk::delayed(chk_sum=magic, node_xor=1, delayed_size=64KB, " \
            "err_handle=fatal)::malloc_socket"
        comp = check(REG, t)
        d = comp.instances[2]
        self.assertEqual((d.layer.name, d.name), ("delayed_free", "delayed_free"))
        self.assertEqual(d.given, ["chksum", "node_xor", "delayed_size", "err_handle"])
        self.assertEqual(d.values["chksum"].value, "magic")
        self.assertEqual(d.values["delayed_size"].value, 64 << 10)
        self.assertEqual(d.values["err_handle"].value, "fatal")
        w = [(w.msg, location(t, w.pos)[1]) for w in comp.warnings]
        self.assertEqual([c for _, c in w], [col(t, "delayed("), col(t, "chk_sum")])
        self.assertIn("'delayed' read as the layer 'delayed_free'", w[0][0])
        self.assertIn("'chk_sum' read as delayed_free's slot 'chksum'", w[1][0])
        c_text = gen.composition_c(comp)
        self.assertIn("#define MT_CHKSUM magic", c_text)
        self.assertIn("#include <mortise/layers/delayed_free.h>", c_text)
        self.assertIn("::delayed_free(chksum=magic, node_xor=1, delayed_size=64KB, err_handle=fatal)::",
                      gen.model_line(comp))

    def test_paper_tail_chksum_as_printed(self):
        t = r"brk_heap::tlsf_glk::tail\_chksum(chk\_sum=xor, err\_handle=default)::malloc_socket"
        tc = check(REG, t).instances[2]
        self.assertEqual((tc.layer.name, tc.given), ("tail_chksum", ["chksum", "err_handle"]))
        self.assertEqual((tc.values["chksum"].value, tc.values["err_handle"].value), ("xor", "default"))

    def test_alias_and_real_name_together_is_twice(self):
        with self.assertRaises(SpecError) as cm:
            check(REG, "brk_heap::tlsf_glk::tail_chksum(chksum=xor, chk_sum=magic)::malloc_socket")
        self.assertIn("slot 'chksum' given twice", cm.exception.msg)

    def test_slot_alias_only_where_declared(self):
        with self.assertRaises(SpecError) as cm:
            check(REG, "mmap_heap::segfit_lk(chk_sum=xor)::malloc_socket")
        self.assertIn("unknown slot 'chk_sum' for segfit_lk", cm.exception.msg)

    def test_registry_reads_them_from_the_headers(self):
        self.assertEqual(REG.aliases(), {"delayed": "delayed_free"})
        self.assertEqual(REG.layers["tail_chksum"].slot_aliases, {"chk_sum": "chksum"})
        self.assertEqual(REG.layers["delayed_free"].slot_aliases, {"chk_sum": "chksum"})


class Values(unittest.TestCase):
    def slot(self, text, inst, slot):
        return check(REG, text).instances[inst].values[slot].value

    def test_units_are_powers_of_1024(self):
        for written, n in (("64KB", 65536), ("64KiB", 65536), ("64k", 65536),
                           ("2MB", 2 << 20), ("2MiB", 2 << 20), ("1GB", 1 << 30),
                           ("1GiB", 1 << 30), ("0x10000", 65536), ("4096", 4096),
                           ("512B", 512)):
            t = f"mmap_heap(threadlocal_heap_size={written})::malloc_socket"
            self.assertEqual(self.slot(t, 0, "threadlocal_heap_size"), n, written)

    def test_size_max_and_defaults_filled(self):
        comp = check(REG, "mmap_heap::segfit_lf(size_handle=[65536, SIZE_MAX])"
                          "::slab_wf::malloc_socket")
        lf, wf = comp.instances[1], comp.instances[2]
        self.assertEqual(lf.range(), (65536, SIZE_MAX))
        self.assertEqual(wf.range(), (0, 65536))          # slab_wf's default
        self.assertFalse(wf.values["sizeclass"].given)
        self.assertEqual(wf.values["sizeclass"].value, "prime")
        self.assertEqual(lf.values["max_block"].value, 1 << 20)

    def test_max_block_band_goes_to_the_os_layer(self):
        comp = check(REG, "mmap_heap::segfit_lf::malloc_socket")
        b = [(lo, hi, i.name) for lo, hi, i, _ in bands(comp)]
        self.assertEqual(b, [(0, (1 << 20) + 1, "segfit_lf"),
                             ((1 << 20) + 1, SIZE_MAX, "mmap_heap")])


class Generated(unittest.TestCase):
    def test_same_layer_twice_gets_distinct_names(self):
        comp = check(REG, "mmap_heap::fake::segfit_lk::fake::malloc_socket")
        c = gen.composition_c(comp)
        self.assertIn("#define MT_NAME fake_1", c)
        self.assertIn("#define MT_NAME fake_2", c)
        self.assertIn("MT_COMPOSE(mmap_heap, fake_1, segfit_lk, fake_2, malloc_socket)", c)

    def test_slots_as_macros_in_spec_order(self):
        comp = check(REG, "mmap_heap(threadlocal_heap_size=2MB)::segfit_lk(sync=ticket, "
                          "size_handle=[0, 0x10000])::malloc_socket")
        c = gen.composition_c(comp)
        self.assertIn("#define MT_THREADLOCAL_HEAP_SIZE ((size_t)2 << 20)\n"
                      "#include <mortise/os/mmap_heap.h>", c)
        self.assertIn("#define MT_SYNC ticket\n#define MT_SIZE_HANDLE 0, 65536\n"
                      "#include <mortise/layers/segfit_lk.h>", c)
        self.assertNotIn("MT_SIZECLASS", c)      # defaults stay the header's

    def test_context_fields_a_socket_needs(self):
        """kernel_socket's descriptor declares the context field gfp
        (MT_CTX_FIELD), which goes into MT_CTX_EXTRA before Mortise is
        included; it is no slot."""
        self.assertEqual(REG.layers["kernel_socket"].ctx_extra, ["unsigned gfp;"])
        self.assertNotIn("gfp", REG.layers["kernel_socket"].slots)
        comp = check(REG, "sheap_glk::segfit_lk(sync=spinlock)::kernel_socket(prefix=k_)")
        c = gen.composition_c(comp)
        self.assertIn("#define MT_CTX_EXTRA unsigned gfp;\n#include <mortise/mortise.h>", c)

    def test_instance_file_shape(self):
        """The generated file, its glue written out (--written-out), has
        instances/segfit.c's macro lines, in order."""
        src = (ROOT / "instances" / "segfit.c").read_text()
        comp = check(REG, instance_model_line(src))
        c = chain.written_form(gen.composition_c(comp), "segfit")
        want = [l for l in src.splitlines() if l.startswith(("#define", "#include", "MT_"))]
        got = [l for l in c.splitlines() if l.startswith(("#define", "#include", "MT_"))]
        self.assertEqual(got, want)


class RegistryFromHeaders(unittest.TestCase):
    def test_kinds_and_slots(self):
        self.assertEqual(REG.layers["mmap_heap"].kind, "OS layer")
        self.assertEqual(REG.layers["segfit_lk"].kind, "trunk")
        self.assertEqual(REG.layers["thread_cache"].kind, "add-on")
        self.assertEqual(REG.layers["malloc_socket"].kind, "socket")
        s = REG.layers["segfit_lk"].slots["size_handle"]
        self.assertEqual((s.macro, s.default), ("MT_SIZE_HANDLE", "0, 262144"))
        self.assertEqual(REG.layers["custom_socket"].slots["prefix"].default, "mortise_")

    def test_a_policy_header_extends_its_slot(self):
        """policy/sync/lockstat.h declares lock_stat: every layer with a sync
        slot takes it, the others do not; docs rows need not list it."""
        comp = check(REG, "mmap_heap::segfit_lk(sync=ticket, lock_stat=1)::malloc_socket")
        self.assertIn("#define MT_SYNC ticket\n#define MT_LOCK_STAT 1\n",
                      gen.composition_c(comp))
        self.assertNotIn("lock_stat", REG.policies)
        with self.assertRaises(SpecError):
            check(REG, "mmap_heap::segfit_lk::thread_cache(lock_stat=1)::malloc_socket")

    def test_header_examples_are_valid_specs(self):
        """Every one-line 'Example:' composition of a contract block checks
        (annotations after two spaces, e.g. '(instance tlsf)', cut off)."""
        import re
        checked = 0
        for path in sorted((ROOT / "include/mortise").rglob("*.h")):
            text = path.read_text(errors="replace")
            contract = text[:text.find("*/")]
            for m in re.finditer(r"Example[^:\n]*:[ \t]*(\S+::\S[^\n]*)", contract):
                line = re.split(r"\s{2,}", m.group(1).strip())[0]
                with self.subTest(header=path.name, example=line):
                    try:
                        check(REG, line)
                    except SpecError as e:
                        self.fail(render(line, "error", e.msg, e.pos, e.length))
                checked += 1
        self.assertGreater(checked, 10)

    def test_policies(self):
        self.assertIn("ccsynch", REG.policy_names("sync"))
        self.assertIn("prime", REG.policy_names("sizeclass"))

    def test_a_new_header_appears(self):
        """A layer is whatever the headers say: copy the tree, add a header."""
        reg = registry_with({"layers/probe.h": (
            "/* probe — a test layer.\n"
            " * Slots: depth=N → MT_DEPTH (3): how deep.\n */\n"
            "#define MT_DESCRIPTOR_probe(LAYER, SLOT) \\\n"
            "    LAYER(probe, addon, 0, (), ()) MT_OPS(SLOT, alloc, free) \\\n"
            "    SLOT(depth, MT_DEPTH, N, 3, (1, 64), ())\n")})
        self.assertEqual(reg.layers["probe"].kind, "add-on")
        self.assertEqual(reg.layers["probe"].operations, ["alloc", "free"])
        self.assertEqual(reg.layers["probe"].slots["depth"].default, "3")
        comp = check(reg, "mmap_heap::probe(depth=5)::malloc_socket")
        self.assertIn("#define MT_DEPTH 5", gen.composition_c(comp))
        with self.assertRaises(SpecError):      # outside the descriptor's range
            check(reg, "mmap_heap::probe(depth=65)::malloc_socket")
        with self.assertRaises(SpecError):
            check(REG, "mmap_heap::probe::malloc_socket")

    def test_a_new_policy_header_appears(self):
        """A policy is whatever the policy descriptors say: copy the tree, add
        a sync policy and an extension of the sync slot."""
        reg = registry_with({
            "policy/sync/probe.h": (
                "/* sync=probe — a test policy. */\n"
                "#define MT_POLICY_DESCRIPTOR_sync_probe(POLICY, SLOT) POLICY(sync, probe, policy)\n"
                "#if !defined(PROBE_H) && !defined(MT_DESCRIBE)\n#define PROBE_H\n#endif\n"),
            "policy/sync/probe_ext.h": (
                "/* probe_depth: a test extension. */\n"
                "#define MT_POLICY_DESCRIPTOR_sync_probe_ext(POLICY, SLOT) \\\n"
                "    POLICY(sync, probe_ext, extension) SLOT(probe_depth, MT_PROBE_DEPTH, N, 3, (1, 8), ())\n")})
        self.assertIn("probe", reg.policy_names("sync"))
        self.assertNotIn("probe_ext", reg.policy_names("sync"))
        comp = check(reg, "mmap_heap::segfit_lk(sync=probe, probe_depth=5)::malloc_socket")
        self.assertIn("#define MT_SYNC probe\n#define MT_PROBE_DEPTH 5\n", gen.composition_c(comp))
        with self.assertRaises(SpecError):      # outside the extension's declared range
            check(reg, "mmap_heap::segfit_lk(probe_depth=9)::malloc_socket")
        with self.assertRaises(SpecError):      # thread_cache has no sync slot
            check(reg, "mmap_heap::segfit_lk::thread_cache(probe_depth=2)::malloc_socket")
        with self.assertRaises(SpecError):
            check(REG, "mmap_heap::segfit_lk(sync=probe)::malloc_socket")

    def test_check_catalogue_sees_a_wrong_default(self):
        """tools/check_catalogue.py on a copy whose docs row lies."""
        with tempfile.TemporaryDirectory() as tmp:
            t = pathlib.Path(tmp)
            for d in ("include", "tools", "docs"):
                shutil.copytree(ROOT / d, t / d,
                                ignore=shutil.ignore_patterns("__pycache__"))
            cat = [sys.executable, str(t / "tools" / "check_catalogue.py")]
            before = subprocess.run(cat, capture_output=True, text=True).stdout
            self.assertNotIn("segfit_lk: slot sync", before)
            docs = t / "docs" / "layers.md"
            docs.write_text(docs.read_text().replace("`sync` (posix_mutex), `sizeclass`",
                                                     "`sync` (ticket), `sizeclass`", 1))
            r = subprocess.run(cat, capture_output=True, text=True)
            self.assertEqual(r.returncode, 1)
            self.assertIn("segfit_lk: slot sync default 'posix_mutex'", r.stdout)

    def test_check_catalogue_sees_aliases_drift(self):
        """check_catalogue.py on a copy where docs/mortise.md's Aliases table and
        a header's descriptor disagree, both ways."""
        with tempfile.TemporaryDirectory() as tmp:
            t = pathlib.Path(tmp)
            for d in ("include", "tools", "docs"):
                shutil.copytree(ROOT / d, t / d, ignore=shutil.ignore_patterns("__pycache__"))
            cat = [sys.executable, str(t / "tools" / "check_catalogue.py")]
            self.assertEqual(subprocess.run(cat, capture_output=True, text=True).returncode, 0)
            header = t / "include/mortise/layers/tail_chksum.h"
            text = header.read_text()
            header.write_text(text.replace("(magic, xor, crc32), (chk_sum))", "(magic, xor, crc32), ())", 1)
                              .replace("(default, fatal, tolerate, callback), ())",
                                       "(default, fatal, tolerate, callback), (err))", 1))
            r = subprocess.run(cat, capture_output=True, text=True)
            self.assertEqual(r.returncode, 1)
            self.assertIn("alias 'chk_sum' (the slot `chksum`, declared by delayed_free): docs/mortise.md's "
                          "Aliases table says ['delayed_free', 'tail_chksum']", r.stdout)
            self.assertIn("alias 'err' (the slot `err_handle`, declared by tail_chksum): docs/mortise.md's "
                          "Aliases table says nothing", r.stdout)
            header.write_text(header.read_text().replace("callback), (err))", "callback), (chksum))", 1))
            r = subprocess.run(cat, capture_output=True, text=True)
            self.assertIn("tail_chksum: slot alias 'chksum' is the name of one of its slots", r.stdout)


class Commands(unittest.TestCase):
    def mortise(self, *args):
        return subprocess.run(MORTISE + list(args), capture_output=True, text=True,
                              timeout=300)

    def test_error_output_and_status(self):
        r = self.mortise("explain", "mmap_heap::segfit_lk(sync=spinlok)::malloc_socket")
        self.assertEqual(r.returncode, 2)
        self.assertEqual(r.stderr.splitlines(), [
            "error: column 27: unknown sync policy 'spinlok'; did you mean 'spinlock'?",
            "  mmap_heap::segfit_lk(sync=spinlok)::malloc_socket",
            "                            ^~~~~~~"])

    def test_explain(self):
        r = self.mortise("explain", "mmap_heap::segfit_lf(size_handle=[65536, SIZE_MAX])"
                         "::slab_wf::thread_cache(sizeclass=prime)::malloc_socket")
        self.assertEqual(r.returncode, 0, r.stderr)
        out = r.stdout
        self.assertIn("1. mmap_heap", out)
        self.assertLess(out.index("1. mmap_heap"), out.index("5. malloc_socket"))
        self.assertIn("sizeclass = prime  (default)", out)      # slab_wf's default
        self.assertRegex(out, r"\[0, 32 KiB\)\s+slab_wf  \(through thread_cache\)")
        self.assertRegex(out, r"\[32 KiB, 64 KiB\)\s+slab_wf\n")
        self.assertRegex(out, r"\[64 KiB, 1 MiB\]\s+segfit_lf")
        self.assertRegex(out, r"\(1 MiB, SIZE_MAX\]\s+mmap_heap")

    def test_list(self):
        r = self.mortise("list")
        self.assertEqual(r.returncode, 0, r.stderr)
        for word in ("OS layers (first, exactly one):", "trunk layers:", "add-on layers:",
                     "sockets (last, exactly one):", "tlsf_glk",
                     "size_handle=[lo, hi] ([0, 262144])", "sync       ", "ccsynch",
                     "segfit       [", "mmap_heap::segfit_lk(sync=posix_mutex"):
            self.assertIn(word, r.stdout)
        self.assertIn("aliases (the paper's names): delayed for delayed_free, chk_sum for chksum", r.stdout)

    def test_help_of_every_command(self):
        for cmd in ("build", "run", "list", "explain", "bench"):
            r = self.mortise(cmd, "--help")
            self.assertEqual(r.returncode, 0, cmd)
            self.assertIn("usage: mortise " + cmd, r.stdout)

    def test_build_needs_an_output(self):
        r = self.mortise("build", "mmap_heap::segfit_lk::malloc_socket")
        self.assertEqual(r.returncode, 2)
        self.assertIn("give -o", r.stderr)

    def test_run_unknown_instance(self):
        r = self.mortise("run", "segfitt", "--", "true")
        self.assertEqual(r.returncode, 2)
        self.assertIn("no built instance 'segfitt'", r.stderr)

    def test_optimisation_flags(self):
        with tempfile.TemporaryDirectory() as tmp:
            r = self.mortise("build", "mmap_heap::segfit_lk::malloc_socket", "-v",
                             "-O", "-O1 -DMY_FLAG", "--static", str(pathlib.Path(tmp) / "x.a"))
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn(" -O1 -DMY_FLAG ", r.stderr)
            self.assertNotIn("-O2", r.stderr)

    def test_tuning_macros(self):
        r = self.mortise("build", "mmap_heap::buddy_glk(size_handle=[0, SIZE_MAX])"
                         "::malloc_socket", "-D", "MT_BUDDY_MIN_SHIFT=4", "--emit-c", "-")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("#define MT_BUDDY_MIN_SHIFT 4\n#include <mortise/mortise.h>", r.stdout)
        r = self.mortise("build", "mmap_heap::segfit_lk::malloc_socket", "-D",
                         "MT_SYNC=ticket", "--emit-c", "-")
        self.assertEqual(r.returncode, 2)
        self.assertIn("MT_SYNC is a slot macro", r.stderr)

    def test_predicate_needs_its_definition(self):
        spec = ("mmap_heap::segfit_lk(name=lower, size_handle=[0, 65536])::segfit_lk"
                "(name=upper)::cond_bypass(pred=odd, target=lower)::malloc_socket")
        with tempfile.TemporaryDirectory() as tmp:
            lib = str(pathlib.Path(tmp) / "x.so")
            r = self.mortise("build", spec, "-o", lib)
            self.assertEqual(r.returncode, 2)
            self.assertIn(f"column {col(spec, 'odd')}: pred=odd names a C function: give "
                          "its definition with --include FILE.h", r.stderr)
            pred = pathlib.Path(tmp) / "odd.h"
            pred.write_text("static inline bool odd(const mt_ctx *ctx) "
                            "{ return ctx->size & 1; }\n")
            r = self.mortise("build", spec, "-o", lib, "--include", str(pred))
            self.assertEqual(r.returncode, 0, r.stderr)

    def test_emit_c_to_stdout(self):
        r = self.mortise("build", "mmap_heap::segfit_lk::malloc_socket", "--emit-c", "-")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(r.stdout.startswith("/* Generated by `mortise build`"))
        self.assertIn("MT_COMPOSE(mmap_heap, segfit_lk, malloc_socket)", r.stdout)

    def test_emit_c_with_prefix(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = pathlib.Path(tmp) / "x.c"
            r = self.mortise("build", "mmap_heap::segfit_lk::malloc_socket",
                             "--prefix", "my_", "--emit-c", str(out))
            self.assertEqual(r.returncode, 0, r.stderr)
            c = out.read_text()
            self.assertIn("#define MT_PREFIX my_\n#include <mortise/sockets/custom_socket.h>", c)
            self.assertIn("MT_COMPOSE(mmap_heap, segfit_lk, custom_socket)", c)

    def test_written_out(self):
        """--written-out: the composition includes chains/FILE.inl, which
        defines the glue and the forwarders as source lines, and a static
        walk from malloc over the two files and the headers reaches the OS
        layer; the library has the machine code of the macro's."""
        spec = "mmap_heap::segfit_lk::thread_cache::malloc_socket"
        with tempfile.TemporaryDirectory() as tmp:
            out = pathlib.Path(tmp) / "mine.c"
            r = self.mortise("build", spec, "--written-out", "--emit-c", str(out),
                             "-o", str(pathlib.Path(tmp) / "libw.so"))
            self.assertEqual(r.returncode, 0, r.stderr)
            c = out.read_text()
            self.assertIn('#define MT_GLUE_WRITTEN_OUT\n#include <mortise/mortise.h>', c)
            self.assertIn("/* MT_COMPOSE(mmap_heap, segfit_lk, thread_cache, malloc_socket), "
                          'written out: */\n#include "chains/mine.inl"', c)
            h = (pathlib.Path(tmp) / "chains" / "mine.inl").read_text()
            for line in ("MT_INLINE MT_UNUSED void *mt_chain_alloc(mt_ctx *ctx) "
                         "{ return mt_link_malloc_socket_alloc(ctx); }",
                         "MT_INLINE void *malloc_socket_alloc(mt_ctx *ctx, mt_lfunc *next) "
                         "{ return next(ctx); }"):
                self.assertIn(line, h)
            walk = subprocess.run([sys.executable, str(ROOT / "tests" / "tools" / "call_graph.py"), str(out)],
                                  capture_output=True, text=True)
            self.assertEqual(walk.returncode, 0, walk.stdout)
            self.assertIn("mt_link_mmap_heap_alloc -> mmap_heap_alloc", walk.stdout)
            r = self.mortise("build", spec, "-o", str(pathlib.Path(tmp) / "libm.so"))
            self.assertEqual(r.returncode, 0, r.stderr)
            if shutil.which("objdump"):
                code = [subprocess.run(["objdump", "-d", "--no-show-raw-insn", str(pathlib.Path(tmp) / lib)],
                                       capture_output=True, text=True, check=True).stdout.split("\n", 3)[3]
                        for lib in ("libw.so", "libm.so")]
                self.assertEqual(code[0], code[1])
        r = self.mortise("build", spec, "--written-out", "--emit-c", "-")
        self.assertEqual(r.returncode, 2)


class Run(unittest.TestCase):
    """mortise run: a built instance by name, a spec through the cache."""

    def setUp(self):
        self.cache = tempfile.mkdtemp(prefix="mortise-cache-")
        # A snapshot of the headers: the cache key covers them, and the
        # shared tree may change under the test.
        self.include = pathlib.Path(self.cache) / "include"
        shutil.copytree(ROOT / "include", self.include)
        self.env = dict(os.environ, MORTISE_CACHE_DIR=self.cache,
                        MORTISE_INCLUDE_DIR=str(self.include))
        self.env.pop("LD_PRELOAD", None)

    def tearDown(self):
        shutil.rmtree(self.cache)

    def run_(self, *args):
        return subprocess.run(MORTISE + ["run", "-v"] + list(args), capture_output=True,
                              text=True, env=self.env, timeout=300)

    def test_instance_by_name(self):
        build = os.environ.get("MORTISE_BUILD_DIR")
        self.assertTrue(build, "ctest sets MORTISE_BUILD_DIR")
        self.assertTrue((pathlib.Path(build) / "lib/libmortise-segfit.so").is_file(),
                        "segfit is built with every tree")
        r = self.run_("segfit", "--", "sh", "-c", 'echo "LD_PRELOAD=$LD_PRELOAD"')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("LD_PRELOAD=" + str(pathlib.Path(build) / "lib/libmortise-segfit.so"),
                      r.stdout)

    def test_spec_is_built_once_then_cached(self):
        spec = "mmap_heap::segfit_lk(sync=spinlock)::malloc_socket"
        probe = ["--", "sh", "-c", 'x=$(ls /); echo "LD_PRELOAD=$LD_PRELOAD"']
        first = self.run_(spec, *probe)
        self.assertEqual(first.returncode, 0, first.stderr)
        libs = list(pathlib.Path(self.cache).glob("*.so"))
        self.assertEqual(len(libs), 1)
        self.assertIn(f"LD_PRELOAD={libs[0]}", first.stdout)
        self.assertIn("+ ", first.stderr)                    # compiled
        second = self.run_(spec, *probe)
        self.assertEqual(second.returncode, 0, second.stderr)
        self.assertIn("mortise: cached", second.stderr)      # not compiled again
        self.assertNotIn("+ ", second.stderr)
        other = self.run_("mmap_heap::segfit_lk(sync=ticket)::malloc_socket", *probe)
        self.assertEqual(other.returncode, 0, other.stderr)
        self.assertEqual(len(list(pathlib.Path(self.cache).glob("*.so"))), 2)
        header = self.include / "mortise/layers/segfit_lk.h"
        header.write_text(header.read_text() + "\n/* changed */\n")
        again = self.run_(spec, *probe)                      # a header changed
        self.assertEqual(again.returncode, 0, again.stderr)
        self.assertIn("+ ", again.stderr)
        self.assertEqual(len(list(pathlib.Path(self.cache).glob("*.so"))), 3)

    def test_bad_spec_is_refused_before_running(self):
        r = self.run_("mmap_heap::segfit_lk::malloc_sockett", "--", "true")
        self.assertEqual(r.returncode, 2)
        self.assertIn("did you mean 'malloc_socket'", r.stderr)


if __name__ == "__main__":
    unittest.main()

#!/usr/bin/env python3
"""Write or check tools/mortise_lib/descriptors.json, the layers' and policies' descriptors.

Each layer header states what it is as an X-macro the compiler reads,
MT_DESCRIPTOR_<name> (core/describe.h): model name, kind, traits, aliases,
links, the operations it implements (MT_OPS), every slot with its macro,
type, default, allowed values and aliases, and the context fields it needs
(MT_CTX_EXTRA). Each policy
header states its slot, name and kind, MT_POLICY_DESCRIPTOR_<slot>_<name>,
with the slots an extension (policy/sync/lockstat.h) gives the layers.
This tool expands them with the C preprocessor in describe mode
(tools/mortise_lib/describe.py; $CC, else cc) and writes the table that
tools/mortise_lib/registry.py reads, so `mortise list`, `mortise build`,
the spec checker, tools/check_catalogue.py and `mortise tune` see what the
compiler sees (ctest tools.descriptors checks it is up to date).

    tools/describe_layers.py --write     regenerate the table
    tools/describe_layers.py --check     fail if it is stale
"""
from __future__ import annotations

import argparse
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
from mortise_lib.describe import DescribeError, Table, describe  # noqa: E402

TABLE = ROOT / "tools" / "mortise_lib" / "descriptors.json"


def render(table: Table) -> str:
    """The table as JSON: one layer a block, one slot a line; one policy a
    line (an extension's slots on it)."""
    layers = []
    for name in sorted(table["layers"]):
        d = table["layers"][name]
        fields = [f'      "{key}": {json.dumps(d[key])}'
                  for key in ("header", "kind", "traits", "aliases", "links", "ctx", "operations")]
        slots = ",\n".join(f"        {json.dumps(slot)}" for slot in d["slots"])
        fields.append('      "slots": [\n' + slots + "\n      ]" if slots else '      "slots": []')
        layers.append(f"    {json.dumps(name)}: {{\n" + ",\n".join(fields) + "\n    }")
    slots_of = []
    for slot in sorted(table["policies"]):
        names = table["policies"][slot]
        rows = ",\n".join(f"      {json.dumps(n)}: {json.dumps(names[n])}" for n in sorted(names))
        slots_of.append(f"    {json.dumps(slot)}: {{\n" + rows + "\n    }")
    return ('{\n  "layers": {\n' + ",\n".join(layers) + '\n  },\n'
            '  "policies": {\n' + ",\n".join(slots_of) + "\n  }\n}\n")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true")
    mode.add_argument("--check", action="store_true")
    a = ap.parse_args()
    try:
        text = render(describe(ROOT / "include"))
    except DescribeError as e:
        print(f"describe_layers: {e}", file=sys.stderr)
        return 1
    if a.write:
        TABLE.write_text(text)
        return 0
    if not TABLE.exists() or TABLE.read_text() != text:
        print(f"describe_layers: {TABLE.relative_to(ROOT)} is stale; run tools/describe_layers.py --write",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

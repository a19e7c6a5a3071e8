"""Latency percentiles from wcet_stat_malloc's JSON report (docs/stats.md,
schema version 1 or 2), as the report's keys: malloc_p99.9999 ... in µs."""
from __future__ import annotations

import json
import os

OPS = {"alloc": "malloc", "free": "free"}


def percentiles(path: str | os.PathLike[str]) -> dict[str, float]:
    """{"malloc_p90": µs, ..., "free_max": µs} of the first wcet_stat layer in
    the file; ValueError when the file holds no wcet_stat layer."""
    with open(path) as f:
        doc = json.load(f)
    if doc.get("mortise_stats") not in (1, 2):  # 2 added lock tables only
        raise ValueError("not a version 1 or 2 Mortise statistics report")
    for layer in doc.get("layers", []):
        if layer.get("kind") != "wcet_stat":
            continue
        out: dict[str, float] = {}
        for op, name in OPS.items():
            data = layer["ops"][op]
            if not data.get("samples"):
                continue
            for key, ns in data["percentiles_ns"].items():
                out["%s_%s" % (name, key)] = ns / 1000.0
            out["%s_max" % name] = data["max_ns"] / 1000.0
            out["%s_samples" % name] = data["samples"]
        if not out:
            raise ValueError("wcet_stat layer took no samples")
        return out
    raise ValueError("no wcet_stat layer in %s" % path)

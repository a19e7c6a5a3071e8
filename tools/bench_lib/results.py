"""The measurements of one run of the harness, kept in run order, and the
views the report needs (medians of the successful runs, failures)."""
from __future__ import annotations

import csv
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Dict, Tuple

from . import stats

if TYPE_CHECKING:     # only mypy needs these
    from .allocators import Allocator
    from .runner import RunResult
    from .suite import Bench, Job

# (benchmark, allocator) → a summary of its runs
PerPair = Dict[Tuple[str, str], Any]

CSV_FIELDS = ["workload", "allocator", "run", "threads", "wall_s", "maxrss_kb", "status", "detail",
              "metrics", "source", "family", "kind", "cpu_s"]


class Results:
    def __init__(self, csv_path: str | None = None) -> None:
        self.records: list[tuple[Job, RunResult]] = []  # in run order
        # benchmark -> harness seconds over all its runs (drivers and launchers included)
        self.spent: dict[str, float] = {}
        self.csv_path = csv_path
        if csv_path:
            with open(csv_path, "w", newline="") as f:
                csv.writer(f).writerow(CSV_FIELDS)

    def add(self, job: Job, result: RunResult, spent: float | None = None) -> None:
        """Keep a result; append its row to the CSV at once (a harness killed
        half-way leaves every finished run on disk)."""
        self.records.append((job, result))
        if spent is not None:
            self.spent[job.bench.name] = self.spent.get(job.bench.name, 0.0) + spent
        if self.csv_path:
            with open(self.csv_path, "a", newline="") as f:
                csv.writer(f).writerow(self.row(job, result))

    @staticmethod
    def row(job: Job, r: RunResult) -> list[Any]:
        return [job.bench.name, job.alloc.name, job.run, job.bench.threads, "%.4f" % r.wall_s,
                r.maxrss_kb, r.status, r.detail, json.dumps(r.metrics, sort_keys=True) if r.metrics else "",
                r.source, job.bench.family, job.bench.kind, "" if r.cpu_s is None else "%.4f" % r.cpu_s]

    def benches(self, family: str | None = None) -> list[Bench]:
        seen: set[str] = set()
        out: list[Bench] = []
        for job, _ in self.records:
            b = job.bench
            if b.name not in seen and (family is None or b.family == family):
                seen.add(b.name)
                out.append(b)
        return out

    def allocators(self) -> list[Allocator]:
        seen: set[str] = set()
        out: list[Allocator] = []
        for job, _ in self.records:
            if job.alloc.name not in seen:
                seen.add(job.alloc.name)
                out.append(job.alloc)
        return out

    def runs(self, bench: str, alloc: str) -> list[RunResult]:
        return [r for j, r in self.records if j.bench.name == bench and j.alloc.name == alloc]

    def complete(self, bench: str, alloc: str) -> bool:
        """Every run of the pair succeeded (a pair with a failed run stays out
        of the geometric means, and the report says so)."""
        rs = self.runs(bench, alloc)
        return bool(rs) and all(r.ok for r in rs)

    def medians(self, attr: str, only_complete: bool = True) -> PerPair:
        """{(bench, alloc): median of attr over the ok runs} (pairs with a
        failed run left out when only_complete)."""
        return self._per_pair(attr, stats.median, only_complete)

    def spreads(self, attr: str = "wall_s") -> PerPair:
        """{(bench, alloc): run-to-run spread of attr, (max - min) / median
        over the runs of a pair whose every run succeeded}; None for a pair
        of one run."""
        return self._per_pair(attr, stats.rel_spread, True)

    def _per_pair(self, attr: str, summary: Callable[[list[Any]], Any], only_complete: bool) -> PerPair:
        out: PerPair = {}
        groups: dict[tuple[str, str], list[RunResult]] = {}
        for j, r in self.records:
            groups.setdefault((j.bench.name, j.alloc.name), []).append(r)
        for key, rs in groups.items():
            ok = [getattr(r, attr) for r in rs if r.ok]
            if ok and (not only_complete or len(ok) == len(rs)) and None not in ok:  # cpu_s may be unknown
                out[key] = summary(ok)
        return out

    def metric_medians(self, key: str) -> dict[tuple[str, str], float]:
        """{(bench, alloc): median of a numeric metric of the ok lines}."""
        groups: dict[tuple[str, str], list[float]] = {}
        for j, r in self.records:
            if r.ok and key in r.metrics:
                try:
                    groups.setdefault((j.bench.name, j.alloc.name), []).append(float(r.metrics[key]))
                except ValueError:
                    pass
        return {k: stats.median(v) for k, v in groups.items()}

    def failures(self) -> list[tuple[Job, RunResult]]:
        return [(j, r) for j, r in self.records if not r.ok]

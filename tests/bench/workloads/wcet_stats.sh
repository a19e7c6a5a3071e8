#!/bin/sh
# wcet_stats.sh PROGRAM LIB: bench_wcet_test under LD_PRELOAD=LIB writes a
# MORTISE_STATS JSON whose wcet_stat layer saw at least every object the
# program allocated, and sampled them (docs/stats.md, schema version 2).
prog=$1 lib=$2
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
LD_PRELOAD=$lib MORTISE_STATS=json:$dir/wcet.json "$prog" -t 2 -s 0.05 >"$dir/out" || { cat "$dir/out"; exit 1; }
line=$(tail -n 1 "$dir/out")
echo "$line"
objects=${line##*objects=}
python3 - "$dir/wcet.json" "$objects" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
objects = int(sys.argv[2])
layers = [l for l in doc["layers"] if l["kind"] == "wcet_stat"]
assert layers, "no wcet_stat layer in the report"
ops = layers[0]["ops"]
for op in ("alloc", "free"):
    d = ops[op]
    print(op, "count", d["count"], "samples", d["samples"], "p99.9999 ns", d["percentiles_ns"]["p99.9999"])
    assert d["count"] >= objects, "%s: %d requests timed, the program made %d objects" % (op, d["count"], objects)
    assert d["samples"] >= objects // 8 - 16, "%s: too few samples" % op
PY

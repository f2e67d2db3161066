#!/bin/sh
# Checks strobe-gen-kineto: valid JSON shaped like the real traces (compare_shape.py --expect), rank files
# with their distributedInfo, and byte-identical output for the same seed. Run by ctest (bench.generator).
# usage: check_generator.sh GENERATOR PYTHON SOURCE_DIR WORK_DIR
set -eu
gen=$1 py=$2 src=$3 work=$4
rm -rf "$work" && mkdir -p "$work"
"$gen" -o "$work/nv.json" --size 8M --quiet
"$gen" -o "$work/nv2.json" --size 8M --quiet
cmp "$work/nv.json" "$work/nv2.json"
"$py" "$src/bench/compare_shape.py" --expect \
    "$src/resources/sample/param-dlrm-8rank/worker0_step_12.1694128201545.pt.trace.json" "$work/nv.json"
"$gen" -o "$work/amd.json" --size 8M --platform amd --quiet
"$py" "$src/bench/compare_shape.py" --expect \
    "$src/tests/data/kineto/tracelens/mi300x_resnet_act_checkpoint_rank0of8.json.gz" "$work/amd.json"
"$gen" -o "$work/run" --ranks 3 --kernels 3000 --gzip --quiet
"$py" - "$work/run" <<'PY'
import gzip, json, sys
d = sys.argv[1]
for r in range(3):
    doc = json.load(gzip.open(f"{d}/rank-{r}.json.gz"))
    info = doc["distributedInfo"]
    assert info["rank"] == r and info["world_size"] == 3, info
    kernels = sum(1 for e in doc["traceEvents"] if e.get("cat") == "kernel")
    assert 1000 <= kernels < 1600, kernels  # --kernels is a total over ranks, rounded up to whole steps
print("rank files OK")
PY
rm -rf "$work"

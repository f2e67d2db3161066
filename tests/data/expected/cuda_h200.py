#!/usr/bin/env python3
"""Expected values for tests/data/cuda (a PyTorch 2.11 sweep on one NVIDIA H200), computed with Python's json/csv
modules, outside Strobe. Run from the repository root: python3 tests/data/expected/cuda_h200.py > tests/data/expected/cuda_h200.json
Per run (batch=B/repR): kernels (cat "kernel"), their exact total dur in ns (decimal µs x 1000), memcpy/memset
counts, the ProfilerStep#N numbers (CPU-side user_annotation), baseTimeNanoseconds and the realtime of each step's
start by base + ts, next to strobe_torch's realtime anchor of that step; per configuration the mean over repeats of
each kernel name's time per profiled step; nvidia-smi rows; ncu kernels."""
import csv
import gzip
import json
import os
from decimal import Decimal
from collections import defaultdict

root = "tests/data/cuda"
out = {"runs": {}, "per_step_ns": {}, "nvidia_smi_rows": {}, "ncu": {}}
per_cfg = defaultdict(lambda: defaultdict(list))
for batch in ("8", "32"):
    for rep in ("1", "2"):
        d = f"{root}/sweep/batch={batch}/rep{rep}"
        with gzip.open(f"{d}/torch/rank0_trace.json.gz", "rt") as f:
            t = json.load(f, parse_float=Decimal)
        ev = t["traceEvents"]
        kern = [e for e in ev if e.get("cat") == "kernel"]
        steps = sorted((int(e["name"][13:]), e["ts"]) for e in ev
                       if e.get("cat") == "user_annotation" and e.get("name", "").startswith("ProfilerStep#"))
        base = int(t["baseTimeNanoseconds"])
        with open(f"{d}/torch/rank0_clock_anchor.json") as f:
            anchor = {s["step"]: s["realtime_ns"] for s in json.load(f)["steps"]}
        by_name = defaultdict(Decimal)
        for e in kern:
            by_name[e["name"]] += e["dur"]
        for n, us in by_name.items():
            per_cfg[batch][n].append(int(us * 1000) / len(steps))
        out["runs"][f"batch={batch}/rep{rep}"] = {
            "kernels": len(kern),
            "kernel_ns": int(sum(e["dur"] for e in kern) * 1000),
            "memcpy": sum(1 for e in ev if e.get("cat") == "gpu_memcpy"),
            "memset": sum(1 for e in ev if e.get("cat") == "gpu_memset"),
            "steps": [n for n, _ in steps],
            "base_ns": base,
            "step_realtime_ns": [base + int(ts * 1000) for _, ts in steps],
            "anchor_realtime_ns": [anchor[n] for n, _ in steps],
        }
        with open(f"{d}/nvidia_smi.csv", newline="") as f:
            out["nvidia_smi_rows"][f"batch={batch}/rep{rep}"] = sum(1 for _ in csv.DictReader(f, skipinitialspace=True))
# the kernel name with the most time per step at batch=8, and its mean per-step time in both configurations
top = max(per_cfg["8"], key=lambda n: sum(per_cfg["8"][n]))
out["top_kernel"] = top
out["per_step_ns"] = {b: sum(per_cfg[b][top]) / len(per_cfg[b][top]) for b in ("8", "32")}
out["top_delta_pct"] = 100.0 * (out["per_step_ns"]["32"] / out["per_step_ns"]["8"] - 1.0)
with open(f"{root}/ncu/ncu.csv", newline="") as f:
    # ncu --log-file puts its own "==PROF==" lines in the same file, before the CSV
    rows = list(csv.DictReader(line for line in f if not line.startswith("==")))
units = rows[0]  # the second line of a raw page holds the units
kernels = [r for r in rows[1:] if r["ID"].strip()]
out["ncu"] = {"kernels": len(kernels), "names": [r["Kernel Name"] for r in kernels],
              # durations carry thousands separators ("64,736"); the units row says ns
              "duration_unit": units["gpu__time_duration.sum"],
              "duration_ns": sum(float(r["gpu__time_duration.sum"].replace(",", "")) for r in kernels),
              "device": kernels[0].get("device__attribute_display_name", "")}
print(json.dumps(out, indent=1, sort_keys=True))

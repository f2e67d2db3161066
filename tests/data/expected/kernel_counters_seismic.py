#!/usr/bin/python3
# Expected values of the kernel-counters plot on tests/data/rocprof/seismic_128x64.xr (rocprof v1): the kernel
# trace is results.csv; the counters come from the pmc pass data_movement.csv, a separate run of the same program,
# joined by (kernel name, gpu-id, instance index of that name on that GPU). Per kernel name: dispatches with
# counters, total duration (EndNs - BeginNs) and the mean of each counter column.
# Run: /usr/bin/python3 tests/data/expected/kernel_counters_seismic.py
import collections, csv, os
d = os.path.join(os.path.dirname(__file__), "..", "rocprof", "seismic_128x64.xr")
trace = collections.defaultdict(list)
for r in csv.DictReader(open(os.path.join(d, "results.csv"))):
    trace[(r["KernelName"], r["gpu-id"])].append(int(r["EndNs"]) - int(r["BeginNs"]))
counter_cols = ["FETCH_SIZE", "TCP_TCC_READ_REQ_sum", "TCP_TCC_WRITE_REQ_sum", "TCP_TOTAL_CACHE_ACCESSES_sum",
                "WRITE_SIZE"]
seen = collections.Counter()
groups = {}
for r in csv.DictReader(open(os.path.join(d, "data_movement.csv"))):
    key = (r["KernelName"], r["gpu-id"])
    i = seen[key]
    seen[key] += 1
    if i >= len(trace[key]):
        continue
    g = groups.setdefault(r["KernelName"], {"n": 0, "total": 0, "sums": collections.Counter()})
    g["n"] += 1
    g["total"] += trace[key][i]
    for c in counter_cols:
        g["sums"][c] += float(r[c])
for name, g in sorted(groups.items(), key=lambda kv: -kv[1]["total"]):
    print(name, g["n"], g["total"], " ".join(f"{c}={g['sums'][c] / g['n']!r}" for c in counter_cols))

#!/usr/bin/python3
# Expected values of the kernel-counters plot on tests/data/rocprof/docs-2025 (rocprofv3 documentation samples):
# the counter rows of every counter-collection CSV in the directory (a header with Counter_Name, Counter_Value and
# Dispatch_Id: counter_collection.csv and kernel_names.csv) joined to kernel_trace.csv by Dispatch_Id; per kernel name: dispatches with counters, their total
# duration (End - Start) and the mean of each counter. Counter rows whose Dispatch_Id is not in the kernel trace
# are unmatched. Run: /usr/bin/python3 tests/data/expected/kernel_counters_docs2025.py
import collections, csv, os
d = os.path.join(os.path.dirname(__file__), "..", "rocprof", "docs-2025")
kernels = {r["Dispatch_Id"]: r for r in csv.DictReader(open(os.path.join(d, "kernel_trace.csv")))}
groups = collections.OrderedDict()
rows = matched = 0
seen = set()
counter_rows = []
for f in sorted(os.listdir(d)):
    rd = csv.DictReader(open(os.path.join(d, f)))
    if {"Counter_Name", "Counter_Value", "Dispatch_Id"} <= set(rd.fieldnames or []):
        counter_rows += list(rd)
for r in counter_rows:
    rows += 1
    k = kernels.get(r["Dispatch_Id"])
    if k is None:
        continue
    matched += 1
    g = groups.setdefault(k["Kernel_Name"], {"dispatches": 0, "total": 0, "sums": collections.defaultdict(list)})
    if r["Dispatch_Id"] not in seen:
        seen.add(r["Dispatch_Id"])
        g["dispatches"] += 1
        g["total"] += int(k["End_Timestamp"]) - int(k["Start_Timestamp"])
    g["sums"][r["Counter_Name"]].append(float(r["Counter_Value"]))
print(f"counter rows {rows}, matched {matched} ({100 * matched / rows:.1f}%)")
for name, g in groups.items():
    means = {c: sum(v) / len(v) for c, v in g["sums"].items()}
    print(f"{name}\tdispatches={g['dispatches']}\ttotal_ns={g['total']}\t{means}")

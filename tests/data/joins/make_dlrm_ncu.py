#!/usr/bin/python3
# Writes dlrm_worker0_ncu.csv: an `ncu --csv --page details` report (long form, ncu's column names) of kernels of
# the bundled DLRM sample's rank 0 (resources/sample/param-dlrm-8rank/worker0_*.json), as if Nsight Compute had
# profiled the first instances of three kernel names in the same process, plus two dispatches of a kernel the
# trace does not have. Metric values encode (name index, instance) so a join to the wrong instance is visible:
#   sm__throughput.avg.pct_of_peak_sustained_elapsed = 10 * name_index + instance / 100
#   dram__bytes.sum = 1000 * (instance + 1)
# and expected_join.json lists, per trace kernel name, the values its k-th instance must receive.
# Run from the repository root: /usr/bin/python3 tests/data/joins/make_dlrm_ncu.py
import csv, glob, json, os
here = os.path.dirname(os.path.abspath(__file__))
trace = glob.glob(os.path.join(here, "..", "..", "..", "resources", "sample", "param-dlrm-8rank", "worker0_*.json"))[0]
d = json.load(open(trace))
kernels = sorted((e for e in d["traceEvents"] if e.get("cat") == "kernel"), key=lambda e: e["ts"])
pid = kernels[0]["pid"]
cpu_pids = sorted({e["pid"] for e in d["traceEvents"] if e.get("cat") == "cpu_op"})
names = []
for e in kernels:
    if e["name"] not in names and sum(1 for k in kernels if k["name"] == e["name"]) >= 8:
        names.append(e["name"])
    if len(names) == 3:
        break
rows, expected, kid = [], {}, 0
header = ["ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream", "Block Size",
          "Grid Size", "Device", "CC", "Section Name", "Metric Name", "Metric Unit", "Metric Value"]
def dispatch(name, ni, inst, stream):
    global kid
    sm = 10 * ni + inst / 100
    dram = 1000 * (inst + 1)
    for metric, unit, value in (("sm__throughput.avg.pct_of_peak_sustained_elapsed", "%", sm),
                                ("dram__bytes.sum", "byte", dram)):
        rows.append([kid, cpu_pids[0], "python3", "127.0.0.1", name, 1, stream, "(128, 1, 1)", "(64, 1, 1)", 0,
                     "7.0", "GPU Speed Of Light Throughput", metric, unit, f"{value:g}"])
    kid += 1
    return sm, dram
# ncu profiles in launch order: interleave the names as the trace does.
count = {n: 0 for n in names}
for e in kernels:
    n = e["name"]
    if n in count and count[n] < 6:
        sm, dram = dispatch(n, names.index(n), count[n], e["args"].get("stream", 7))
        expected.setdefault(n, []).append({"sm": sm, "dram": dram})
        count[n] += 1
for inst in range(2):
    dispatch("ghost_kernel_not_in_trace", 9, inst, 7)
with open(os.path.join(here, "dlrm_worker0_ncu.csv"), "w", newline="") as f:
    w = csv.writer(f, quoting=csv.QUOTE_ALL)
    w.writerow(header)
    w.writerows(rows)
json.dump({"trace": os.path.basename(trace), "pid": cpu_pids[0], "dispatches": kid, "matched": kid - 2,
           "instances": expected}, open(os.path.join(here, "expected_join.json"), "w"), indent=1)
print(f"{kid} dispatches, {len(rows)} rows, names: {[n[:40] for n in names]}")

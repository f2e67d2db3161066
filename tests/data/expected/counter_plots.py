#!/usr/bin/python3
# Expected values of the counter plots (counter-cdf, counter-timeline, arch-chart, roofline) and of mfu-per-step on
# real files, computed with Python's csv, json, gzip and yaml modules (formulas of resources/derived_metrics.yaml
# re-typed here, not evaluated by Strobe):
#  - seismic: tests/data/rocprof/seismic_128x64.xr (rocprof v1): kernels from results.csv, counters from the pmc pass
#    data_movement.csv joined by (kernel name, gpu-id, instance index); hbm_bandwidth_gbs = (FETCH_SIZE + WRITE_SIZE)
#    * 1024 / (EndNs - BeginNs). Median as numpy's default percentile (linear interpolation).
#  - vcopy: tests/data/rocprof-compute/vcopy_MI300X_A1_rocprofv2/pmc_perf.csv on an MI300X (arch_constants.yaml):
#    per kernel name the mean over its dispatches of mfma_busy_pct, valu_active_pct, lds_active_pct, l2_hit_pct.
#  - mi300x: tests/data/kineto/tracelens/mi300x_resnet_act_checkpoint_rank0of8.json.gz: per kernel name, the FLOPs and
#    least bytes of the outermost GEMM op (aten::mm/addmm/linear/..., see gemm_flops.py) whose time span on the
#    launching thread holds the kernel's runtime call (joined by correlation id), shared among that op's kernels by
#    duration; and MFU per step = GEMM FLOPs / (step duration x MI300X bf16 peak).
# Run: /usr/bin/python3 tests/data/expected/counter_plots.py > tests/data/expected/counter_plots.json
import collections, csv, gzip, json, math, os, yaml
here = os.path.dirname(os.path.abspath(__file__))
data = os.path.join(here, "..")
root = os.path.join(data, "..", "..")
out = {}

def median(v):
    v = sorted(v)
    pos = 0.5 * (len(v) - 1)
    lo = math.floor(pos)
    hi = min(len(v) - 1, lo + 1)
    return v[lo] + (v[hi] - v[lo]) * (pos - lo)

# --- seismic: hbm_bandwidth_gbs per dispatch
d = os.path.join(data, "rocprof", "seismic_128x64.xr")
trace = collections.defaultdict(list)
for r in csv.DictReader(open(os.path.join(d, "results.csv"))):
    trace[(r["KernelName"], r["gpu-id"])].append((int(r["BeginNs"]), int(r["EndNs"])))
seen = collections.Counter()
bw, fetch, lanes = [], [], collections.Counter()
first = []
for r in csv.DictReader(open(os.path.join(d, "data_movement.csv"))):
    key = (r["KernelName"], r["gpu-id"])
    i = seen[key]
    seen[key] += 1
    if i >= len(trace[key]):
        continue
    b, e = trace[key][i]
    fetch.append(float(r["FETCH_SIZE"]))
    if e - b > 0:
        v = (float(r["FETCH_SIZE"]) + float(r["WRITE_SIZE"])) * 1024 / (e - b)
        bw.append(v)
        lanes[r["gpu-id"]] += 1
        first.append((b, v, r["KernelName"]))
first.sort()
out["seismic"] = {"hbm_bandwidth_gbs": {"n": len(bw), "min": min(bw), "max": max(bw), "median": median(bw)},
                  "FETCH_SIZE": {"n": len(fetch), "median": median(fetch)},
                  "lanes": dict(lanes), "first3": [[b - first[0][0], v, n] for b, v, n in first[:3]]}

# --- vcopy: arch-chart metrics
arch = yaml.safe_load(open(os.path.join(root, "resources", "arch_constants.yaml")))["amd"]["MI300X"]
cu, simd = arch["compute_units"], arch["simds_per_cu"]
per = collections.defaultdict(lambda: collections.defaultdict(list))
for r in csv.DictReader(open(os.path.join(data, "rocprof-compute", "vcopy_MI300X_A1_rocprofv2", "pmc_perf.csv"))):
    f = lambda k: float(r[k])
    gui = f("GRBM_GUI_ACTIVE")
    m = per[r["Kernel_Name"]]
    m["mfma_pct"].append(100 * f("SQ_VALU_MFMA_BUSY_CYCLES") / (gui * cu * simd))
    m["valu_pct"].append(100 * f("SQ_ACTIVE_INST_VALU") / (gui * cu))
    m["lds_pct"].append(100 * f("SQ_ACTIVE_INST_LDS") / (gui * cu))
    m["l2_hit_pct"].append(100 * f("TCC_HIT_sum") / max(f("TCC_HIT_sum") + f("TCC_MISS_sum"), 1))
out["vcopy"] = {k: {c: sum(v) / len(v) for c, v in m.items()} | {"dispatches": len(m["valu_pct"])} for k, m in per.items()}

# --- mi300x Kineto: roofline points from GEMM shapes, MFU per step
SIZE = {"float": 4, "double": 8, "c10::Half": 2, "c10::BFloat16": 2}
GEMM = ("aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::linear", "aten::matmul")
def cost(name, dims, types):
    first = 1 if name in ("aten::addmm", "aten::baddbmm") else 0
    a, b = dims[first], dims[first + 1]
    if name in ("aten::mm", "aten::addmm"):
        batch, m, k, n = 1, a[0], a[1], b[1]
    elif name == "aten::linear":
        batch, m, k, n = 1, math.prod(a[:-1]), a[-1], b[0]
    else:
        raise SystemExit("op not in this trace: " + name)
    size = SIZE.get(types[first], 4)
    return 2 * batch * m * n * k, (math.prod(a) + math.prod(b) + batch * m * n) * size
j = json.load(gzip.open(os.path.join(data, "kineto", "tracelens", "mi300x_resnet_act_checkpoint_rank0of8.json.gz")))
ev = [e for e in j["traceEvents"] if e.get("ph") == "X"]
ops = [e for e in ev if e.get("cat") == "cpu_op" and e.get("name") in GEMM]
def contains(p, o):
    return p["pid"] == o["pid"] and p["tid"] == o["tid"] and p["ts"] <= o["ts"] and o["ts"] + o["dur"] <= p["ts"] + p["dur"]
outer = [o for o in ops if not any(p is not o and contains(p, o) and (p["ts"], -p["dur"]) < (o["ts"], -o["dur"]) for p in ops)]
runtime = {e["args"]["correlation"]: e for e in ev if e.get("cat") == "cuda_runtime" and "correlation" in e.get("args", {})}
kernels_of = collections.defaultdict(list)
for k in ev:
    if k.get("cat") != "kernel":
        continue
    rt = runtime.get(k["args"].get("correlation"))
    if rt is None:
        continue
    for o in outer:
        if contains(o, rt):
            kernels_of[id(o)].append(k)
points = collections.defaultdict(lambda: {"flops": 0.0, "bytes": 0.0, "total_ns": 0, "dispatches": 0})
for o in outer:
    ks = kernels_of[id(o)]
    if not ks or "Input Dims" not in o["args"]:
        continue
    f, b = cost(o["name"], o["args"]["Input Dims"], o["args"]["Input type"])
    total = sum(round(k["dur"] * 1000) for k in ks)
    for k in ks:
        share = round(k["dur"] * 1000) / total
        p = points[k["name"]]
        p["flops"] += f * share
        p["bytes"] += b * share
        p["total_ns"] += round(k["dur"] * 1000)
        p["dispatches"] += 1
peak = yaml.safe_load(open(os.path.join(root, "resources", "arch_constants.yaml")))["amd"]["MI300X"]["peak_tflops"]
gemm = json.load(open(os.path.join(here, "gemm_flops.json")))["mi300x"]["steps"]
out["mi300x"] = {"roofline": points, "hbm_bandwidth_gbs": peak and arch["hbm_bandwidth_gbs"],
                 "peak_bf16_tflops": peak["fp16_bf16_matrix"],
                 "mfu_pct": {str(s["step"]): 100 * s["flops"] / (peak["fp16_bf16_matrix"] * 1e12 * s["dur_us"] * 1e-6)
                             for s in gemm}}
print(json.dumps(out, indent=1))

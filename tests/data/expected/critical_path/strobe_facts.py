# Independent facts for the critical-path tests (issue 26, strobe definition), computed from the raw Kineto JSON:
#   /usr/bin/python3 tests/data/expected/critical_path/strobe_facts.py > tests/data/expected/critical_path/strobe_facts.json
# For each trace and window: the events the graph holds (CPU operators and runtime/driver calls that start in the
# window with a duration, and the GPU activities they launched, joined by correlation), the wall-time span they
# cover (the strobe path's length is that span up to what the trace cannot explain), the GPU activities launched by
# blocking calls (hipMemcpyWithStream, cudaMemcpy, ...), those launched through graph launches, and per rank the
# communication kernels.
import gzip
import json
import os

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
CPU = {"cpu_op", "cuda_runtime", "cuda_driver"}
GPU = {"kernel", "gpu_memcpy", "gpu_memset"}
BLOCKING = {"hipMemcpyWithStream", "hipMemcpy", "cudaMemcpy", "hipDeviceSynchronize", "cudaDeviceSynchronize",
            "hipStreamSynchronize", "cudaStreamSynchronize", "hipEventSynchronize", "cudaEventSynchronize"}


def ns(us):
    return int(round(float(us) * 1000))


def load(path):
    with gzip.open(os.path.join(ROOT, path)) as f:
        return [e for e in json.load(f)["traceEvents"] if e.get("ph") == "X"]


def facts(events, window=None, rank_key=None):
    out = {}
    groups = {}
    for e in events:
        groups.setdefault(e.get("args", {}).get(rank_key) if rank_key else 0, []).append(e)
    for rank, ev in sorted(groups.items(), key=lambda kv: kv[0] if kv[0] is not None else -1):
        if window:
            w = [e for e in ev if e["name"] == window and e.get("cat") == "user_annotation"][0]
            lo, hi = ns(w["ts"]), ns(w["ts"]) + ns(w["dur"])
        else:
            lo, hi = min(ns(e["ts"]) for e in ev), max(ns(e["ts"]) + ns(e.get("dur", 0)) for e in ev)
        cpu = [e for e in ev if e.get("cat") in CPU and ns(e.get("dur", 0)) > 0 and lo <= ns(e["ts"]) <= hi]
        by_corr = {e["args"].get("correlation"): e for e in cpu if "correlation" in e.get("args", {})}
        gpu = [e for e in ev if e.get("cat") in GPU and e.get("args", {}).get("correlation") in by_corr]
        sel = cpu + gpu
        span = max(ns(e["ts"]) + ns(e["dur"]) for e in sel) - min(ns(e["ts"]) for e in sel)
        launched_by = lambda e: by_corr[e["args"]["correlation"]]["name"]
        comm = [e for e in gpu if e["name"].startswith(("nccl", "rccl")) or "ncclKernel" in e["name"]]
        out[str(rank)] = {
            "cpu_events": len(cpu),
            "gpu_events": len(gpu),
            "span_ns": span,
            "blocking_launched": sorted({e["name"] for e in gpu if launched_by(e) in BLOCKING}),
            "graph_launched": sum(1 for e in gpu if "GraphLaunch" in launched_by(e)),
            "comm_kernels": len(comm),
        }
    return out


def dlrm_last_arrivals():
    """Per NCCL kernel of the DLRM sample (matched across ranks by name and occurrence), the rank that started it
    last: the one whose work before it is on a cross-rank path."""
    d = os.path.join(ROOT, "..", "..", "resources", "sample", "param-dlrm-8rank")
    starts = {}
    for f in sorted(os.listdir(d)):
        if not f.endswith(".json"):
            continue
        with open(os.path.join(d, f)) as fh:
            t = json.load(fh)
        rank = t["distributedInfo"]["rank"]
        seen = {}
        for e in sorted((e for e in t["traceEvents"] if e.get("cat") == "kernel" and "nccl" in e["name"]),
                        key=lambda e: e["ts"]):
            k = (e["name"], seen.get(e["name"], 0))
            seen[e["name"]] = k[1] + 1
            starts.setdefault(k, {})[rank] = e["ts"]
    return sorted({max(v, key=v.get) for v in starts.values() if len(v) > 1})


print(json.dumps({
    "dlrm_last_arrivals": dlrm_last_arrivals(),
    "amd_step1": facts(load("kineto/hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz"), "ProfilerStep#1"),
    "graphs_all": facts(load("kineto/graphs/tracelens_vllm_prefilldecode_piecewise_graph_execution.json.gz")),
    "multirank_all": facts(load("kineto/multirank/cifar100_ddp_4rank_tracefusion_first_quarter.json.gz"),
                           rank_key="rank"),
}, indent=1, sort_keys=True))

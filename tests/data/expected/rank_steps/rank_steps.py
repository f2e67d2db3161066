#!/usr/bin/python3
"""Per rank and ProfilerStep, with Python's json only (no Strobe): the step's duration and HTA's temporal idle of
the step's GPU activities, for tests/core/rank_steps_test.cpp (the rank × step heatmap, issue 29).

- A rank's steps: its CPU-side "ProfilerStep#N" complete events; duration = dur (µs → ns, rounded).
- The step's GPU activities: events of cat kernel, gpu_memcpy, gpu_memset (Kernel, Memcpy, Memset before Kineto 1.9) whose launch time lies in [ts, ts + dur)
  of the step; the launch time is the start of the cuda/hip runtime call with the same args.correlation on the
  same rank (pid of the activity's process group is not needed: correlation ids are per rank), else the activity's
  own start.
- idle = (last activity end − first activity start) − length of the union of the activities (HTA's temporal
  breakdown over the window); no activity: null.
One rank per file (distributedInfo.rank). With several files (one run), also per rank and step, the waits in
collectives (the straggler analysis' rule, as tests/data/expected/collectives_dlrm.py has it): communication
kernels are cat "kernel" named "nccl...", keyed by (name, occurrence of that name on the rank in (start, end)
order), matched across ranks when launched in the step on two ranks or more; a rank's wait = its kernel's duration
− the shortest; the rank with the shortest kernel (the first in rank order on a tie) arrived last and is charged
the others' waits (caused_wait_ns). Ranks with no matched collective in the step: null.

Run (the files beside this script):
  /usr/bin/python3 tests/data/expected/rank_steps/rank_steps.py resources/sample/param-dlrm-8rank/*.json \\
    > tests/data/expected/rank_steps/dlrm_sample.json
  /usr/bin/python3 tests/data/expected/rank_steps/rank_steps.py \\
    tests/data/kineto/kineto-configs/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz \\
    > tests/data/expected/rank_steps/resnet50_num_workers_0.json
Writes {"<file basename>": {"rank": R, "steps": {"N": {"dur_ns": D, "idle_ns": I or null[, "wait_ns": W,
"caused_wait_ns": C]}}}}.
"""
import gzip
import json
import sys
from decimal import ROUND_HALF_EVEN, Decimal

GPU = {"kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset"}  # the second three: Kineto before 1.9
RUNTIME = {"cuda_runtime", "cuda_driver", "hip_runtime", "runtime", "driver", "Runtime"}


def ns(us):
    """µs as written (int, or float text read as Decimal) to ns, exactly: a float would lose the last digits of
    epoch-µs timestamps (1.69e15 µs × 1000 is past 2**53)."""
    return int((Decimal(us) * 1000).to_integral_value(rounding=ROUND_HALF_EVEN))


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f, parse_float=Decimal)


def rank_steps(trace):
    events = [e for e in trace["traceEvents"] if e.get("ph") == "X"]
    steps = [e for e in events if str(e.get("name", "")).startswith("ProfilerStep#") and e.get("cat") not in GPU
             and e.get("cat") != "gpu_user_annotation"]
    launch = {}
    for e in events:
        if e.get("cat") in RUNTIME and "correlation" in e.get("args", {}):
            launch[e["args"]["correlation"]] = ns(e["ts"])
    acts = []
    for e in events:
        if e.get("cat") not in GPU:
            continue
        start, end = ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])
        t = launch.get(e.get("args", {}).get("correlation"), start)
        acts.append((t, start, end, e.get("cat") in ("kernel", "Kernel") and str(e.get("name", "")).startswith("nccl"),
                     e.get("name")))
    out = {}
    for s in steps:
        n = int(s["name"].split("#")[1])
        s0, s1 = ns(s["ts"]), ns(s["ts"]) + ns(s["dur"])
        mine = sorted((a, b) for t, a, b, _, _ in acts if s0 <= t < s1)
        idle = None
        if mine:
            union, cur_s, cur_e = 0, mine[0][0], mine[0][1]
            for a, b in mine[1:]:
                if a > cur_e:
                    union += cur_e - cur_s
                    cur_s, cur_e = a, b
                else:
                    cur_e = max(cur_e, b)
            union += cur_e - cur_s
            span = max(b for _, b in mine) - mine[0][0]
            idle = span - union
        comm = sorted((a, b, name) for t, a, b, c, name in acts if c and s0 <= t < s1)
        seen, keyed = {}, {}
        for a, b, name in comm:
            k = seen.get(name, 0)
            seen[name] = k + 1
            keyed[(name, k)] = b - a
        out[str(n)] = {"dur_ns": s1 - s0, "idle_ns": idle, "comm": keyed}
    return out


def add_waits(result):
    """wait_ns and caused_wait_ns per rank and step, across the files of one run."""
    ranks = sorted(result.values(), key=lambda r: r["rank"])
    steps = set(n for r in ranks for n in r["steps"])
    for n in steps:
        keys = set(k for r in ranks if n in r["steps"] for k in r["steps"][n]["comm"])
        wait = {r["rank"]: 0 for r in ranks}
        caused = {r["rank"]: 0 for r in ranks}
        matched = {r["rank"]: 0 for r in ranks}
        for k in keys:
            hits = [(r["steps"][n]["comm"][k], r["rank"]) for r in ranks
                    if n in r["steps"] and k in r["steps"][n]["comm"]]
            if len(hits) < 2:
                continue
            shortest, last = min(hits)
            for d, rank in hits:
                wait[rank] += d - shortest
                caused[last] += d - shortest
                matched[rank] += 1
        for r in ranks:
            if n in r["steps"]:
                st = r["steps"][n]
                st["wait_ns"] = wait[r["rank"]] if matched[r["rank"]] else None
                st["caused_wait_ns"] = caused[r["rank"]] if matched[r["rank"]] else None



def main():
    result = {}
    for path in sys.argv[1:]:
        trace = load(path)
        rank = trace.get("distributedInfo", {}).get("rank", -1)
        result[path.split("/")[-1]] = {"rank": rank, "steps": rank_steps(trace)}
    if len(result) > 1:
        add_waits(result)
    for r in result.values():
        for st in r["steps"].values():
            st.pop("comm", None)
    json.dump(result, sys.stdout, indent=1, sort_keys=True)
    print()


if __name__ == "__main__":
    main()

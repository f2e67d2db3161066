#!/usr/bin/env python3
# Expected per-rank summaries for tests/cli/convert_cli_test.cpp (issue 29), computed outside Strobe with Python's
# json module (times as decimal microseconds, converted exactly to integer ns) and PyYAML (the bundled
# classification rules, applied here by Python's re). Regenerate with:
#   /usr/bin/python3 tests/data/expected/convert/make_expected.py > tests/data/expected/convert/expected.json
# For each rank file: the rank (distributedInfo.rank), the kernels' count and summed duration, and per
# ProfilerStep#N (user_annotation span): its start and end, the GPU activities (kernel, gpu_memcpy, gpu_memset)
# launched inside it (launch time = the start of the cuda_runtime call of the same correlation id, else the
# activity's own start), their summed time per category (gpu_memcpy -> memcpy, gpu_memset -> memset, a kernel ->
# the category of the first rule whose pattern re.search finds in its name, else other), and the idle time: the
# span from the first of those activities' start to the last one's end minus the union of their intervals.
import glob
import gzip
import json
import os
import re
import sys
from decimal import Decimal

import yaml

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", ".."))
FILES = sorted(glob.glob(os.path.join(ROOT, "resources/sample/param-dlrm-8rank/*.json"))) + sorted(
    glob.glob(os.path.join(ROOT, "tests/data/kineto/hta/trace_filter/*.json.gz")))


def ns(v):
    return int(Decimal(v) * 1000)


def rules():
    doc = yaml.safe_load(open(os.path.join(ROOT, "resources/classification.yaml")))
    return [(re.compile(r["pattern"], re.I if r.get("icase") else 0), r["category"]) for r in doc["rules"]]


def category(e, compiled):
    if e["cat"] == "gpu_memcpy":
        return "memcpy"
    if e["cat"] == "gpu_memset":
        return "memset"
    for pattern, cat in compiled:
        if pattern.search(e["name"]):
            return cat
    return "other"


def idle(intervals):
    if not intervals:
        return 0
    intervals.sort()
    busy, cur_s, cur_e = 0, intervals[0][0], intervals[0][1]
    for s, e in intervals[1:]:
        if s > cur_e:
            busy += cur_e - cur_s
            cur_s, cur_e = s, e
        else:
            cur_e = max(cur_e, e)
    busy += cur_e - cur_s
    return max(e for _, e in intervals) - intervals[0][0] - busy


def rank_facts(path, compiled):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        doc = json.load(f, parse_float=Decimal)
    events = doc["traceEvents"]
    runtime = {}
    for e in events:
        if e.get("cat") == "cuda_runtime" and "correlation" in e.get("args", {}):
            runtime[e["args"]["correlation"]] = ns(e["ts"])
    gpu = [e for e in events if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset") and e.get("ph") == "X"]
    kernels = [e for e in gpu if e["cat"] == "kernel"]
    steps = []
    for e in sorted((e for e in events if e.get("cat") == "user_annotation" and e.get("ph") == "X"
                     and re.fullmatch(r"ProfilerStep#\d+", e.get("name", ""))), key=lambda e: ns(e["ts"])):
        start, end = ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])
        inside = [g for g in gpu if start <= runtime.get(g.get("args", {}).get("correlation"), ns(g["ts"])) < end]
        by_cat = {}
        for g in inside:
            c = category(g, compiled)
            by_cat[c] = by_cat.get(c, 0) + ns(g["dur"])
        steps.append({"number": int(e["name"].split("#")[1]), "start_ns": start, "end_ns": end,
                      "activities": len(inside), "idle_ns": idle([(ns(g["ts"]), ns(g["ts"]) + ns(g["dur"])) for g in inside]),
                      "time_by_category": by_cat})
    return {"rank": doc["distributedInfo"]["rank"], "kernel_count": len(kernels),
            "kernel_ns": sum(ns(e["dur"]) for e in kernels), "steps": steps}


def main():
    compiled = rules()
    out = {os.path.relpath(p, ROOT): rank_facts(p, compiled) for p in FILES}
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Compares the shape of Kineto traces: bytes per event and category proportions, and checks the
generator's invariants (flows pair up, GPU activities find their runtime call, CPU slices nest).

usage: compare_shape.py TRACE [TRACE...]      (.json or .json.gz; python3 stdlib only)
Run it on a real trace and a generated one side by side, e.g.
  compare_shape.py tests/data/kineto/param-dlrm-8rank/worker0_*.json /tmp/gen.json
"""
import collections
import gzip
import json
import sys


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        raw = f.read()
    return raw, json.loads(raw)


def check(events):
    problems = []
    s_ids = {e["id"] for e in events if e.get("ph") == "s" and e.get("cat") == "ac2g"}
    gpu = [e for e in events if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]
    f_gpu = {(e["id"], e["pid"], e["tid"]) for e in events if e.get("ph") == "f" and e.get("cat") == "ac2g"}
    runtime = {e["args"]["correlation"]: e for e in events if e.get("cat") == "cuda_runtime"}
    unlaunched = sum(1 for g in gpu if g["args"]["correlation"] not in runtime)
    no_flow = sum(1 for g in gpu if (g["args"]["correlation"], g["pid"], g["tid"]) not in f_gpu)
    s_without_gpu = len(s_ids - {g["args"]["correlation"] for g in gpu})
    late = sum(1 for g in gpu if g["args"]["correlation"] in runtime and g["ts"] < runtime[g["args"]["correlation"]]["ts"])
    # Nesting: on each CPU thread, sorted slices must nest or be disjoint.
    per_track = collections.defaultdict(list)
    for e in events:
        if e.get("ph") == "X" and e.get("cat") in ("cpu_op", "user_annotation", "python_function", "cuda_runtime"):
            per_track[(e["pid"], e["tid"])].append((float(e["ts"]), -float(e["dur"]), e))
    crossing = 0
    for items in per_track.values():
        items.sort(key=lambda t: (t[0], t[1]))
        stack = []
        for ts, negdur, _ in items:
            end = ts - negdur
            while stack and stack[-1] <= ts:
                stack.pop()
            if stack and end > stack[-1] + 1e-9:
                crossing += 1
            stack.append(end)
    return {"gpu activities": len(gpu), "without runtime call": unlaunched, "without ac2g f": no_flow,
            "ac2g s without GPU activity": s_without_gpu, "GPU start before launch": late,
            "crossing CPU slices": crossing}


def main():
    for path in sys.argv[1:]:
        raw, doc = load(path)
        events = doc["traceEvents"] if isinstance(doc, dict) else doc
        n = len(events)
        print(f"== {path}: {len(raw)} bytes, {n} events, {len(raw) / n:.1f} B/event")
        if isinstance(doc, dict):
            print("   keys:", ", ".join(k for k in doc.keys()))
        cats = collections.Counter((e.get("ph"), e.get("cat")) for e in events)
        for (ph, cat), c in cats.most_common():
            print(f"   {ph} {cat or '-':22s} {c:9d} {100.0 * c / n:6.2f}%")
        for k, v in check(events).items():
            print(f"   {k}: {v}")


if __name__ == "__main__":
    main()

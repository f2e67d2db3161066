#!/usr/bin/env python3
"""Compares the shape of Kineto traces: bytes per event and category proportions, and checks the
generator's invariants (flows pair up, GPU activities find their runtime call, CPU slices nest).

usage: compare_shape.py TRACE [TRACE...]              (.json or .json.gz; python3 stdlib only)
       compare_shape.py --expect REAL GENERATED         checks GENERATED against REAL, exit 1 on a mismatch
Run it on a real trace and a generated one side by side, e.g.
  compare_shape.py tests/data/kineto/param-dlrm-8rank/worker0_*.json /tmp/gen.json

--expect checks: the same top-level keys; bytes per event within 10%; every (ph, cat) that holds at least
0.3% of REAL's events present in GENERATED with a share within 35% of REAL's (relative) or 0.5 points; no
GPU activity without its ac2g flow end, no ac2g start without its GPU activity, no GPU activity starting
before its launch, no crossing CPU slices.
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


def expect(real_path, gen_path):
    real_raw, real = load(real_path)
    gen_raw, gen = load(gen_path)
    failures = []
    if list(real.keys()) != list(gen.keys()):
        failures.append(f"top-level keys differ: {list(real.keys())} vs {list(gen.keys())}")
    rb = len(real_raw) / len(real["traceEvents"])
    gb = len(gen_raw) / len(gen["traceEvents"])
    if abs(gb - rb) > 0.10 * rb:
        failures.append(f"bytes per event {gb:.1f} vs real {rb:.1f} (more than 10% apart)")
    rc = collections.Counter((e.get("ph"), e.get("cat")) for e in real["traceEvents"])
    gc = collections.Counter((e.get("ph"), e.get("cat")) for e in gen["traceEvents"])
    rn, gn = len(real["traceEvents"]), len(gen["traceEvents"])
    for key, c in rc.items():
        rs = 100.0 * c / rn
        if rs < 0.3 or key[1] is None:  # metadata/instants: fixed counts, their share depends on the size
            continue
        gs = 100.0 * gc.get(key, 0) / gn
        if abs(gs - rs) > max(0.35 * rs, 0.5):
            failures.append(f"{key}: {gs:.2f}% of events vs real {rs:.2f}%")
    for k, v in check(gen["traceEvents"]).items():
        if k in ("gpu activities", "without runtime call"):
            continue
        if v:
            failures.append(f"{k}: {v}")
    for f in failures:
        print("MISMATCH", f)
    print(f"{gen_path} vs {real_path}: {'OK' if not failures else 'FAILED'} "
          f"({gb:.1f} vs {rb:.1f} B/event)")
    return 1 if failures else 0


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--expect":
        sys.exit(expect(sys.argv[2], sys.argv[3]))
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

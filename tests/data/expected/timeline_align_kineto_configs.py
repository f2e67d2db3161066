#!/usr/bin/python3
"""Expected step alignment of the GPU timeline over the kineto-configs runs (num_workers 0 and 4).

Reads the two traces with the standard json module only. Times are Kineto microseconds (integers in these files),
written here in nanoseconds (x 1000). Per run:
  steps        start of each CPU-side ProfilerStep#N slice (ph X), by N
  first_gpu    earliest ts of a GPU activity (cat Kernel, Memcpy or Memset)
  natural_origin  what t = 0 is without alignment (align = "first event"): the first event drawn; the test draws
               no CPU lanes and these traces have no GPU annotations, so min(first_gpu, earliest step start)
and the relative times the test checks:
  none:        step 7 start - natural_origin (differs between the runs: their steps 5-7 took different times)
  first_step:  first_gpu - start of the lowest-numbered step
  step7:       every step's start - step 7 start; first_gpu - step 7 start
Run: /usr/bin/python3 timeline_align_kineto_configs.py > timeline_align_kineto_configs.json
"""
import gzip
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
RUNS = {
    "resnet50_num_workers_0": "worker0.1623143089861.pt.trace.json.gz",
    "resnet50_num_workers_4": "worker0.1623212756351.pt.trace.json.gz",
}

out = {}
for run, name in RUNS.items():
    path = os.path.join(HERE, "..", "kineto", "kineto-configs", run, name)
    with gzip.open(path, "rt") as f:
        events = json.load(f)["traceEvents"]
    steps = {}
    first_gpu = None
    for e in events:
        n = e.get("name", "")
        if e.get("ph") == "X" and n.startswith("ProfilerStep#") and n[13:].isdigit() and e.get("cat") in ("Operator", "cpu_op", "user_annotation"):
            steps[int(n[13:])] = min(steps.get(int(n[13:]), e["ts"] * 1000), e["ts"] * 1000)
        if e.get("cat") in ("Kernel", "Memcpy", "Memset") and e.get("ph") == "X":
            t = e["ts"] * 1000
            first_gpu = t if first_gpu is None else min(first_gpu, t)
    natural = min(first_gpu, min(steps.values()))
    first = steps[min(steps)]
    out[run] = {
        "steps": {str(k): steps[k] for k in sorted(steps)},
        "first_gpu": first_gpu,
        "natural_origin": natural,
        "none_step7": steps[7] - natural,
        "first_step_first_gpu": first_gpu - first,
        "step7_steps": {str(k): steps[k] - steps[7] for k in sorted(steps)},
        "step7_first_gpu": first_gpu - steps[7],
    }
print(json.dumps(out, indent=1, sort_keys=True))

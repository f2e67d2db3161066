#!/usr/bin/python3
"""Flat structural diff (issue 22) of the seismic-stencils runs in tests/data/diff/seismic-stencils (rocprof v1
kernel traces: no CPU operators, no ProfilerSteps), with Python's csv module only (no Strobe).

Per run directory: each kernel name's dispatch count and summed DurationNs over results.csv. Per configuration
(the work-group argument in the directory name, 128_64 or 64_64): the runs pooled, divided by their number (a run
counts as one step).

Run: /usr/bin/python3 tests/data/expected/diff/seismic.py > tests/data/expected/diff/seismic.json
"""
import csv
import json
import os
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, '..', '..', 'diff', 'seismic-stencils')

out = {}
for config in ('128_64', '64_64'):
    runs = sorted(d for d in os.listdir(ROOT) if d.endswith('_%s_1' % config))
    ns, count = defaultdict(int), defaultdict(int)
    for d in runs:
        for row in csv.DictReader(open(os.path.join(ROOT, d, 'results.csv'))):
            ns[row['KernelName']] += int(row['DurationNs'])
            count[row['KernelName']] += 1
    out['work_group_' + config] = {
        'runs': runs,
        'kernels': {k: {'count': count[k] / len(runs), 'per_run_ns': ns[k] / len(runs)} for k in sorted(ns)},
    }
print(json.dumps(out, indent=1))

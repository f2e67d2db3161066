#!/usr/bin/python3
"""Which kernel the sweep's parameter (num_workers 0 vs 4) moves most, on the two real ResNet-50 traces of
tests/data/kineto/kineto-configs, with Python's json/gzip only: per kernel name and run, the time of the kernels
launched inside a ProfilerStep (their runtime launch call, matched by correlation, starts inside the step range)
divided by the run's number of steps; then the spread across the two configurations (sample standard deviation
of the two values, |a - b| / sqrt(2)). `strobe-cli sweep compare --rank-by variance --top 1` must list the first.

Run: /usr/bin/python3 tests/data/expected/sweep_rank_kineto_configs.py
"""
import collections
import glob
import gzip
import json
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))
per_step = []
for workers in (0, 4):
    path = glob.glob(os.path.join(HERE, '..', 'kineto', 'kineto-configs', f'resnet50_num_workers_{workers}', '*.json.gz'))[0]
    ev = json.load(gzip.open(path))['traceEvents']
    steps = [(e['ts'], e['ts'] + e['dur']) for e in ev
             if e.get('ph') == 'X' and str(e.get('name', '')).startswith('ProfilerStep#')]
    launch = {e['args']['correlation']: e['ts'] for e in ev
              if e.get('ph') == 'X' and str(e.get('cat', '')).lower() in ('cuda_runtime', 'runtime')
              and 'correlation' in e.get('args', {})}
    total = collections.Counter()
    for k in ev:
        if k.get('ph') == 'X' and str(k.get('cat', '')).lower() == 'kernel':
            t = launch.get(k['args'].get('correlation'), -1)
            if any(a <= t < b for a, b in steps):
                total[k['name']] += round(k['dur'] * 1000)
    per_step.append({n: v / len(steps) for n, v in total.items()})
names = set(per_step[0]) | set(per_step[1])
spread = sorted(((abs(per_step[0].get(n, 0) - per_step[1].get(n, 0)) / math.sqrt(2), n) for n in names), reverse=True)
for s, n in spread[:3]:
    print(f'{s:.1f}', n)

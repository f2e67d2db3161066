#!/usr/bin/python3
"""Expected values for the group-time-dist plot on tests/data/kineto/kineto-configs (num_workers 0 and 4), with
Python's json/gzip only (no Strobe).

The kernel group is one kernel name (group_by=name): cuDNN's wgrad_alg0_engine below. For every ProfilerStep#N
range of a run (the CPU-side 'Operator' slice, [ts, ts + dur)), the group's GPU time in that step is the sum of the
durations (us -> ns, rounded) of its kernels whose launch falls inside the range: the launch is the runtime call
(cat "Runtime" in this 2021 trace) with the kernel's correlation id; a kernel without one counts at its own start.
Printed: each step's sum, and the median of the six steps (linear interpolation, numpy's default: the mean of the
3rd and 4th smallest of six).

Run: /usr/bin/python3 tests/data/expected/group_time_dist_kineto_configs.py
"""
import glob
import gzip
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
GROUP = ('void cudnn::cnn::wgrad_alg0_engine<float, 128, 6, 7, 3, 3, 5, false, 512>(int, int, int, float const*, '
         'int, float*, float const*, kernel_grad_params, unsigned long long, int, float, int, int, int, int)')


def median(values):
    v = sorted(values)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


for workers in (0, 4):
    path = glob.glob(os.path.join(HERE, '..', 'kineto', 'kineto-configs', f'resnet50_num_workers_{workers}',
                                  '*.json.gz'))[0]
    events = json.load(gzip.open(path))['traceEvents']
    steps = sorted((e['ts'], e['ts'] + e['dur'], e['name']) for e in events
                   if e.get('ph') == 'X' and str(e.get('name', '')).startswith('ProfilerStep#'))
    launch = {e['args']['correlation']: e['ts'] for e in events
              if e.get('ph') == 'X' and str(e.get('cat', '')).lower() in ('runtime', 'cuda_runtime')
              and 'correlation' in e.get('args', {})}
    per_step = {name: 0 for _, _, name in steps}
    for e in events:
        if e.get('ph') != 'X' or str(e.get('cat', '')).lower() != 'kernel' or e.get('name') != GROUP:
            continue
        t = launch.get(e.get('args', {}).get('correlation'), e['ts'])
        for start, end, name in steps:
            if start <= t < end:
                per_step[name] += round(e['dur'] * 1000)
                break
    sums = [per_step[name] for _, _, name in steps]
    print(f'num_workers={workers}', 'steps', sums, 'median_ns', median(sums))

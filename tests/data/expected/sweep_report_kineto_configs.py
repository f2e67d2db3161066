#!/usr/bin/python3
"""Facts for the sweep report on the two real ResNet-50 traces of tests/data/kineto/kineto-configs (num_workers 0
and 4), with Python's json/gzip only (no Strobe): per run, the number of ProfilerStep# ranges, and for two kernel
names the count of kernels launched inside a step (their runtime launch call (cat "Runtime" in this 2021 trace), matched by correlation, starts
inside the ProfilerStep range) and their total duration per step (ns), i.e. the report's `count` and
`per_step_ns` columns.

Run: /usr/bin/python3 tests/data/expected/sweep_report_kineto_configs.py
"""
import glob
import gzip
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
NAMES = ('void cudnn::detail::dgrad_engine<float, 512, 6, 5, 3, 3, 3, false>',
         'volta_scudnn_128x128_stridedB_splitK_medium_nn_v1')
for workers in (0, 4):
    path = glob.glob(os.path.join(HERE, '..', 'kineto', 'kineto-configs', f'resnet50_num_workers_{workers}', '*.json.gz'))[0]
    ev = json.load(gzip.open(path))['traceEvents']
    steps = [(e['ts'], e['ts'] + e['dur']) for e in ev
             if e.get('ph') == 'X' and str(e.get('name', '')).startswith('ProfilerStep#')]
    kernels = [e for e in ev if e.get('ph') == 'X' and str(e.get('cat', '')).lower() == 'kernel']
    launch = {e['args']['correlation']: e['ts'] for e in ev
              if e.get('ph') == 'X' and str(e.get('cat', '')).lower() in ('cuda_runtime', 'runtime') and 'correlation' in e.get('args', {})}
    print('run', workers, 'steps', len(steps))
    for prefix in NAMES:
        inside = [k for k in kernels if k['name'].startswith(prefix) and
                  any(a <= launch.get(k['args'].get('correlation'), -1) < b for a, b in steps)]
        total_ns = sum(round(k['dur'] * 1000) for k in inside)
        print(' ', prefix[:40], 'count', len(inside), 'per_step_ns', total_ns / len(steps))

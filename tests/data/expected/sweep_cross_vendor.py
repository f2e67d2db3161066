#!/usr/bin/python3
"""Cross-vendor matching (issue 9) by call site, with Python's json/gzip only (no Strobe): the MI300X ResNet trace
(tests/data/kineto/tracelens) against the V100 ResNet-50 trace (kineto-configs, num_workers 0).

A kernel (cat "kernel"/"Kernel") counts when its launching runtime call (same "correlation") starts inside a
ProfilerStep# range, or, without a call, when the kernel itself starts inside one (as Strobe's merge assigns
steps). Its call site: the outermost cpu_op ("cpu_op"/"Operator", not ProfilerStep#) on the call's
thread that encloses the call, named as Strobe's callSiteName does: "autograd::engine::evaluate_function: " is
dropped; a name with "Backward" and no "::" loses its trailing digits, then one leading Cudnn/Miopen/Native/Mkldnn/
Thnn/Cuda; no call or no operator: "(no operator)". Prints each trace's groups and the match rate: the groups found
in both, and the share of each trace's kernel time they hold.

Run: /usr/bin/python3 tests/data/expected/sweep_cross_vendor.py
"""
import glob
import gzip
import json
import os
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
TRACES = {
    'mi300x': glob.glob(os.path.join(HERE, '..', 'kineto', 'tracelens', '*.json.gz'))[0],
    'v100': glob.glob(os.path.join(HERE, '..', 'kineto', 'kineto-configs', 'resnet50_num_workers_0', '*.json.gz'))[0],
}


def call_site(name):
    prefix = 'autograd::engine::evaluate_function: '
    if name.startswith(prefix):
        name = name[len(prefix):]
    if 'Backward' not in name or '::' in name:
        return name
    name = name.rstrip('0123456789')
    for p in ('Cudnn', 'Miopen', 'Native', 'Mkldnn', 'Thnn', 'Cuda'):
        if name.startswith(p) and len(name) > len(p) + 8:
            return name[len(p):]
    return name


def groups(path):
    ev = json.load(gzip.open(path))['traceEvents']
    x = [e for e in ev if e.get('ph') == 'X']
    steps = [(e['ts'], e['ts'] + e['dur']) for e in x if str(e.get('name', '')).startswith('ProfilerStep#')]
    runtime = {e['args']['correlation']: e for e in x
               if str(e.get('cat', '')).lower() in ('cuda_runtime', 'runtime') and 'correlation' in e.get('args', {})}
    ops = defaultdict(list)
    for e in x:
        if str(e.get('cat', '')).lower() in ('cpu_op', 'operator') and not e['name'].startswith('ProfilerStep#'):
            ops[(e['pid'], e['tid'])].append(e)
    time = defaultdict(float)
    for k in x:
        if str(k.get('cat', '')).lower() != 'kernel':
            continue
        call = runtime.get(k.get('args', {}).get('correlation'))
        if call is None:
            if any(a <= k['ts'] < b for a, b in steps):
                time['(no operator)'] += k['dur']
            continue
        if not any(a <= call['ts'] < b for a, b in steps):
            continue
        around = [o for o in ops[(call['pid'], call['tid'])]
                  if o['ts'] <= call['ts'] and call['ts'] + call['dur'] <= o['ts'] + o['dur']]
        site = call_site(max(around, key=lambda o: (o['dur'], -o['ts']))['name']) if around else '(no operator)'
        time[site] += k['dur']
    return time


g = {name: groups(path) for name, path in TRACES.items()}
common = set(g['mi300x']) & set(g['v100'])
print('groups', len(set(g['mi300x']) | set(g['v100'])), 'common', len(common))
for name, t in g.items():
    print(name, 'groups', len(t), 'matched share %.1f%%' % (100 * sum(v for k, v in t.items() if k in common) / sum(t.values())))
print('common groups:', ' | '.join(sorted(common)))
names = {}
for name, path in TRACES.items():
    names[name] = {e['name'] for e in json.load(gzip.open(path))['traceEvents']
                   if e.get('ph') == 'X' and str(e.get('cat', '')).lower() == 'kernel'}
print('kernel names in both traces:', len(names['mi300x'] & names['v100']))

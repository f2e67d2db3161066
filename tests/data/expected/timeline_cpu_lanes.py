#!/usr/bin/python3
"""Facts for the GPU timeline's CPU lanes and flows (tests/plots/timeline_cpu_lanes_test.cpp), from the trace JSON
with Python's json module only (no Strobe).

Run: /usr/bin/python3 tests/data/expected/timeline_cpu_lanes.py
Prints: the number of CPU threads with slices (cpu_op, user_annotation, python_function, cuda_runtime, cuda_driver
complete events), the slices per thread (pid, tid, count), and for the first kernel (by ts) its correlation, the
name and ts of the cuda_runtime event with that correlation, and the innermost cpu_op enclosing that runtime call
on its thread.
"""
import collections
import gzip
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
TRACE = os.path.join(HERE, '..', 'kineto', 'hta', 'trace_filter', 'sampled_rank-0.json.gz')

CPU = ('cpu_op', 'user_annotation', 'python_function', 'cuda_runtime', 'cuda_driver')

ev = json.load(gzip.open(TRACE))['traceEvents']
cpu = [e for e in ev if e.get('ph') == 'X' and e.get('cat') in CPU]
per = collections.Counter((e['pid'], e['tid']) for e in cpu)
print('threads', len(per))
for k, n in sorted(per.items(), key=lambda kv: str(kv[0])):
    print('thread', k[0], k[1], n)
kernels = sorted((e for e in ev if e.get('ph') == 'X' and e.get('cat') == 'kernel'), key=lambda e: e['ts'])
k = kernels[0]
corr = k['args']['correlation']
rt = [e for e in cpu if e['cat'] == 'cuda_runtime' and e.get('args', {}).get('correlation') == corr][0]
ops = [e for e in cpu if e['cat'] == 'cpu_op' and e['pid'] == rt['pid'] and e['tid'] == rt['tid']
       and e['ts'] <= rt['ts'] and rt['ts'] + rt['dur'] <= e['ts'] + e['dur']]
inner = min(ops, key=lambda e: e['dur'])
print('kernel', k['name'][:60], 'correlation', corr)
print('runtime', rt['name'], rt['ts'])
print('cpu_op', inner['name'], inner['ts'])

# Flows from an operator: the kernels whose launching runtime call (same correlation) lies within the operator on
# its thread (the operator or one nested in it made the call), and those calls; for the innermost and the
# outermost cpu_op enclosing the first kernel's runtime call.
runtime_of = {e['args']['correlation']: e for e in cpu
              if e['cat'] == 'cuda_runtime' and 'correlation' in e.get('args', {})}
gpu = [e for e in ev if e.get('ph') == 'X' and e.get('cat') in ('kernel', 'gpu_memcpy', 'gpu_memset')]
for label, op in (('inner', inner), ('outer', max(ops, key=lambda e: e['dur']))):
    calls = set()
    launched = 0
    for g in gpu:
        call = runtime_of.get(g.get('args', {}).get('correlation'))
        if call and call['pid'] == op['pid'] and call['tid'] == op['tid'] and \
                op['ts'] <= call['ts'] and call['ts'] + call['dur'] <= op['ts'] + op['dur']:
            launched += 1
            calls.add((call['ts'], call['name']))
    print('flows', label, op['name'], op['ts'], 'kernels', launched, 'calls', len(calls))

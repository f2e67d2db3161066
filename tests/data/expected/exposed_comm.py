#!/usr/bin/python3
"""Writes exposed_comm.json: per rank and ProfilerStep of the bundled DLRM sample, the merged communication kernel
time, the merged computation kernel time and the communication time no computation kernel overlaps (ns), computed
with Python's json module (no Strobe) as the query view `exposed_communication` defines them: a kernel counts in the
step its start falls in ([ts, ts + dur) of ProfilerStep#N); communication kernels are the NCCL ones (their names
start with "nccl"); every other `kernel` event is computation; gpu_memcpy/gpu_memset are neither.

Run from tests/data/expected: /usr/bin/python3 exposed_comm.py > exposed_comm.json
"""
import decimal
import glob
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLE = os.path.join(HERE, '..', '..', '..', 'resources', 'sample', 'param-dlrm-8rank')


def ns(us):
    return int((decimal.Decimal(us) * 1000).to_integral_value(decimal.ROUND_HALF_EVEN))


def merge(intervals):
    out = []
    for s, e in sorted(intervals):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def length(merged):
    return sum(e - s for s, e in merged)


def intersection(a, b):
    i = j = total = 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if hi > lo:
            total += hi - lo
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return total


result = {}
for path in sorted(glob.glob(os.path.join(SAMPLE, '*.json'))):
    with open(path) as f:
        doc = json.load(f, parse_float=decimal.Decimal)
    rank = doc['distributedInfo']['rank']
    events = doc['traceEvents']
    steps = [(int(e['name'].split('#')[1]), ns(e['ts']), ns(e['ts']) + ns(e['dur'])) for e in events
             if e.get('name', '').startswith('ProfilerStep#') and e.get('ph') == 'X']
    per = {}
    for e in events:
        if e.get('cat') != 'kernel':
            continue
        s = ns(e['ts'])
        t = s + ns(e['dur'])
        step = next((n for n, a, b in steps if a <= s < b), None)
        comm, comp = per.setdefault(step, ([], []))
        (comm if e['name'].startswith('nccl') else comp).append((s, t))
    for step, (comm, comp) in per.items():
        c, k = merge(comm), merge(comp)
        result[f'{rank}/{step}'] = {'comm_ns': length(c), 'compute_ns': length(k),
                                    'exposed_ns': length(c) - intersection(c, k)}
print(json.dumps(result, indent=1, sort_keys=True))

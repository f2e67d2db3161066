#!/usr/bin/python3
"""Communication overlapping computation kernels (issue 9, core/analysis/kernel_overlap), with Python's json/gzip only
(no Strobe), by brute force over every pair of kernels.

GPU activities: events with cat kernel/Kernel, gpu_memcpy, gpu_memset (the whole trace, no window). Holistic Trace
Analysis' kernel type from the name: COMMUNICATION if it starts with nccl, hip or hccl or contains ncclKernel;
MEMORY if it starts with Memcpy, hipMemcpy, Memset, hipMemset or dma; COMPUTATION unless it starts with nccl, hip,
hccl, runFunction or "Stream Wait Event", starts with "cuda" followed later by LaunchKernel, or contains Memcpy,
Memset, dma or Sync; else OTHER. Times are the trace's microseconds x 1000 (ns).

For a named computation kernel: its instances in start order, and for each the communication kernels of the same
device that intersect it (ns of each intersection) and its overlapped ns (the union of those intersections).
Per rank: HTA's overlap % = 100 x |merged COMM ∩ merged COMP| / |merged COMM|.

Run: /usr/bin/python3 tests/data/expected/kernel_overlap.py > tests/data/expected/kernel_overlap.json
"""
import glob
import gzip
import json
import os
import re
from decimal import Decimal

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, '..', '..', '..')


def hta_type(name):
    if re.match(r'(nccl|hip|hccl)', name) or 'ncclKernel' in name:
        return 'COMM'
    if re.match(r'(Memcpy|hipMemcpy|Memset|hipMemset|dma)', name):
        return 'MEMORY'
    if (re.match(r'(nccl|hip|hccl|runFunction|Stream Wait Event)', name) or re.match(r'cuda.*LaunchKernel', name)
            or any(s in name for s in ('Memcpy', 'Memset', 'dma', 'Sync'))):
        return 'OTHER'
    return 'COMP'


def load(path):
    opener = gzip.open if path.endswith('.gz') else open
    with opener(path, 'rt') as f:
        ev = json.load(f, parse_float=Decimal)['traceEvents']  # exact: µs since 1970 have more digits than a double
    out = []
    for e in ev:
        if e.get('ph') != 'X' or str(e.get('cat', '')).lower() not in ('kernel', 'gpu_memcpy', 'gpu_memset'):
            continue
        s = int((Decimal(e['ts']) * 1000).to_integral_value())
        out.append({'name': e['name'], 's': s, 'e': s + int((Decimal(e.get('dur', 0)) * 1000).to_integral_value()),
                    'dev': e.get('args', {}).get('device', 0), 'type': hta_type(e['name'])})
    out.sort(key=lambda a: (a['s'], a['e']))
    return out


def merge(iv):
    out = []
    for s, e in sorted(iv):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def length(iv):
    return sum(e - s for s, e in iv)


def intersect(a, b):
    total, j = 0, 0
    for s1, e1 in a:  # both merged: sorted and disjoint
        while j < len(b) and b[j][1] <= s1:
            j += 1
        k = j
        while k < len(b) and b[k][0] < e1:
            total += max(0, min(e1, b[k][1]) - max(s1, b[k][0]))
            k += 1
    return total


def kernel(acts, name):
    comm = [a for a in acts if a['type'] == 'COMM']
    rows = []
    for k in acts:
        if k['name'] != name or k['type'] != 'COMP':
            continue
        hits = [c for c in comm if c['dev'] == k['dev'] and c['s'] < k['e'] and c['e'] > k['s']]
        clipped = [(max(k['s'], c['s']), min(k['e'], c['e'])) for c in hits]
        rows.append({'start_ns': k['s'], 'dur_ns': k['e'] - k['s'], 'overlapped_ns': length(merge(clipped)),
                     'collectives': [[c['name'], min(k['e'], c['e']) - max(k['s'], c['s'])] for c in hits]})
    return {'name': name, 'instances': len(rows),
            'overlapped_instances': sum(1 for r in rows if r['overlapped_ns'] > 0),
            'overlapped_ns_total': sum(r['overlapped_ns'] for r in rows),
            'dur_ns_total': sum(r['dur_ns'] for r in rows), 'rows': rows[:8]}


def rank_overlap(acts):
    comm = merge([(a['s'], a['e']) for a in acts if a['type'] == 'COMM'])
    comp = merge([(a['s'], a['e']) for a in acts if a['type'] == 'COMP'])
    both = intersect(comm, comp)
    return {'comm_ns': length(comm), 'comp_ns': length(comp), 'overlap_ns': both,
            'overlap_pct': 100.0 * both / length(comm) if comm else None}


def main():
    dlrm = sorted(glob.glob(os.path.join(ROOT, 'resources', 'sample', 'param-dlrm-8rank', 'worker*.json')),
                  key=lambda p: int(re.search(r'worker(\d+)', p).group(1)))
    out = {'param-dlrm-8rank': {'ranks': [], 'kernels': {}, 'all_ranks': {}}}
    pooled = out['param-dlrm-8rank']['all_ranks']
    for i, path in enumerate(dlrm):
        acts = load(path)
        out['param-dlrm-8rank']['ranks'].append(dict(rank=i, **rank_overlap(acts)))
        # One kernel name over all 8 ranks: what a sweep pools for the group.
        k = kernel(acts, 'volta_sgemm_128x32_nt')
        for key in ('instances', 'overlapped_instances', 'overlapped_ns_total', 'dur_ns_total'):
            pooled[key] = pooled.get(key, 0) + k[key]
        if i == 0:
            for name in ('volta_sgemm_128x32_nt', 'volta_sgemm_64x32_sliced1x4_nn'):
                out['param-dlrm-8rank']['kernels'][name] = kernel(acts, name)
    df = load(os.path.join(ROOT, 'tests', 'data', 'kineto', 'hta', 'df_index_resolver', 'df_index_resolver.json.gz'))
    out['df_index_resolver'] = {'rank': rank_overlap(df), 'kernels': {'volta_sgemm_128x32_nt': kernel(df, 'volta_sgemm_128x32_nt')}}
    json.dump(out, os.sys.stdout, indent=1)
    os.sys.stdout.write('\n')


if __name__ == '__main__':
    main()

#!/usr/bin/python3
"""Collectives of the bundled 8-rank DLRM sample (resources/sample/param-dlrm-8rank), with Python's json only (no
Strobe), for tests/core/collectives_test.cpp (issue 9, `sweep collectives`).

Communication kernels: cat "kernel" whose name starts with "nccl" (HTA's rule). The trace has no process group
or sequence args, so a collective is (kernel name, occurrence of that name on the rank in (start, end) order),
matched across the 8 ranks. Its latency: the shortest of its kernels (the rank that arrived last; the first such
rank in rank order is the straggler). Its type: AllReduce kernels are all_reduce; SendRecv kernels take the
collective of the "nccl:<collective>" user annotation that encloses their launching cudaLaunchKernel (same
correlation, same pid/tid). Its size: that annotation's first "Input Dims" tensor (element product) x the byte size
of its first "Input type" (float 4, int 4, long int 8), on the straggler rank. n = world_size = 8; busbw factors
all_reduce 2(n-1)/n, all_to_all (n-1)/n; busbw = sum(bytes x factor) / sum(latency) in bytes per ns (GB/s).
Skew: start spread = latest - earliest kernel start of a collective; wait = kernel duration - the shortest.
Quantiles: numpy's default (linear between closest ranks). Times in ns (the trace's us x 1000).

Writes collectives_dlrm.json beside this script: per type count, mean bytes, latency mean/p50/p99, algbw, busbw,
start skew p50/max, mean wait, and the straggler's rank number per collective.
Run: /usr/bin/python3 tests/data/expected/collectives_dlrm.py
"""
import glob
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLE = os.path.join(HERE, '..', '..', '..', 'resources', 'sample', 'param-dlrm-8rank')
TYPE_BYTES = {'float': 4, 'int': 4, 'long int': 8}
N = 8


def quantile(sorted_values, q):
    pos = q * (len(sorted_values) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def rank_collectives(path):
    trace = json.load(open(path))
    rank = trace['distributedInfo']['rank']
    ev = [e for e in trace['traceEvents'] if e.get('ph') == 'X']
    runtime = {e['args']['correlation']: e for e in ev
               if e.get('cat') == 'cuda_runtime' and 'correlation' in e.get('args', {})}
    annotations = [e for e in ev if e.get('cat') == 'user_annotation' and e['name'].startswith('nccl:')]
    kernels = sorted((e for e in ev if e.get('cat') == 'kernel' and e['name'].startswith('nccl')),
                     key=lambda e: (e['ts'], e['ts'] + e['dur']))
    seen = {}
    out = {}
    for k in kernels:
        occ = seen.get(k['name'], 0)
        seen[k['name']] = occ + 1
        call = runtime[k['args']['correlation']]
        enclosing = [a for a in annotations if a['pid'] == call['pid'] and a['tid'] == call['tid']
                     and a['ts'] <= call['ts'] and call['ts'] + call['dur'] <= a['ts'] + a['dur']]
        ann = max(enclosing, key=lambda a: a['ts'])  # innermost
        ctype = 'all_reduce' if 'AllReduce' in k['name'] else ann['name'][len('nccl:'):]
        elems = 1
        for d in ann['args']['Input Dims'][0]:
            elems *= d
        size = elems * TYPE_BYTES[ann['args']['Input type'][0]]
        out[(k['name'], occ)] = {'rank': rank, 'start': k['ts'] * 1000, 'dur': k['dur'] * 1000, 'type': ctype,
                                 'bytes': size}
    return rank, out


def main():
    per_rank = dict(rank_collectives(p) for p in glob.glob(os.path.join(SAMPLE, '*.json')))
    keys = sorted(per_rank[0])
    by_type = {}
    stragglers = {}
    for key in keys:
        hits = [per_rank[r][key] for r in sorted(per_rank)]
        latency = min(h['dur'] for h in hits)
        straggler = next(h for h in hits if h['dur'] == latency)
        t = by_type.setdefault(straggler['type'], {'lat': [], 'spread': [], 'wait': [], 'bytes': [], 'bus': 0.0})
        t['lat'].append(latency)
        t['spread'].append(max(h['start'] for h in hits) - min(h['start'] for h in hits))
        t['wait'] += [h['dur'] - latency for h in hits]
        t['bytes'].append(straggler['bytes'])
        factor = 2 * (N - 1) / N if straggler['type'] == 'all_reduce' else (N - 1) / N
        t['bus'] += straggler['bytes'] * factor
        stragglers['%s#%d' % key] = straggler['rank']
    out = {'types': {}, 'stragglers': stragglers}
    for name, t in sorted(by_type.items()):
        lat = sorted(t['lat'])
        spread = sorted(t['spread'])
        out['types'][name] = {
            'count': len(lat),
            'bytes_mean': sum(t['bytes']) / len(t['bytes']),
            'latency_mean_ns': sum(lat) / len(lat),
            'latency_p50_ns': quantile(lat, 0.5),
            'latency_p99_ns': quantile(lat, 0.99),
            'algbw_gbps': sum(t['bytes']) / sum(lat),
            'busbw_gbps': t['bus'] / sum(lat),
            'start_skew_p50_ns': quantile(spread, 0.5),
            'start_skew_max_ns': spread[-1],
            'wait_mean_ns': sum(t['wait']) / len(t['wait']),
        }
    with open(os.path.join(HERE, 'collectives_dlrm.json'), 'w') as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write('\n')


if __name__ == '__main__':
    main()

#!/usr/bin/python3
"""Writes timeline_nav.json: what the GPU timeline's search, measure and name statistics must find on the real
ResNet-50 trace, computed with Python's json/gzip/re only (no Strobe).

Run from tests/data/expected: /usr/bin/python3 timeline_nav.py > timeline_nav.json

- search: GPU kernels (cat "Kernel") whose name matches the regular expression case-insensitively (re.I, like the
  timeline's search), counted, and the start times (absolute ns) of the first three, in time order.
- measure: a range [start, end) in absolute ns (5 ms from 1.234567 ms before the median kernel start): every GPU activity
  (Kernel, Memcpy, Memset) clipped to the range; the busy total, the Memcpy and Memset totals, and the ten names
  with the most clipped time (ties by name), with their clipped time and how many intersect the range.
- statistics: of the most frequent kernel name: count, total, mean, min, max, and the median and p95 by linear
  interpolation between closest ranks (numpy's default).
- filter: how many kernels are named filter_name (what "filter the plot to it" must leave).
Trace times are whole microseconds; ns = µs × 1000.
"""
import collections
import gzip
import json
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
TRACE = 'kineto/kineto-configs/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz'
REGEX = 'sgemm|winograd'


def quantile(sorted_values, q):
    pos = (len(sorted_values) - 1) * q
    lo = int(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def main():
    with gzip.open(os.path.join(HERE, '..', TRACE), 'rt') as f:
        events = json.load(f)['traceEvents']
    gpu = [e for e in events if e.get('ph') == 'X' and e.get('cat') in ('Kernel', 'Memcpy', 'Memset')]
    kernels = [e for e in gpu if e['cat'] == 'Kernel']
    pattern = re.compile(REGEX, re.I)
    hits = sorted(e['ts'] * 1000 for e in kernels if pattern.search(e['name']))

    starts = sorted(e['ts'] for e in kernels)
    start = starts[len(starts) // 2] * 1000 - 1_234_567  # inside a busy stretch, cutting kernels at both ends
    end = start + 5_000_000
    busy = 0
    per_cat = collections.Counter()
    clipped = collections.Counter()
    counts = collections.Counter()
    for e in gpu:
        s, t = e['ts'] * 1000, (e['ts'] + max(0, e['dur'])) * 1000
        c = min(t, end) - max(s, start)
        if c > 0:
            busy += c
            per_cat[e['cat']] += c
            clipped[e['name']] += c
            counts[e['name']] += 1
    top = sorted(clipped, key=lambda n: (-clipped[n], n))[:10]

    names = collections.Counter(e['name'] for e in kernels)
    name = sorted(names, key=lambda n: (-names[n], n))[0]
    durs = sorted(e['dur'] * 1000 for e in kernels if e['name'] == name)
    filter_name = 'volta_scudnn_128x64_relu_interior_nn_v1'
    print(json.dumps({
        'filter_name': filter_name,
        'filter_count': names[filter_name],
        'trace': TRACE,
        'regex': REGEX,
        'search_count': len(hits),
        'search_first_starts_ns': hits[:3],
        'range_ns': [start, end],
        'busy_ns': busy,
        'memcpy_ns': per_cat['Memcpy'],
        'memset_ns': per_cat['Memset'],
        'top': [[n, clipped[n], counts[n]] for n in top],
        'stats': {'name': name, 'count': len(durs), 'total': sum(durs), 'min': durs[0], 'max': durs[-1],
                  'mean': sum(durs) / len(durs), 'median': quantile(durs, 0.5), 'p95': quantile(durs, 0.95)},
    }, indent=1))


if __name__ == '__main__':
    main()

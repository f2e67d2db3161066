#!/usr/bin/python3
"""What the events list must show on the real ResNet-50 trace (tests/data/expected/timeline_nav.py's trace), computed
with Python's json/gzip/re only (no Strobe). Run from the repository root:

    /usr/bin/python3 tests/data/expected/events_list/events_list.py > tests/data/expected/events_list/expected.json

- instances: every kernel (cat "Kernel") named NAME: how many, the three longest durations (ns, longest first) and
  the absolute start (ns) of the longest (the first row once sorted by duration); the shortest duration (the first row
  sorted ascending); its grid and block of the longest ("grid x×y×z block x×y×z", from args "grid"/"block").
- search: kernels matching REGEX case-insensitively (the timeline's search), and how many of them contain FILTER
  (case-insensitive: the list's text filter over any column; only the name can hold it here).
Trace times are whole microseconds; ns = µs × 1000.
"""
import gzip
import json
import re

TRACE = 'tests/data/kineto/kineto-configs/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz'
NAME = 'volta_scudnn_128x64_relu_interior_nn_v1'
REGEX = 'sgemm|winograd'
FILTER = 'winograd'

with gzip.open(TRACE, 'rt') as f:
    events = json.load(f)['traceEvents']
kernels = [e for e in events if e.get('ph') == 'X' and e.get('cat') == 'Kernel']
named = sorted((e for e in kernels if e['name'] == NAME), key=lambda e: (-e['dur'], e['ts']))
longest = named[0]
grid, block = longest['args'].get('grid', [0, 0, 0]), longest['args'].get('block', [0, 0, 0])
matches = [e for e in kernels if re.search(REGEX, e['name'], re.I)]
print(json.dumps({
    'trace': TRACE[len('tests/data/'):],
    'name': NAME,
    'count': len(named),
    'longest_ns': [e['dur'] * 1000 for e in named[:3]],
    'longest_start_ns': longest['ts'] * 1000,
    'shortest_ns': min(e['dur'] for e in named) * 1000,
    'longest_grid': 'grid {}×{}×{} block {}×{}×{}'.format(*grid, *block),
    'regex': REGEX,
    'search_count': len(matches),
    'filter': FILTER,
    'filter_count': sum(1 for e in matches if FILTER in e['name'].lower()),
}, indent=1, ensure_ascii=False))

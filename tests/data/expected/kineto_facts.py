#!/usr/bin/python3
"""Writes kineto_facts.json: facts of every real Kineto trace, computed with Python's json module (no Strobe).

Run from tests/data/expected: /usr/bin/python3 kineto_facts.py > kineto_facts.json
"""
import collections
import decimal
import glob
import gzip
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.dirname(HERE)
SAMPLE = os.path.join(DATA, '..', '..', 'resources', 'sample')

NVIDIA_WORDS = ('NVIDIA', 'Tesla', 'Quadro', 'GeForce', 'TITAN')
AMD_WORDS = ('AMD', 'Radeon', 'Instinct')


def platform(top, events):
    """AMD/NVIDIA from evidence only, first match wins; "unknown" without any (README: platform)."""
    if 'roctracer_version' in top or 'rocprofiler-sdk_version' in top:
        return 'AMD'
    if 'cupti_version' in top:
        return 'NVIDIA'
    devices = top.get('deviceProperties', [])
    for d in devices:
        name = d.get('name', '')
        if any(w in name for w in AMD_WORDS):
            return 'AMD'
        if any(w in name for w in NVIDIA_WORDS):
            return 'NVIDIA'
    if any(d.get('warpSize') == 64 for d in devices):
        return 'AMD'
    if any(d.get('warpSize') == 32 for d in devices):
        return 'NVIDIA'
    cuda = hip = 0
    for e in events:
        if e.get('cat') in ('cuda_runtime', 'Runtime', 'cuda_driver') and e.get('ph') == 'X':
            name = e.get('name', '')
            cuda += name.startswith('cu')
            hip += name.startswith('hip')
    if hip > cuda:
        return 'AMD'
    return 'NVIDIA' if cuda > 0 else 'unknown'


def facts(path):
    opener = gzip.open if path.endswith('.gz') else open
    with opener(path, 'rt', encoding='utf-8') as f:
        top = json.load(f, parse_float=decimal.Decimal)
    events = top['traceEvents']
    kernels = [e for e in events if e.get('cat') in ('kernel', 'Kernel')]
    dist = top.get('distributedInfo', {})
    steps = sorted({e['name'] for e in events
                    if e.get('ph') == 'X' and str(e.get('name', '')).startswith('ProfilerStep#')
                    and e.get('cat') != 'gpu_user_annotation'})
    return {
        'backend': dist.get('backend'),
        'events': len(events),
        'events_by_cat': dict(sorted(collections.Counter(e.get('cat', '') for e in events).items())),
        'gpus': [d.get('name') for d in top.get('deviceProperties', [])],
        'kernel_dur_us_sum': str(sum((decimal.Decimal(e['dur']) for e in kernels), decimal.Decimal(0))),
        'kernels': len(kernels),
        'platform': platform(top, events),
        'profiler_steps_cpu': steps,
        'rank': dist.get('rank'),
        'world_size': dist.get('world_size'),
    }


def main():
    out = {}
    for p in sorted(glob.glob(os.path.join(DATA, 'kineto', '**', '*.json*'), recursive=True)):
        out[os.path.relpath(p, os.path.join(DATA, 'kineto'))] = facts(p)
    for p in sorted(glob.glob(os.path.join(SAMPLE, 'param-dlrm-8rank', '*.json'))):
        out[os.path.relpath(p, SAMPLE)] = facts(p)
    print(json.dumps(out, indent=1, sort_keys=True))


if __name__ == '__main__':
    main()

#!/usr/bin/python3
"""GPU extents of the backward and optimizer phases of the two ResNet-50 traces (kineto/kineto-configs), with
Python's json module alone: for each step, the first start and last end of the GPU activities (cat Kernel, Memcpy,
Memset) whose launching runtime call (cat Runtime, same args.correlation) starts inside the phase's CPU interval
(printed by resnet_phases.py); an activity without a runtime call counts by its own start. Also: how many
cudnn::bn_bw kernels of the step's backward end after the backward's CPU end (they ran while the CPU was in the
optimizer, so a band in CPU time would put them under "optimizer").

Run: /usr/bin/python3 tests/data/expected/resnet_phase_gpu.py   (times in ns)
"""
import gzip
import json
import os
import subprocess
import re

HERE = os.path.dirname(os.path.abspath(__file__))
TRACES = ['kineto-configs/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz',
          'kineto-configs/resnet50_num_workers_4/worker0.1623212756351.pt.trace.json.gz']


def phases():
    """(trace, step) -> {phase: (start, end)} from resnet_phases.py's output."""
    out = subprocess.run(['/usr/bin/python3', os.path.join(HERE, 'resnet_phases.py')], capture_output=True,
                         text=True, check=True).stdout
    result, trace = {}, None
    for line in out.splitlines():
        if not line.startswith(' '):
            trace = line.split()[0]
            continue
        m = re.match(r'\s+step (\d+): .* backward \[(\d+), (\d+)\) count \d+ optimizer \[(\d+), (\d+)\)', line)
        result[(trace, int(m[1]))] = {'backward': (int(m[2]), int(m[3])), 'optimizer': (int(m[4]), int(m[5]))}
    return result


def main():
    ph = phases()
    for rel in TRACES:
        with gzip.open(os.path.join(HERE, '..', 'kineto', rel), 'rt') as f:
            events = json.load(f)['traceEvents']
        launch = {e['args']['correlation']: e['ts'] * 1000 for e in events
                  if e.get('ph') == 'X' and e.get('cat') == 'Runtime' and 'correlation' in e.get('args', {})}
        gpu = [e for e in events if e.get('ph') == 'X' and e.get('cat') in ('Kernel', 'Memcpy', 'Memset')]
        acts = [(launch.get(e.get('args', {}).get('correlation'), e['ts'] * 1000), e['ts'] * 1000,
                 (e['ts'] + e['dur']) * 1000, e['name']) for e in gpu]
        print(rel)
        for (trace, step), p in sorted(ph.items()):
            if trace != rel:
                continue
            line = f'  step {step}:'
            for name in ('backward', 'optimizer'):
                s, e = p[name]
                inside = [a for a in acts if s <= a[0] < e]
                line += f' {name} gpu [{min(a[1] for a in inside)}, {max(a[2] for a in inside)}]'
                if name == 'backward':
                    late = [a for a in inside if 'bn_bw' in a[3] and a[2] > e]
                    line += f' bn_bw ending after the CPU backward {len(late)}'
            print(line)


if __name__ == '__main__':
    main()

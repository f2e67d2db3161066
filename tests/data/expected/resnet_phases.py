#!/usr/bin/python3
"""Expected steps and forward/backward/optimizer phases of the two ResNet-50 traces (kineto/kineto-configs), worked
out with Python's json module alone, by the rules README.md ("Phases") and core/analysis/phases.h state:

- a step is a CPU-side X event (cat user_annotation, cpu_op or Operator) named ProfilerStep#N;
- backward work: CPU ops whose name is an autograd operator (ends in "Backward" or "Backward<digits>", contains
  "_backward", or is "torch::autograd::AccumulateGrad"), backward annotations, the op at the end of an fwdbwd flow,
  and every CPU op of a thread that holds such an op and no ProfilerStep (the autograd thread);
- per step: backward = first start to last end of the backward slices starting in the step; optimizer = the
  Optimizer.step#/Optimizer.zero_grad# slices starting in the step at or after the backward start; forward = step
  start (no forward marker in these traces) to the backward start.

Run from tests/data/expected: /usr/bin/python3 resnet_phases.py  (prints one line per step; times in ns)
"""
import gzip
import json
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
TRACES = ['kineto-configs/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz',
          'kineto-configs/resnet50_num_workers_4/worker0.1623212756351.pt.trace.json.gz']
CPU = ('user_annotation', 'cpu_op', 'Operator')


def autograd_op(name):
    return (name == 'torch::autograd::AccumulateGrad' or '_backward' in name
            or re.search(r'Backward[0-9]*$', name) is not None)


def backward_annotation(name):
    return (name.startswith('autograd::engine::evaluate_function:') or name.startswith('FSDP::pre_backward')
            or name.startswith('FSDP::post_backward') or name.startswith('## backward')
            or name in ('FullyShardedDataParallel._pre_backward_hook', 'FullyShardedDataParallel._post_backward_hook'))


def main():
    for rel in TRACES:
        with gzip.open(os.path.join(HERE, '..', 'kineto', rel), 'rt') as f:
            events = json.load(f)['traceEvents']
        xs = [e for e in events if e.get('ph') == 'X' and e.get('cat') in CPU]
        key = lambda e: (str(e['pid']), str(e['tid']))
        steps = sorted((int(e['ts']) * 1000, (int(e['ts']) + int(e['dur'])) * 1000, int(e['name'][13:]))
                       for e in xs if re.fullmatch(r'ProfilerStep#[0-9]+', e['name']))
        step_threads = {key(e) for e in xs if re.fullmatch(r'ProfilerStep#[0-9]+', e['name'])}
        flow_ends = {(str(e['pid']), str(e['tid']), e['ts']) for e in events
                     if e.get('ph') == 'f' and e.get('cat') == 'fwdbwd'}
        ops = [e for e in xs if (e['cat'] != 'user_annotation' and autograd_op(e['name']))
               or (key(e) + (e['ts'],)) in flow_ends]
        autograd_threads = {key(e) for e in ops} - step_threads
        backward = [e for e in xs if backward_annotation(e['name']) or e in ops
                    or (e['cat'] != 'user_annotation' and key(e) in autograd_threads)]
        optim = [e for e in xs if e['name'].startswith('Optimizer.step#') or e['name'].startswith('Optimizer.zero_grad#')]
        print(rel, 'autograd threads', sorted(autograd_threads))
        for s0, s1, n in steps:
            b = [e for e in backward if s0 <= e['ts'] * 1000 < s1]
            b0 = min(e['ts'] for e in b) * 1000
            b1 = max(e['ts'] + e['dur'] for e in b) * 1000
            o = [e for e in optim if s0 <= e['ts'] * 1000 < s1 and e['ts'] * 1000 >= b0]
            o0 = min(e['ts'] for e in o) * 1000
            o1 = max(e['ts'] + e['dur'] for e in o) * 1000
            print(f'  step {n}: [{s0}, {s1}) forward [{s0}, {b0}) backward [{b0}, {b1}) count {len(b)} '
                  f'optimizer [{o0}, {o1}) count {len(o)}')


if __name__ == '__main__':
    main()

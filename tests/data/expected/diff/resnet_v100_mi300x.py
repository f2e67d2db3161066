#!/usr/bin/python3
"""Structural diff (issue 22) of the V100 ResNet-50 (tests/data/kineto/kineto-configs/resnet50_num_workers_0) and
the MI300X ResNet (tests/data/kineto/tracelens), computed with Python's json/gzip only (no Strobe).

Per trace: a GPU activity (cat kernel/Kernel, gpu_memcpy/Memcpy, gpu_memset/Memset) counts when its launching
runtime call (same "correlation", cat cuda_runtime/Runtime) starts inside a ProfilerStep# range (any thread), or,
without a call, when it starts inside one itself. Its call-site path: the CPU operators (cat cpu_op/Operator, not
ProfilerStep#) on the call's pid/tid that enclose the call, outermost first (by start, then longest), each name
normalised: "autograd::engine::evaluate_function: " dropped; a namespaced name whose last component starts with
cudnn_, miopen_ or native_ loses that prefix; else a name with "Backward" loses its trailing digits, then one leading
Cudnn/Miopen/Native/Mkldnn/Thnn/Cuda (when more than 8 characters remain). No call or no operator: the path is
["(no operator)"]. A name equal to the one just above it in a path is one call site with it (newer PyTorch's
"autograd::engine::evaluate_function: X0" around "X0"): consecutive equal names are one. The GPU activity's duration (us x 1000 = ns) is added to every prefix of its path.
An operator instance counts for its own path (its enclosing operators on its pid/tid) when it starts in a step,
unless its name is the one of the operator just above it (then it is that instance). Per step: divided by the
number of ProfilerStep# CPU spans (not the gpu_user_annotation copies).

Prints, per trace, the step count, the total GPU time per step, and count and GPU ns per step of every node of the
subtrees rooted at aten::conv2d, aten::batch_norm, ConvolutionBackward and BatchNormBackward (path joined by " > "),
nodes with GPU time only.

Run: /usr/bin/python3 tests/data/expected/diff/resnet_v100_mi300x.py > tests/data/expected/diff/resnet_v100_mi300x.json
"""
import glob
import gzip
import json
import os
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, '..', '..')
TRACES = {
    'v100': glob.glob(os.path.join(DATA, 'kineto', 'kineto-configs', 'resnet50_num_workers_0', '*.json.gz'))[0],
    'mi300x': glob.glob(os.path.join(DATA, 'kineto', 'tracelens', '*.json.gz'))[0],
}
ROOTS = ('aten::conv2d', 'aten::batch_norm', 'ConvolutionBackward', 'BatchNormBackward')
GPU_CATS = ('kernel', 'gpu_memcpy', 'memcpy', 'gpu_memset', 'memset')


def normalise(name):
    prefix = 'autograd::engine::evaluate_function: '
    if name.startswith(prefix):
        name = name[len(prefix):]
    if '::' in name:
        head, _, last = name.rpartition('::')
        for p in ('cudnn_', 'miopen_', 'native_'):
            if last.startswith(p) and len(last) > len(p):
                return head + '::' + last[len(p):]
        return name
    if 'Backward' not in name:
        return name
    name = name.rstrip('0123456789')
    for p in ('Cudnn', 'Miopen', 'Native', 'Mkldnn', 'Thnn', 'Cuda'):
        if name.startswith(p) and len(name) > len(p) + 8:
            return name[len(p):]
    return name


def ns_of(us):
    return int(round(us * 1000))


def paths_of(ops, calls):
    """Per thread: the collapsed call-site path of every operator and runtime call (an operator or call is enclosed
    by the operators of its thread that start no later and end no earlier), and whether each operator is its own
    call site (its name differs from the one just above it)."""
    items = [(ns_of(o['ts']), -ns_of(o['dur']), 0, i) for i, o in enumerate(ops)]
    items += [(ns_of(c['ts']), -ns_of(c['dur']), 1, i) for i, c in enumerate(calls)]
    items.sort()
    stack = []  # (end, path)
    op_path, own, call_path = {}, {}, {}
    for ts, neg, is_call, i in items:
        end = ts - neg
        while stack and stack[-1][0] < end:
            stack.pop()
        above = stack[-1][1] if stack else ()
        if is_call:
            call_path[i] = above
            continue
        n = normalise(ops[i]['name'])
        path = above if above and above[-1] == n else above + (n,)
        op_path[i], own[i] = path, path != above
        stack.append((end, path))
    return op_path, own, call_path


def tree(path):
    ev = json.load(gzip.open(path))['traceEvents']
    x = [e for e in ev if e.get('ph') == 'X']
    steps = [(ns_of(e['ts']), ns_of(e['ts']) + ns_of(e['dur'])) for e in x
             if str(e.get('name', '')).startswith('ProfilerStep#') and str(e.get('cat', '')).lower() != 'gpu_user_annotation']
    in_step = lambda t: any(a <= t < b for a, b in steps)
    calls = [e for e in x if str(e.get('cat', '')).lower() in ('cuda_runtime', 'runtime') and 'correlation' in e.get('args', {})]
    ops = defaultdict(list)
    for e in x:
        if str(e.get('cat', '')).lower() in ('cpu_op', 'operator') and not e['name'].startswith('ProfilerStep#'):
            ops[(e['pid'], e['tid'])].append(e)
    by_thread = defaultdict(list)
    for c in calls:
        by_thread[(c['pid'], c['tid'])].append(c)
    site_of_call = {}
    ns = defaultdict(float)
    count = defaultdict(int)
    for key in set(ops) | set(by_thread):
        op_path, own, call_path = paths_of(ops[key], by_thread[key])
        for i, c in enumerate(by_thread[key]):
            site_of_call[c['args']['correlation']] = (c, call_path[i])
        for i, o in enumerate(ops[key]):
            if own[i] and in_step(ns_of(o['ts'])):
                count[op_path[i]] += 1
    total = 0
    for k in x:
        if str(k.get('cat', '')).lower() not in GPU_CATS:
            continue
        hit = site_of_call.get(k.get('args', {}).get('correlation'))
        if hit is None:
            if not in_step(ns_of(k['ts'])):
                continue
            site = ('(no operator)',)
        else:
            if not in_step(ns_of(hit[0]['ts'])):
                continue
            site = hit[1] or ('(no operator)',)
        total += ns_of(k['dur'])
        for i in range(1, len(site) + 1):
            ns[site[:i]] += ns_of(k['dur'])
    n = len(steps)
    nodes = {' > '.join(p): {'count': count[p] / n, 'per_step_ns': ns[p] / n}
             for p in ns if p[0] in ROOTS and ns[p] > 0}
    return {'steps': n, 'gpu_ns_per_step': total / n, 'nodes': dict(sorted(nodes.items()))}


print(json.dumps({name: tree(path) for name, path in TRACES.items()}, indent=1))

#!/usr/bin/python3
"""Expected findings (core/analysis/findings.h, strobe-cli advise) computed from the raw Kineto JSON with Python's json
module (plus yaml for resources/arch_constants.yaml and re for resources/classification.yaml), without Strobe.

Per rank: steps = ProfilerStep#N slices (cat user_annotation / cpu_op / Operator); the window keeps GPU activities
(kernel, gpu_memcpy, gpu_memset; 2021 names Kernel, Memcpy, Memset) whose launching runtime call (same correlation;
cat cuda_runtime / cuda_driver / Runtime) starts in [first step start, last step end) (an activity without one: its
own start); without steps, everything. S = number of steps (1 without), step time = mean step duration (without
steps: last GPU end - first GPU start). Run step time = mean over ranks. A rule's ms_per_step = mean over ranks of
(rank's window total / S); share = min(1, ms_per_step / run step time); reported when share >= 0.01 and the rule's
condition holds. HTA kernel types: COMMUNICATION when the name starts with nccl/hip/hccl or contains ncclKernel; MEMORY when
it starts with Memcpy/hipMemcpy/Memset/hipMemset/dma; COMPUTATION unless it starts with nccl, hip, hccl, runFunction,
"Stream Wait Event", or matches cuda...LaunchKernel, or contains Memcpy/Memset/dma/Sync; else OTHER.

Rules (the same definitions as the C++ header):
  exposed_comm: merged comm - |merged comm ∩ merged compute|.
  launch_bound: per stream, activities in (start, end) order; gap before each (but the first) = start - previous
    end; host_wait when the launching call started after the previous end; the rank's figure is the largest stream
    total; fires only when >= 50 % of window kernels are shorter than the rank's median launch delay (activity start
    - launching call start, numpy linear quantile over activities with a launching call).
  dataloader_stall: merged CPU slices (not runtime) whose name contains "DataLoader" starting in the window, minus
    their intersection with the merged GPU activities.
  host_sync: runtime/driver calls cuda|hip Device/Stream/EventSynchronize, cudaMemcpy, hipMemcpy starting in window.
  pageable_h2d: GPU memcpys named "Memcpy HtoD (Pageable -> Device)" in the window.
  straggler: communication kernels in the window keyed (name, occurrence on the rank) (no pg/seq args in these
    traces); per collective seen on >= 2 ranks, the shortest kernel's rank (first in rank order) caused
    sum(dur - shortest) over the others; the rank with the largest total; stake = that / (ranks - 1) on every rank.
  gemm_below_peak: outermost aten::mm/addmm/bmm/baddbmm/linear/matmul ops with Input Dims inside a step: FLOPs
    2MNK (batch); GEMM kernels = first matching rule of classification.yaml is gemm; peak from arch_constants.yaml
    (device name -> key by the table DEVICE_KEYS below; dtype float -> fp32 keys fp32, fp32_matrix,
    fp32_packed_or_matrix, fp32_vector; bf16/half -> fp16_bf16_matrix, fp16_bf16_tensor, bf16_tensor/fp16_tensor);
    stake = gemm kernel time - flops / peak; fires when sum(ideal) / sum(kernel) < 0.5.
  small_elementwise: kernels whose classification.yaml category is elementwise and dur < 10 us; fires with >= 50
    per step (mean over ranks).
  rank_imbalance: compute = merged COMPUTATION time per rank / S; stake = max - mean on every rank; >= 2 ranks.
  inter_step_gaps: per pair of consecutive steps, (first start of the GPU activities launched in the later step -
    last end of those launched in the earlier one) when positive; an activity belongs to the step whose [start, end)
    holds its launch time (the launching call's start, else its own start).

Run: /usr/bin/python3 tests/data/expected/findings.py > tests/data/expected/findings.json
"""
import glob
import gzip
import json
import os
import re
from decimal import Decimal

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, '..')
ROOT = os.path.join(HERE, '..', '..', '..')
RUNS = {
    'dlrm': sorted(glob.glob(os.path.join(ROOT, 'resources/sample/param-dlrm-8rank/*.json'))),
    'resnet50_nw0': [os.path.join(DATA, 'kineto/kineto-configs/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz')],
    'resnet50_nw4': [os.path.join(DATA, 'kineto/kineto-configs/resnet50_num_workers_4/worker0.1623212756351.pt.trace.json.gz')],
    'mi300x': [os.path.join(DATA, 'kineto/tracelens/mi300x_resnet_act_checkpoint_rank0of8.json.gz')],
    'alexnet': [os.path.join(DATA, 'kineto/hta/critical_path/alexnet/benchmark_result_2869224_1695835535_trace.json.gz')],
    'cifar_ddp_4rank': [os.path.join(DATA, 'kineto/multirank/cifar100_ddp_4rank_tracefusion_first_quarter.json.gz')],
    'hand_2rank': [os.path.join(DATA, 'small/findings_2rank/rank0.json'), os.path.join(DATA, 'small/findings_2rank/rank1.json')],
}
DEVICE_KEYS = [('V100', 'V100_SXM2'), ('MI300X', 'MI300X'), ('A100', 'A100_SXM4_80GB')]
GPU_CATS = {'kernel': 'k', 'Kernel': 'k', 'gpu_memcpy': 'c', 'Memcpy': 'c', 'gpu_memset': 's', 'Memset': 's'}
RT_CATS = ('cuda_runtime', 'cuda_driver', 'Runtime')
SYNC = {'cudaDeviceSynchronize', 'cudaStreamSynchronize', 'cudaEventSynchronize', 'cudaMemcpy',
        'hipDeviceSynchronize', 'hipStreamSynchronize', 'hipEventSynchronize', 'hipMemcpy'}
RULES = yaml.safe_load(open(os.path.join(ROOT, 'resources/classification.yaml')))['rules']
RULES = [(re.compile(r['pattern']), r['category']) for r in RULES]


def ns(x):
    return int(round(x * 1000))  # x is an int or a Decimal (parse_float): exact, no float rounding on 1.7e15 us


def category(name):
    for rx, cat in RULES:
        if rx.search(name):
            return cat
    return 'other'


def hta_type(n):
    if re.match(r'nccl|hip|hccl', n) or 'ncclKernel' in n:
        return 'comm'
    if re.match(r'Memcpy|hipMemcpy|Memset|hipMemset|dma', n):
        return 'mem'
    if (re.match(r'nccl|hip|hccl|runFunction|Stream Wait Event', n) or re.match(r'cuda.*LaunchKernel', n)
            or any(s in n for s in ('Memcpy', 'Memset', 'dma', 'Sync'))):
        return 'other'
    return 'comp'


def merge(iv):
    out = []
    for s, e in sorted(iv):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def length(m):
    return sum(e - s for s, e in m)


def inter(a, b):
    t, i, j = 0, 0, 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        t += max(0, hi - lo)
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return t


def gemm_flops(name, dims):
    first = 1 if name in ('aten::addmm', 'aten::baddbmm') else 0
    if len(dims) < first + 2:
        return None
    a, b = dims[first], dims[first + 1]
    p = 1
    if name in ('aten::mm', 'aten::addmm') and len(a) == 2 and len(b) == 2:
        return 2 * a[0] * a[1] * b[1]
    if name in ('aten::bmm', 'aten::baddbmm') and len(a) == 3 and len(b) == 3:
        return 2 * a[0] * a[1] * a[2] * b[2]
    if name == 'aten::linear' and len(b) == 2 and a:
        for d in a[:-1]:
            p *= d
        return 2 * p * b[0] * b[1]
    if name == 'aten::matmul' and len(a) >= 2 and len(b) == 2:
        for d in a[:-1]:
            p *= d
        return 2 * p * a[-1] * b[1]
    return None


def load_json(path):
    return json.load(gzip.open(path) if path.endswith('.gz') else open(path), parse_float=Decimal)


def split_merged(tr):
    """A file that merges several ranks (TraceLens TraceFusion) says each event's rank in its args (`rank`, with
    `pid_raw`); its only events without one are the process_name / process_sort_index metadata. None when the file
    holds one rank (no event names a rank, or all name the same)."""
    ranks = {}
    for e in tr['traceEvents']:
        r = e.get('args', {}).get('rank') if isinstance(e.get('args'), dict) else None
        if isinstance(r, int):
            ranks.setdefault(r, []).append(e)
    if len(ranks) < 2:
        return None
    return [(r, {'traceEvents': ranks[r]}) for r in sorted(ranks)]


def load_files(files):
    out = []
    for i, path in enumerate(files):
        tr = load_json(path)
        parts = split_merged(tr)
        if parts:
            out += [load_rank(t, r) for r, t in parts]
        else:
            out.append(load_rank(tr, tr.get('distributedInfo', {}).get('rank', i)))
    return out


def load_rank(tr, rank):
    ev = [e for e in tr['traceEvents'] if e.get('ph') == 'X']
    steps = sorted((ns(e['ts']), ns(e['ts']) + ns(e['dur'])) for e in ev if e['name'].startswith('ProfilerStep#')
                   and e.get('cat') in ('user_annotation', 'cpu_op', 'Operator'))
    rt = {e['args']['correlation']: e for e in ev if e.get('cat') in RT_CATS and 'correlation' in e.get('args', {})}
    lo, hi = (steps[0][0], steps[-1][1]) if steps else (-2**63, 2**63)
    gpu = []
    for e in ev:
        kind = GPU_CATS.get(e.get('cat'))
        if not kind:
            continue
        call = rt.get(e.get('args', {}).get('correlation'))
        launch = ns(call['ts']) if call else ns(e['ts'])
        if lo <= launch < hi:
            gpu.append({'s': ns(e['ts']), 'e': ns(e['ts']) + ns(e['dur']), 'kind': kind, 'name': e['name'],
                        'stream': e.get('args', {}).get('stream', -1), 'rt': launch if call else None,
                        'call_dur': ns(call['dur']) if call else None,
                        'type': hta_type(e['name'])})
    gpu.sort(key=lambda g: (g['s'], g['e']))
    cpu = [e for e in ev if e.get('cat') not in GPU_CATS and lo <= ns(e['ts']) < hi]
    dev = (tr.get('deviceProperties') or [{}])[0].get('name', '')
    S = max(1, len(steps))
    if steps:
        step_ns = sum(e - s for s, e in steps) / len(steps)
    else:
        step_ns = (max(g['e'] for g in gpu) - min(g['s'] for g in gpu)) if gpu else 0
    return {'rank': rank, 'steps': steps, 'S': S, 'step_ns': step_ns, 'gpu': gpu, 'cpu': cpu, 'dev': dev, 'all': ev}


def launch_bound(r):
    streams = {}
    for g in r['gpu']:
        streams.setdefault(g['stream'], []).append(g)
    best = 0
    for acts in streams.values():
        hw = 0
        for prev, cur in zip(acts, acts[1:]):
            if cur['rt'] is not None and cur['rt'] > prev['e']:
                hw += cur['s'] - prev['e']
        best = max(best, hw)
    kern = [g for g in r['gpu'] if g['kind'] == 'k']
    short = sum(1 for g in kern if g['rt'] is not None and g['e'] - g['s'] < g['call_dur'])
    return best, len(kern), short


def step_gaps(r):
    """GPU idle between consecutive steps: (total ns, number of positive gaps)."""
    first, last = {}, {}
    for g in r['gpu']:
        t = g['rt'] if g['rt'] is not None else g['s']
        k = next((i for i, (a, b) in enumerate(r['steps']) if a <= t < b), None)
        if k is None:
            continue
        first[k] = min(first.get(k, g['s']), g['s'])
        last[k] = max(last.get(k, g['e']), g['e'])
    gaps = [first[k] - last[k - 1] for k in range(1, len(r['steps'])) if k in first and k - 1 in last]
    return sum(x for x in gaps if x > 0), sum(1 for x in gaps if x > 0)


def straggler(ranks):
    coll = {}
    for r in ranks:
        seen = {}
        for g in r['gpu']:
            if g['kind'] != 'k' or g['type'] != 'comm':
                continue
            occ = seen.get(g['name'], 0)
            seen[g['name']] = occ + 1
            coll.setdefault((g['name'], occ), []).append((r['rank'], g['e'] - g['s']))
    caused = {}
    for hits in coll.values():
        if len(hits) < 2:
            continue
        hits.sort()
        shortest = min(d for _, d in hits)
        who = next(rk for rk, d in hits if d == shortest)
        caused[who] = caused.get(who, 0) + sum(d - shortest for _, d in hits)
    if not caused:
        return None, 0
    who = max(sorted(caused), key=lambda k: caused[k])
    return who, caused[who]


def gemm(r, arch):
    if not r['steps']:
        return None
    ops = [e for e in r['all'] if e.get('cat') in ('cpu_op', 'Operator') and gemm_flops(e['name'], e.get('args', {}).get('Input Dims', [])) is not None]
    ops.sort(key=lambda e: (ns(e['ts']), -ns(e['dur'])))
    flops, by_type, open_until = 0, {}, {}
    for e in ops:
        key = (e['pid'], e['tid'])
        if ns(e['ts']) < open_until.get(key, -1):
            continue  # inside an outer GEMM op
        open_until[key] = ns(e['ts']) + ns(e['dur'])
        if not any(s <= ns(e['ts']) < t for s, t in r['steps']):
            continue
        f = gemm_flops(e['name'], e['args']['Input Dims'])
        flops += f
        t = (e['args'].get('Input type') or [''])[0]
        by_type[t] = by_type.get(t, 0) + f
    kern = sum(g['e'] - g['s'] for g in r['gpu'] if g['kind'] == 'k' and category(g['name']) == 'gemm')
    key = next((k for sub, k in DEVICE_KEYS if sub in r['dev']), None)
    if not flops or not kern or not key:
        return None
    dtype = max(by_type, key=by_type.get)
    names = {'float': ['fp32', 'fp32_matrix', 'fp32_packed_or_matrix', 'fp32_vector'],
             'c10::BFloat16': ['fp16_bf16_matrix', 'fp16_bf16_tensor', 'bf16_tensor'],
             'c10::Half': ['fp16_bf16_matrix', 'fp16_bf16_tensor', 'fp16_tensor']}.get(dtype, [])
    peaks = arch[key]['peak_tflops']
    peak = next((peaks[n] for n in names if peaks.get(n)), None)
    if not peak:
        return None
    ideal = flops / (peak * 1e3)
    return {'kernel': kern, 'ideal': float(ideal), 'flops': flops, 'peak': peak}


def rules_of(ranks, arch):
    run_step = sum(r['step_ns'] for r in ranks if r['step_ns'] > 0) / max(1, sum(1 for r in ranks if r['step_ns'] > 0))
    out = {}

    def put(rule, totals, cond=True, extra=None):
        ms = sum(t / r['S'] for t, r in zip(totals, ranks)) / len(ranks) / 1e6
        share = min(1.0, ms * 1e6 / run_step)
        out[rule] = {'ms_per_step': ms, 'share': share, 'fires': bool(cond and share >= 0.01)}
        out[rule].update(extra or {})

    comm = [merge([(g['s'], g['e']) for g in r['gpu'] if g['type'] == 'comm']) for r in ranks]
    comp = [merge([(g['s'], g['e']) for g in r['gpu'] if g['type'] == 'comp']) for r in ranks]
    allm = [merge([(g['s'], g['e']) for g in r['gpu']]) for r in ranks]
    put('exposed_comm', [length(c) - inter(c, p) for c, p in zip(comm, comp)])
    lb = [launch_bound(r) for r in ranks]
    kernels, short = sum(x[1] for x in lb), sum(x[2] for x in lb)
    put('launch_bound', [x[0] for x in lb], kernels and short / kernels >= 0.5,
        {'short_kernel_pct': 100.0 * short / kernels if kernels else 0})
    dl = []
    for r, m in zip(ranks, allm):
        d = merge([(ns(e['ts']), ns(e['ts']) + ns(e['dur'])) for e in r['cpu']
                   if 'DataLoader' in e['name'] and e.get('cat') not in RT_CATS])
        dl.append(length(d) - inter(d, m))
    put('dataloader_stall', dl)
    put('host_sync', [sum(ns(e['dur']) for e in r['cpu'] if e.get('cat') in RT_CATS and e['name'] in SYNC) for r in ranks])
    put('pageable_h2d', [sum(g['e'] - g['s'] for g in r['gpu'] if g['kind'] == 'c'
                             and g['name'] == 'Memcpy HtoD (Pageable -> Device)') for r in ranks])
    who, caused = straggler(ranks) if len(ranks) > 1 else (None, 0)
    put('straggler', [caused / (len(ranks) - 1) if who is not None else 0 for _ in ranks], who is not None,
        {'straggler_rank': who})
    small = [[g for g in r['gpu'] if g['kind'] == 'k' and g['e'] - g['s'] < 10000 and category(g['name']) == 'elementwise']
             for r in ranks]
    per_step = sum(len(s) / r['S'] for s, r in zip(small, ranks)) / len(ranks)
    put('small_elementwise', [sum(g['e'] - g['s'] for g in s) for s in small], per_step >= 50,
        {'small_kernels_per_step': per_step})
    compute = [length(c) / r['S'] for c, r in zip(comp, ranks)]
    excess = max(compute) - sum(compute) / len(compute)
    put('rank_imbalance', [excess * r['S'] for r in ranks], len(ranks) >= 2,
        {'busiest_rank': ranks[compute.index(max(compute))]['rank'], 'compute_ms_per_step': [c / 1e6 for c in compute]})
    put('inter_step_gaps', [step_gaps(r)[0] for r in ranks], any(r['steps'] for r in ranks),
        {'gaps': sum(step_gaps(r)[1] for r in ranks)})
    gs = [gemm(r, arch) for r in ranks]
    used = [g for g in gs if g]
    eff = sum(g['ideal'] for g in used) / sum(g['kernel'] for g in used) if used else 1
    put('gemm_below_peak', [max(0, g['kernel'] - g['ideal']) if g else 0 for g in gs], used and eff < 0.5,
        {'share_of_peak': eff})
    return run_step, out


def main():
    arch = yaml.safe_load(open(os.path.join(ROOT, 'resources/arch_constants.yaml')))
    arch = {k: v for vendor in arch.values() if isinstance(vendor, dict) for k, v in vendor.items()
            if isinstance(v, dict)}
    result = {}
    for name, files in RUNS.items():
        ranks = load_files(files)
        run_step, rules = rules_of(ranks, arch)
        result[name] = {'step_ms': run_step / 1e6, 'rules': rules,
                        'fired': sorted((k for k, v in rules.items() if v['fires']),
                                        key=lambda k: -rules[k]['ms_per_step'])}
    print(json.dumps(result, indent=1, sort_keys=True))


main()

#!/usr/bin/python3
"""Expected values of the hardware plots (tests/plots/hw_plots_test.cpp) on real files, computed with Python's csv,
json and gzip modules and plain string handling, independently of Strobe.
Run from anywhere: /usr/bin/python3 tests/data/expected/hw_plots.py   (output kept in hw_plots.txt)

power-freq-summary  mean power.draw / pwr and SM clock (clocks.current.sm / pclk / SCLK) per GPU of each file.
total-power         energy of a whole dmon series: trapezoid rule, samples 1 s apart (dmon wrote no time).
cpu-*               per sample of Strobe's CPU sampler CSV: cores with a value, cores >= 50 % busy, sum / 100;
                    heatmap cells: one per core and sample, interval = (previous sample, sample], the first one as
                    long as the second.
overhead-breakdown  per ProfilerStep#N (cat Operator, the 2021 schema) of the two ResNet-50 traces: union of the
                    GPU activities (cat Kernel, Memcpy, Memset) of every stream, kernels apart; a gap between two
                    busy groups is a launch gap when the launching runtime call (cat Runtime, same args.correlation)
                    of the activity that ends it started after the gap began, or the gap is < 30 us; each part is
                    clipped to the step [ts, ts + dur).
"""
import csv
import gzip
import json
import os
import re

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')


def dmon(name):
    path = os.path.join(DATA, 'telemetry', 'nvidia-smi', name)
    hdr = open(path).readline()[1:].split()
    rows = [l.split() for l in open(path) if l.strip() and not l.startswith('#')]
    return [float(r[hdr.index('pwr')]) for r in rows], [float(r[hdr.index('pclk')]) for r in rows]


def mean(v):
    return sum(v) / len(v)


def power_freq_summary():
    for f in ('h100_dmon_idle.txt', 'h100_dmon_load.txt', 'l40s_dmon_load.txt'):
        p, c = dmon(f)
        print(f'power-freq-summary {f} GPU 0 power n={len(p)} mean={mean(p)!r} sclk n={len(c)} mean={mean(c)!r}')
    # rocm-smi concise: per GPU line, Power "110.0W" (the first W value; the second is the cap), SCLK "98Mhz"
    path = os.path.join(DATA, 'telemetry', 'amd', 'rocm-smi_concise_4gpu.txt')
    pw, ck = [], []
    for line in open(path):
        if not re.match(r'^\d+\s', line):
            continue
        watts = re.findall(r'([\d.]+)W\b', line)
        mhz = re.findall(r'([\d.]+)Mhz', line)
        pw.append(float(watts[0]))
        ck.append(float(mhz[0]))
        print(f'power-freq-summary rocm-smi GPU {line.split()[0]} power {float(watts[0])!r} sclk {float(mhz[0])!r}')
    print(f'power-freq-summary rocm-smi all power mean={mean(pw)!r} sclk mean={mean(ck)!r}')
    rows = list(csv.reader(open(os.path.join(DATA, 'telemetry', 'nvidia-smi', 'h100_query-gpu_load.csv')),
                           skipinitialspace=True))
    h, r = rows[0], rows[1]
    print('power-freq-summary h100 query power', float(r[h.index('power.draw [W]')].split()[0]),
          'sclk', float(r[h.index('clocks.current.sm [MHz]')].split()[0]))
    # Two files as one run (two ranks): the bar pools all ten samples
    p1, c1 = dmon('h100_dmon_idle.txt')
    p2, c2 = dmon('h100_dmon_load.txt')
    print(f'power-freq-summary h100 idle+load power mean={mean(p1 + p2)!r} sclk mean={mean(c1 + c2)!r}')


def total_power():
    for f in ('h100_dmon_load.txt', 'l40s_dmon_load.txt'):
        p, _ = dmon(f)
        joules = sum((p[i] + p[i + 1]) / 2 * 1.0 for i in range(len(p) - 1))
        print(f'total-power {f} whole series {joules!r} J over {len(p) - 1} s')


def cpu(path):
    rows = list(csv.DictReader(open(os.path.join(DATA, path))))
    cores = sorted((int(re.match(r'cpu(\d+)\.util_pct$', k).group(1)) for k in rows[0]
                    if re.match(r'cpu\d+\.util_pct$', k)))
    t0 = int(rows[0]['t_realtime_ns'])
    busy_sum, eq_sum, n = 0, 0.0, 0
    for r in rows:
        vals = [float(r[f'cpu{c}.util_pct']) for c in cores if r[f'cpu{c}.util_pct'] != '']
        busy_sum += sum(1 for v in vals if v >= 50)
        eq_sum += sum(vals) / 100
        n += 1
    last = int(rows[-1]['t_realtime_ns']) - t0
    print(f'cpu-active-cores {path} samples {n} cores {len(cores)} sum_busy {busy_sum} sum_equivalents {eq_sum!r} '
          f'last_elapsed_ns {last}')
    ts = [int(r['t_realtime_ns']) for r in rows]
    first = ts[1] - ts[0]
    origin = ts[0] - first
    cells = [(c, (ts[i - 1] if i else ts[0] - first) - origin, ts[i] - origin, float(r[f'cpu{c}.util_pct']))
             for c in cores for i, r in enumerate(rows) if r[f'cpu{c}.util_pct'] != '']
    print(f'cpu-core-heatmap {path} cells {len(cells)} sum_util {sum(x[3] for x in cells)!r} '
          f'first {cells[0][:3]} last_end {max(x[2] for x in cells)}')
    for c in cores:
        v = [x[3] for x in cells if x[0] == c]
        print(f'cpu-core-heatmap {path} cpu{c} cells {len(v)} min {min(v)!r} max {max(v)!r}')


def merge(intervals):
    out = []
    for s, e in intervals:  # sorted by start
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def clip(intervals, a, b):
    return sum(max(0, min(b, e) - max(a, s)) for s, e in intervals)


def overhead(rel):
    with gzip.open(os.path.join(DATA, 'kineto', rel), 'rt') as f:
        events = json.load(f)['traceEvents']
    launch = {e['args']['correlation']: e['ts'] * 1000 for e in events
              if e.get('ph') == 'X' and e.get('cat') == 'Runtime' and 'correlation' in e.get('args', {})}
    acts = []
    for i, e in enumerate(events):
        if e.get('ph') == 'X' and e.get('cat') in ('Kernel', 'Memcpy', 'Memset'):
            s, d = e['ts'] * 1000, e['dur'] * 1000
            acts.append((s, s + d, i, e['cat'] == 'Kernel', launch.get(e.get('args', {}).get('correlation'))))
    acts.sort()
    groups, gaps, group_end = [], [], None
    for s, e, _, _, rt in acts:
        if group_end is not None and s > group_end:
            if (rt is not None and rt > group_end) or s - group_end < 30000:
                gaps.append((group_end, s))
            groups.append([s, e])
        elif group_end is None:
            groups.append([s, e])
        else:
            groups[-1][1] = max(groups[-1][1], e)
        group_end = e if group_end is None else max(group_end, e)
    kernels = merge([(a[0], a[1]) for a in acts if a[3]])
    steps = sorted((int(e['name'].split('#')[1]), e['ts'] * 1000, (e['ts'] + e['dur']) * 1000) for e in events
                   if e.get('ph') == 'X' and re.fullmatch(r'ProfilerStep#\d+', e.get('name', ''))
                   and e.get('cat') in ('Operator', 'cpu_op', 'user_annotation'))
    for n, a, b in steps:
        busy = clip(groups, a, b)
        k = clip(kernels, a, b)
        lg = clip(gaps, a, b)
        print(f'overhead-breakdown {rel.split("/")[-2]} step {n} dur {b - a} kernel {k} launch_gap {lg} '
              f'memcpy {busy - k} other_idle {max(0, b - a - busy - lg)}')


def main():
    power_freq_summary()
    total_power()
    cpu('telemetry/strobe/cpu_sampler_2core.csv')
    for rel in ('kineto-configs/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz',
                'kineto-configs/resnet50_num_workers_4/worker0.1623212756351.pt.trace.json.gz'):
        overhead(rel)


if __name__ == '__main__':
    main()

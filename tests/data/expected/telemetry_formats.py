#!/usr/bin/python3
"""Expected values for the telemetry / benchmark / ncu / rocprof-compute loaders (tests/core/formats_telemetry_test.cpp),
computed with Python's csv module and plain string handling, independently of Strobe.
Run from tests/data: /usr/bin/python3 expected/telemetry_formats.py"""
import calendar
import csv
import datetime
import re

NA = lambda v: v.strip() == '' or v.strip() in ('N/A', '-') or (v.strip().startswith('[') and v.strip().endswith(']'))
NUM = re.compile(r'^[+-]?\d+(\.\d+)?\s*[A-Za-z%]*$')


def wall_ns(text):
    d = datetime.datetime.strptime(text.strip(), '%Y/%m/%d %H:%M:%S.%f')
    return calendar.timegm(d.timetuple()) * 10**9 + d.microsecond * 1000


def num(v):
    return float(re.match(r'^\s*([+-]?\d+(\.\d+)?)', v).group(1))


# --- nvidia-smi query-gpu series (V100S, 1 Hz)
rows = list(csv.reader(open('telemetry/nvidia-smi/v100s_gpu_log.csv'), skipinitialspace=True))
h, data = rows[0], rows[1:]
print('v100s rows', len(data))
print('v100s first_ts_ns', wall_ns(data[0][0]), 'last_ts_ns', wall_ns(data[-1][0]))
for col in ('utilization.gpu [%]', 'utilization.memory [%]', 'memory.used [MiB]', 'temperature.gpu'):
    i = h.index(col)
    print('v100s sum', col, sum(num(r[i]) for r in data), 'max', max(num(r[i]) for r in data))
# every measuring column is numeric here: samples = rows x (columns - timestamp, index, name)
print('v100s samples', len(data) * (len(h) - 3))

# --- nvidia-smi query-gpu, 212 columns, one row (H100 under load)
rows = list(csv.reader(open('telemetry/nvidia-smi/h100_query-gpu_load.csv'), skipinitialspace=True))
h, r = rows[0], rows[1]
ident = {'timestamp', 'index', 'name', 'uuid', 'serial', 'pci.bus_id', 'driver_version', 'vbios_version', 'hostname'}
cols = [(c, v) for c, v in zip(h, r) if c.split(' [')[0] not in ident]
numeric = [(c, v) for c, v in cols if not NA(v) and NUM.match(v.strip())]
print('h100 columns', len(h), 'numeric', len(numeric), 'not_available', sum(1 for c, v in cols if NA(v)),
      'not_number', sum(1 for c, v in cols if not NA(v) and not NUM.match(v.strip())))
for c in ('power.draw [W]', 'enforced.power.limit [W]', 'clocks.current.sm [MHz]', 'clocks.current.memory [MHz]',
          'temperature.gpu', 'memory.used [MiB]', 'utilization.gpu [%]', 'index', 'driver_version', 'name'):
    print('h100', c, '=', r[h.index(c)])

# --- dmon
for f in ('h100_dmon_load', 'l40s_dmon_idle'):
    lines = [l.split() for l in open(f'telemetry/nvidia-smi/{f}.txt') if not l.startswith('#') and l.strip()]
    hdr = open(f'telemetry/nvidia-smi/{f}.txt').readline()[1:].split()
    dashes = sum(1 for l in lines for w in l if w == '-')
    print(f, 'rows', len(lines), 'sum pwr', sum(float(l[hdr.index('pwr')]) for l in lines),
          'sum pclk', sum(float(l[hdr.index('pclk')]) for l in lines), 'dashes', dashes,
          'samples', sum(1 for l in lines for i, w in enumerate(l) if i != hdr.index('gpu') and w != '-'))

# --- nccl-tests
for f in ('allreduce', 'alltoall', 'reduce'):
    rows = [l.split() for l in open(f'nccl-tests/nccl_{f}.log') if l.strip() and l.split()[0].isdigit()]
    # out-of-place time is the 8th word from the end, in-place the 4th
    oop = [float(r[-8]) for r in rows]
    busbw = [float(r[-6]) for r in rows]
    inbus = [float(r[-2]) for r in rows]
    avg = [l for l in open(f'nccl-tests/nccl_{f}.log') if 'Avg bus bandwidth' in l][0].split(':')[1].strip()
    print('nccl', f, 'rows', len(rows), 'sum_oop_time_us', round(sum(oop), 4), 'max_busbw', max(busbw),
          'max_inplace_busbw', max(inbus), 'last_size', rows[-1][0], 'avg', avg,
          'oop_total_ns', sum(round(t * 1000) for t in oop))

# --- ncu details page
lines = open('ncu/cublaslt_ncu.log').read().splitlines()
start = [i for i, l in enumerate(lines) if l.startswith('"ID","Process ID"')][0]
rows = list(csv.DictReader(lines[start:]))
metric_rows = [r for r in rows if r['Metric Name']]
numeric = [r for r in metric_rows if re.match(r'^[\d,]+(\.\d+)?$', r['Metric Value'])]
print('ncu rows', len(rows), 'kernels', len({r['ID'] for r in rows}), 'metric_rows', len(metric_rows),
      'numeric', len(numeric), 'rule_rows', len(rows) - len(metric_rows), 'header_line', start + 1)
for m in ('Duration', 'Registers Per Thread', 'Achieved Occupancy', 'DRAM Frequency'):
    r = [x for x in metric_rows if x['Metric Name'] == m][0]
    print('ncu', m, r['Metric Unit'], r['Metric Value'])
print('ncu grid', rows[0]['Grid Size'], 'block', rows[0]['Block Size'], 'stream', rows[0]['Stream'])

# --- rocprof-compute workload
rows = list(csv.DictReader(open('rocprof-compute/vcopy_MI300X_A1_rocprofv2/pmc_perf.csv')))
hdr = list(rows[0].keys())
ids = {'Dispatch_ID', 'GPU_ID', 'Queue_ID', 'PID', 'TID', 'Grid_Size', 'Workgroup_Size', 'LDS_Per_Workgroup',
       'Scratch_Per_Workitem', 'Arch_VGPR', 'Accum_VGPR', 'SGPR', 'Wave_Size', 'Kernel_Name', 'Start_Timestamp',
       'End_Timestamp', 'Correlation_ID', 'XCC_Index'}
counters = [c for c in hdr if c not in ids and not re.match(r'^(Wave_Size|Correlation_ID|XCC_Index)_\d+$', c)]
vals = sum(1 for r in rows for c in counters if r[c].strip() != '')
print('rpc dispatches', len(rows), 'columns', len(hdr), 'counter_columns', len(counters), 'counter_values', vals)
for c in ('SQ_WAVES', 'GRBM_GUI_ACTIVE', 'TCC_HIT[0]', 'SQ_INSTS_VALU_INT32'):
    print('rpc', c, [r[c] for r in rows])
print('rpc start', [r['Start_Timestamp'] for r in rows], 'gpu', [r['GPU_ID'] for r in rows])
sysinfo = list(csv.DictReader(open('rocprof-compute/vcopy_MI300X_A1_rocprofv2/sysinfo.csv')))[0]
print('rpc sys', sysinfo['gpu_model'], sysinfo['gpu_arch'], sysinfo['cu_per_gpu'], sysinfo['wave_size'],
      sysinfo['version'], sysinfo['rocm_version'])

# --- telemetry plots (tests/plots/telemetry_plots_test.cpp): dmon columns gtemp, pwr, pclk
def dmon(f):
    hdr = open(f'telemetry/nvidia-smi/{f}.txt').readline()[1:].split()
    rows = [l.split() for l in open(f'telemetry/nvidia-smi/{f}.txt') if not l.startswith('#') and l.strip()]
    return [{c: r[i] for i, c in enumerate(hdr)} for r in rows]


def pearson(xs, ys):
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    return sxy / (sxx * syy) ** 0.5


h100 = dmon('h100_dmon_idle') + dmon('h100_dmon_load')
print('plot h100 idle+load r(gtemp, pclk) = %.12f' % pearson([float(r['gtemp']) for r in h100], [float(r['pclk']) for r in h100]))
print('plot h100 idle+load r(pwr, pclk) = %.12f' % pearson([float(r['pwr']) for r in h100], [float(r['pclk']) for r in h100]))
print('plot h100 mean gtemp', sum(float(r['gtemp']) for r in h100) / len(h100), 'mean pclk', sum(float(r['pclk']) for r in h100) / len(h100))
for f in ('h100_dmon_load', 'l40s_dmon_load'):
    print('plot', f, 'power sum', sum(float(r['pwr']) for r in dmon(f)), 'points', len(dmon(f)))
# power as % of a 700 W cap (the H100's enforced.power.limit), 5 % bins
bins = {}
for r in h100:
    pct = float(r['pwr']) / 700 * 100
    lo = int(pct // 5) * 5
    bins[lo] = bins.get(lo, 0) + 1
print('plot h100 cap700 bins', sorted(bins.items()))
print('plot h100 query-gpu pct of cap', 631.95 / 700 * 100)

# --- rocm-smi concise table: rows between the '=' rule after the header and the next rule
lines = open('telemetry/amd/rocm-smi_concise_4gpu.txt', encoding='utf-8').read().splitlines()
rows = [l for l in lines if re.match(r'^\d+\s', l)]
def unit_values(row, unit):
    return [float(m) for m in re.findall(r'(\d+(?:\.\d+)?)' + unit, row)]
print('rocm-smi rows', len(rows),
      'temp', [unit_values(r, '°C')[0] for r in rows],
      'power', [unit_values(r, 'W')[0] for r in rows],
      'cap', [unit_values(r, 'W')[1] for r in rows],
      'sclk', [unit_values(r, 'Mhz')[0] for r in rows],
      'mclk', [unit_values(r, 'Mhz')[1] for r in rows],
      'pct', [unit_values(r, '%') for r in rows])

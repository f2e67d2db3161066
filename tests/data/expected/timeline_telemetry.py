#!/usr/bin/python3
# Expected telemetry lanes of the GPU timeline on tests/data/telemetry/nvidia-smi/v100s_gpu_log.csv (nvidia-smi
# --query-gpu CSV, one V100S, 1 s period), with Python's csv module: samples per metric, min/max, the sum of the
# utilisation values, and the second sample's offset from the first in ns (the lanes start at the first sample).
# Run: /usr/bin/python3 tests/data/expected/timeline_telemetry.py
import csv, datetime, os
rows = list(csv.reader(open(os.path.join(os.path.dirname(__file__), "..", "telemetry", "nvidia-smi", "v100s_gpu_log.csv"))))
h = [c.strip() for c in rows[0]]
data = rows[1:]
col = lambda prefix: [float(r[h.index(next(c for c in h if c.startswith(prefix)))].strip().split()[0]) for r in data]
t, u = col("temperature.gpu"), col("utilization.gpu")
ts = [datetime.datetime.strptime(r[0].strip(), "%Y/%m/%d %H:%M:%S.%f") for r in data]
print("samples", len(t), "temp", min(t), max(t), "util", min(u), max(u), "util_sum", sum(u))
d = ts[1] - ts[0]
print("second_offset_ns", (d.days * 86400 + d.seconds) * 10**9 + d.microseconds * 1000)

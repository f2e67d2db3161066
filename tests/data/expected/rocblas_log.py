#!/usr/bin/python3
"""Independent parse of the rocBLAS profile log (tests/data/library-logs/rocblas_layer4_hgemm_transformer.txt) with
PyYAML (each line is a one-item YAML list holding a flow mapping): distinct calls per (function, transA, transB, M, N,
K) with how many lines and the sum of their counts (call_count, else iters).
Run: /usr/bin/python3 rocblas_log.py ../library-logs/rocblas_layer4_hgemm_transformer.txt > rocblas_log.csv"""
import collections
import csv
import sys

import yaml

groups = collections.OrderedDict()
lines = total = 0
with open(sys.argv[1]) as f:
    for text in f:
        if not text.strip():
            continue
        (call,) = yaml.safe_load(text)
        count = int(call.get("call_count", call.get("iters", 1)))
        key = (call["rocblas_function"], call["transA"], call["transB"], call["M"], call["N"], call["K"])
        g = groups.setdefault(key, [0, 0])
        g[0] += 1
        g[1] += count
        lines += 1
        total += count
w = csv.writer(sys.stdout, lineterminator="\n")
w.writerow(["function", "transA", "transB", "M", "N", "K", "lines", "count"])
w.writerow(["TOTAL", "", "", "", "", "", lines, total])
for key, (n, c) in groups.items():
    w.writerow(list(key) + [n, c])

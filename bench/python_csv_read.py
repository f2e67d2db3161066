#!/usr/bin/python3
"""The reference side of bench_formats: Python's csv module reading a CSV file once, every row and field.

Prints "<seconds> <rows> <peak RSS bytes>" (ru_maxrss of this process).
"""
import csv
import resource
import sys
import time

t0 = time.perf_counter()
rows = 0
with open(sys.argv[1], newline="") as f:
    r = csv.reader(f)
    header = next(r)
    start = header.index("Start_Timestamp")
    end = header.index("End_Timestamp")
    total = 0
    for row in r:
        total += int(row[end]) - int(row[start])  # the same work as the loader's duration column
        rows += 1
seconds = time.perf_counter() - t0
print(seconds, rows, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)

#!/usr/bin/python3
"""The Python side of bench_sqlite: reads what Strobe's nsys loader reads (StringIds into a dict, every
CUPTI_ACTIVITY_KIND_KERNEL and CUPTI_ACTIVITY_KIND_RUNTIME row into lists of tuples, kernel names resolved) with the
standard sqlite3 module. Prints: rows seconds peak_rss_bytes.

Usage: /usr/bin/python3 bench/read_nsys_sqlite.py EXPORT.sqlite
"""
import resource
import sqlite3
import sys
import time

t0 = time.perf_counter()
db = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)
strings = dict(db.execute("SELECT id, value FROM StringIds"))
kernels = [(r[0], r[1] - r[0], strings.get(r[8] or r[9]), r[2], r[5], r[6], r[10:16])
           for r in db.execute("SELECT start, end, deviceId, contextId, globalPid, streamId, correlationId, "
                               "shortName, demangledName, mangledName, gridX, gridY, gridZ, blockX, blockY, blockZ "
                               "FROM CUPTI_ACTIVITY_KIND_KERNEL")]
runtime = [(r[0], r[1] - r[0], strings.get(r[4]), (r[2] >> 24) & 0xFFFFFF, r[2] & 0xFFFFFF, r[3])
           for r in db.execute("SELECT start, end, globalTid, correlationId, nameId FROM CUPTI_ACTIVITY_KIND_RUNTIME")]
secs = time.perf_counter() - t0
print(len(kernels) + len(runtime), secs, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)

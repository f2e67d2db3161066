#!/usr/bin/python3
"""Writes an nsys-shaped SQLite export for bench_sqlite (not committed): StringIds, CUPTI_ACTIVITY_KIND_KERNEL and
CUPTI_ACTIVITY_KIND_RUNTIME with the column sets of nsys 2024.5 (one runtime call per kernel, linked by
correlationId), TARGET_INFO_GPU (4 GPUs), PROCESSES, META_DATA_EXPORT, TARGET_INFO_SESSION_START_TIME.

Usage: /usr/bin/python3 bench/gen_nsys_sqlite.py OUT.sqlite SIZE_MB
"""
import os
import random
import sqlite3
import sys

out, size_mb = sys.argv[1], float(sys.argv[2])
if os.path.exists(out):
    os.remove(out)
db = sqlite3.connect(out)
db.execute("PRAGMA journal_mode = OFF")
db.execute("PRAGMA synchronous = OFF")
kcols = ("start end deviceId contextId greenContextId streamId correlationId globalPid demangledName shortName "
         "mangledName launchType cacheConfig registersPerThread gridX gridY gridZ blockX blockY blockZ "
         "staticSharedMemory dynamicSharedMemory localMemoryPerThread localMemoryTotal gridId sharedMemoryExecuted "
         "graphNodeId sharedMemoryLimitConfig").split()
db.execute("CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL)")
db.execute(f"CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL ({', '.join(c + ' INTEGER' for c in kcols)})")
db.execute("CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, eventClass INTEGER, "
           "globalTid INTEGER, correlationId INTEGER, nameId INTEGER, returnValue INTEGER, callchainId INTEGER)")
db.execute("CREATE TABLE TARGET_INFO_GPU (id INTEGER, name TEXT, totalMemory INTEGER, smCount INTEGER, "
           "computeMajor INTEGER, computeMinor INTEGER)")
db.execute("CREATE TABLE PROCESSES (globalPid INTEGER, pid INTEGER, name TEXT)")
db.execute("CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT)")
db.execute("CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT, localTime TEXT)")
rng = random.Random(7)
names = [f"void kernel_{i}<float, {i % 7}>(float const*, float*, int)" for i in range(2000)]
db.executemany("INSERT INTO StringIds VALUES (?, ?)", [(i + 1, n) for i, n in enumerate(names)])
db.execute("INSERT INTO StringIds VALUES (5000, 'cudaLaunchKernel_v7000')")
for g in range(4):
    db.execute("INSERT INTO TARGET_INFO_GPU VALUES (?, 'NVIDIA A100-SXM4-80GB', 84990623744, 108, 8, 0)", (g,))
pid = 1701896
gpid = pid << 24
db.execute("INSERT INTO PROCESSES VALUES (?, ?, 'bench')", (gpid, pid))
db.execute("INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_PRODUCT_VERSION', '2024.5.1.113')")
db.execute("INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (1696392839587175550, '', '')")
target = size_mb * 1e6
t = 500_000_000
corr = 0
batch = 50_000
while True:
    krows, rrows = [], []
    for _ in range(batch):
        corr += 1
        name = rng.randrange(2000) + 1
        dur = rng.randrange(2_000, 200_000)
        rrows.append((t, t + 3_000, 1, gpid | pid, corr, 5000, 0, None))
        krows.append((t + 5_000, t + 5_000 + dur, corr % 4, 1, None, 7 + corr % 3, corr, gpid, name, name, name,
                      0, 0, 64, 1024, 1, 1, 256, 1, 1, 0, 0, 0, 0, corr, 0, None, 0))
        t += dur // 2 + 4_000
    db.executemany(f"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES ({', '.join('?' * len(kcols))})", krows)
    db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rrows)
    db.commit()
    if os.path.getsize(out) >= target:
        break
db.close()
print(out, os.path.getsize(out), "bytes,", corr, "kernels and runtime calls")

#!/usr/bin/python3
"""Writes nsys_memory_usage.sqlite: a small nsys SQLite export HAND-BUILT from the documented schema, because no real
export with the CUDA_GPU_MEMORY_USAGE_EVENTS table (nsys profile --cuda-memory-usage=true) is at hand: the two real
exports of tests/data/sqlite were recorded without that option. The table's columns are those nsys documents (start,
globalPid, deviceId, contextId, address, pc, bytes, memKind, memoryOperationType, name, correlationId, streamId and the
memory-pool columns); the ENUM_CUDA_MEM_KIND and ENUM_CUDA_DEV_MEM_EVENT_OPER tables are copied row for row from the
real export nsys_fuser_h200.sqlite (nsys 2024.6), which has them. Our own data: one process (pid 4242), two GPUs,
four kernels, and 14 memory-usage rows: device allocations and frees on both GPUs, an address reused after its free,
an Array and a Device Static allocation, a free of an address allocated before the trace began (unmatched), and a
pinned and a managed allocation (host-side kinds: not device memory).

Then replays the rows as core/analysis/memory_timeline.h says (the expected values of the nsys memory tests):
device-resident kinds only (Device, Array, Device Static); per device, an allocation adds its bytes to the live
blocks at its address, a deallocation frees the block allocated at its address (its own bytes are not used), a
deallocation of an address never allocated in the trace is counted and not drawn; allocated(t) is the running sum of
the live blocks' bytes; the peak is the first event with the largest value.

Usage: /usr/bin/python3 make_nsys_memory_sample.py          (rewrites nsys_memory_usage.sqlite, prints the replay)
       /usr/bin/python3 make_nsys_memory_sample.py --replay (the replay of the existing file only)
"""
import os
import sqlite3
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "nsys_memory_usage.sqlite")
REAL = os.path.join(HERE, "nsys_fuser_h200.sqlite")
PID = 4242
GPID = PID << 24
T0 = 2_000_000_000  # ns since the session began (nsys writes session-relative times)

MEMORY_USAGE = """CREATE TABLE CUDA_GPU_MEMORY_USAGE_EVENTS (
    start                       INTEGER   NOT NULL,
    globalPid                   INTEGER   NOT NULL,
    deviceId                    INTEGER   NOT NULL,
    contextId                   INTEGER   NOT NULL,
    address                     INTEGER   NOT NULL,
    pc                          INTEGER   NOT NULL,
    bytes                       INTEGER   NOT NULL,
    memKind                     INTEGER   NOT NULL,
    memoryOperationType         INTEGER   NOT NULL,
    name                        TEXT,
    correlationId               INTEGER,
    streamId                    INTEGER,
    localMemoryPoolAddress      INTEGER,
    localMemoryPoolReleaseThreshold INTEGER,
    localMemoryPoolSize         INTEGER,
    localMemoryPoolUtilizedSize INTEGER,
    importedMemoryPoolAddress   INTEGER,
    importedMemoryPoolProcessId INTEGER
)"""

# (µs after T0, device, address, bytes, memKind, operation): 0 Allocation, 1 Deallocation; kinds 2 Device, 3 Array,
# 5 Device Static, 1 Pinned, 4 Managed.
ROWS = [
    (0, 0, 0x7F0000000000, 2 << 20, 5, 0),      # device static (module globals) on GPU 0
    (10, 0, 0x7F0000200000, 64 << 20, 2, 0),    # GPU 0: 64 MiB
    (20, 1, 0x7F1000000000, 32 << 20, 2, 0),    # GPU 1: 32 MiB
    (25, 0, 0x7F0004200000, 128 << 20, 2, 0),   # GPU 0: 128 MiB
    (30, 0, 0x600000000000, 16 << 20, 1, 0),    # pinned host memory: not device memory
    (35, 0, 0x700000000000, 8 << 20, 4, 0),     # managed: not counted
    (40, 0, 0x7F0000200000, 64 << 20, 2, 1),    # GPU 0: free the 64 MiB
    (45, 1, 0x7F1002000000, 1 << 20, 3, 0),     # GPU 1: a CUDA array, 1 MiB
    (50, 0, 0x7F0000200000, 96 << 20, 2, 0),    # GPU 0: the freed address reused for 96 MiB
    (60, 0, 0x7EFF00000000, 4 << 20, 2, 1),     # GPU 0: free of a block allocated before the trace (unmatched)
    (70, 1, 0x7F1000000000, 32 << 20, 2, 1),    # GPU 1: free the 32 MiB
    (80, 0, 0x7F0004200000, 128 << 20, 2, 1),   # GPU 0: free the 128 MiB
    (90, 1, 0x7F1003000000, 48 << 20, 2, 0),    # GPU 1: 48 MiB
    (95, 0, 0x7F0000200000, 96 << 20, 2, 1),    # GPU 0: free the 96 MiB
]


def build():
    real = sqlite3.connect("file:" + REAL + "?mode=ro", uri=True)
    if os.path.exists(OUT):
        os.remove(OUT)
    db = sqlite3.connect(OUT)
    db.execute("PRAGMA page_size = 512")
    db.execute("CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL)")
    db.executemany("INSERT INTO StringIds VALUES (?, ?)", [(1, "fill_kernel"), (2, "gemm_kernel")])
    for enum in ("ENUM_CUDA_MEM_KIND", "ENUM_CUDA_DEV_MEM_EVENT_OPER"):
        db.execute(real.execute("SELECT sql FROM sqlite_master WHERE name = ?", (enum,)).fetchone()[0])
        db.executemany(f"INSERT INTO {enum} VALUES (?, ?, ?)", real.execute(f"SELECT id, name, label FROM {enum}"))
    db.execute(real.execute("SELECT sql FROM sqlite_master WHERE name = 'CUPTI_ACTIVITY_KIND_KERNEL'").fetchone()[0])
    kernels = [(T0 + 12_000, T0 + 18_000, 0, 1, 1), (T0 + 27_000, T0 + 39_000, 0, 2, 2),
               (T0 + 22_000, T0 + 30_000, 1, 1, 3), (T0 + 52_000, T0 + 79_000, 0, 2, 4)]
    for start, end, dev, name, corr in kernels:
        db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, streamId, correlationId,"
                   " globalPid, demangledName, shortName, registersPerThread, gridX, gridY, gridZ, blockX, blockY,"
                   " blockZ, staticSharedMemory, dynamicSharedMemory, localMemoryPerThread, localMemoryTotal, gridId)"
                   " VALUES (?, ?, ?, 1, 7, ?, ?, ?, ?, 32, 64, 1, 1, 256, 1, 1, 0, 0, 0, 0, ?)",
                   (start, end, dev, corr, GPID, name, name, corr))
    db.execute(MEMORY_USAGE)
    for i, (us, dev, addr, size, kind, op) in enumerate(ROWS):
        db.execute("INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS (start, globalPid, deviceId, contextId, address, pc,"
                   " bytes, memKind, memoryOperationType, name, correlationId, streamId) VALUES"
                   " (?, ?, ?, 1, ?, 0, ?, ?, ?, NULL, ?, 7)",
                   (T0 + us * 1000, GPID, dev, addr, size, kind, op, 100 + i))
    db.commit()
    db.execute("VACUUM")
    db.close()


def replay():
    db = sqlite3.connect("file:" + OUT + "?mode=ro", uri=True)
    kinds = {i: n for i, n in db.execute("SELECT id, name FROM ENUM_CUDA_MEM_KIND")}
    ops = {i: n for i, n in db.execute("SELECT id, name FROM ENUM_CUDA_DEV_MEM_EVENT_OPER")}
    device_kinds = ("_KIND_DEVICE", "_KIND_ARRAY", "_KIND_DEVICE_STATIC")
    live, total, curves, unmatched, other = {}, {}, {}, 0, 0
    for start, dev, addr, size, kind, op in db.execute(
            "SELECT start, deviceId, address, bytes, memKind, memoryOperationType FROM CUDA_GPU_MEMORY_USAGE_EVENTS"
            " ORDER BY start, rowid"):
        if not kinds.get(kind, "").endswith(device_kinds):
            other += 1
            continue
        if ops[op].endswith("_DEALLOCATION"):
            if addr not in live:
                unmatched += 1
                continue
            d, b = live.pop(addr)
            total[d] -= b
            curves.setdefault(d, []).append((start, -b, total[d]))
        else:
            if addr in live:
                d, b = live.pop(addr)
                total[d] -= b
            live[addr] = (dev, size)
            total[dev] = total.get(dev, 0) + size
            curves.setdefault(dev, []).append((start, size, total[dev]))
    print(f"rows of other memory kinds: {other}; unmatched frees: {unmatched}")
    for dev in sorted(curves):
        c = curves[dev]
        peak = max(range(len(c)), key=lambda i: (c[i][2], -i))
        print(f"cuda:{dev}: {len(c)} events, peak {c[peak][2]} B at {c[peak][0]} ns, final {c[-1][2]} B, "
              f"sum of the curve {sum(e[2] for e in c)} B, allocated values {[e[2] for e in c]}")


if __name__ == "__main__":
    if "--replay" not in sys.argv:
        build()
    replay()

#!/usr/bin/python3
"""Python's sqlite3 module doing the floor's read (bench/tool_sqlite_floor.cpp): the same tables and columns as
Strobe's reader of FORMAT, every row fetched, integers summed, text summed by length, nothing stored. Prints one line
like strobe-sqlite-floor's: FORMAT rows=N sum=S seconds=T MBps=M (interpreter start-up excluded).

Usage: /usr/bin/python3 bench/read_sqlite_python.py nsys|rocpd|rpd FILE
"""
import os
import sqlite3
import sys
import time

READS = {
    "nsys": [
        ("StringIds", "id value"),
        ("CUPTI_ACTIVITY_KIND_KERNEL", "start end globalPid deviceId streamId correlationId demangledName shortName "
         "mangledName registersPerThread gridX gridY gridZ blockX blockY blockZ staticSharedMemory "
         "dynamicSharedMemory"),
        ("CUPTI_ACTIVITY_KIND_MEMCPY", "start end globalPid deviceId streamId correlationId bytes copyKind"),
        ("CUPTI_ACTIVITY_KIND_MEMSET", "start end globalPid deviceId streamId correlationId bytes memKind"),
        ("CUPTI_ACTIVITY_KIND_RUNTIME", "start end globalTid correlationId nameId"),
        ("NVTX_EVENTS", "start end eventType text textId globalTid"),
    ],
    "rocpd": [
        ("rocpd_string_", "id string"),
        ("rocpd_event_", "id correlation_id category_id"),
        ("rocpd_info_kernel_symbol_", "id kernel_name display_name arch_vgpr_count"),
        ("rocpd_kernel_dispatch_", "pid agent_id kernel_id dispatch_id queue_id start end group_segment_size "
         "workgroup_size_x workgroup_size_y workgroup_size_z grid_size_x grid_size_y grid_size_z event_id"),
        ("rocpd_memory_copy_", "pid start end name_id dst_agent_id src_agent_id size queue_id event_id"),
        ("rocpd_region_", "pid tid start end name_id event_id"),
        ("rocpd_pmc_event_", "event_id pmc_id value"),
    ],
    "rpd": [
        ("rocpd_string", "id string"),
        ("rocpd_api_ops", "api_id op_id"),
        ("rocpd_kernelapi", "api_ptr_id gridX gridY gridZ workgroupX workgroupY workgroupZ groupSegmentSize "
         "kernelName_id"),
        ("rocpd_copyapi", "api_ptr_id size"),
        ("rocpd_api", "id pid tid start end apiName_id args_id"),
        ("rocpd_op", "id gpuId queueId start end description_id opType_id"),
        ("rocpd_monitor", "deviceId monitorType start value"),
    ],
}


def resolve(tables, name):
    bare = name.rstrip("_")
    if bare in tables:
        return bare
    if name.endswith("_"):
        for t in sorted(tables):
            if t.startswith(name):
                return t
    return None


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in READS:
        sys.exit(__doc__)
    fmt, path = sys.argv[1], sys.argv[2]
    t0 = time.perf_counter()
    db = sqlite3.connect("file:" + path + "?mode=ro&immutable=1", uri=True)
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type IN ('table','view')")}
    rows = total = 0
    for name, cols in READS[fmt]:
        table = resolve(tables, name)
        if table is None:
            continue
        have = {r[1] for r in db.execute(f'PRAGMA table_info("{table}")')}
        use = [c for c in cols.split() if c in have]
        for row in db.execute(f'SELECT {", ".join(chr(34) + c + chr(34) for c in use)} FROM "{table}"'):
            rows += 1
            for v in row:
                if isinstance(v, str):
                    total += len(v)
                elif v is not None:
                    total += int(v)
    secs = time.perf_counter() - t0
    print(f"{fmt} rows={rows} sum={total & (2**64 - 1)} seconds={secs:.3f} "
          f"MBps={os.path.getsize(path) / 1e6 / secs:.1f}")


main()

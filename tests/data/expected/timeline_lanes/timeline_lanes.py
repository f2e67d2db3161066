#!/usr/bin/python3
"""Expected lanes, names and range of the GPU timeline on two real sources, computed with Python's json/gzip/sqlite3
only (no Strobe code). Run from the repository root:

    /usr/bin/python3 tests/data/expected/timeline_lanes/timeline_lanes.py > tests/data/expected/timeline_lanes/expected.json

rocprofv3 (tests/data/rocprof/tracelens_908_results.json.gz, 8 MI350X, kernel dispatches only):
  lanes by (agent, HSA queue) and by (agent, HIP stream); timestamp overlaps between consecutive dispatches of one
  lane of at most 1000 ns are tolerated (counted, largest kept); longer ones would need sub-lanes.
nsys (tests/data/sqlite/nsys_cloverleaf_a100.sqlite): the session's first and last event of the CUDA process (kernels,
  memcpy, memset, CUDA runtime, OS runtime calls), and the names of its threads that hold CPU rows.
Kineto (tests/data/kineto/hta/trace_filter/sampled_rank-0.json.gz): per CPU thread (pid, tid) holding X events of a CPU
  category, its process's process_name and its thread_name (metadata events, "" when none).
"""
import collections
import gzip
import json
import sqlite3
import sys


def lanes(groups, tolerance):
    """Per group: items sorted by start, packed like an in-order queue: a new sub-lane only for an overlap > tolerance."""
    tolerated, largest, sublanes = 0, 0, 0
    for items in groups.values():
        items.sort()
        last_end = []
        for s, e in items:
            for k, le in enumerate(last_end):
                if le - tolerance <= s:
                    if le > s:
                        tolerated += 1
                        largest = max(largest, le - s)
                    last_end[k] = max(le, e)
                    break
            else:
                last_end.append(e)
        sublanes += len(last_end)
    return {"lanes": len(groups), "sublanes": sublanes, "tolerated": tolerated, "largest_ns": largest}


def rocprof(path):
    tool = json.load(gzip.open(path, "rt"))["rocprofiler-sdk-tool"][0]
    by_queue, by_stream = collections.defaultdict(list), collections.defaultdict(list)
    for r in tool["buffer_records"]["kernel_dispatch"]:
        info = r["dispatch_info"]
        agent = info["agent_id"]["handle"]
        item = (r["start_timestamp"], r["end_timestamp"])
        by_queue[(agent, info["queue_id"]["handle"])].append(item)
        by_stream[(agent, r["stream_id"]["handle"])].append(item)
    return {"by_queue": lanes(by_queue, 1000), "by_stream": lanes(by_stream, 1000),
            "by_queue_no_tolerance": lanes({k: list(v) for k, v in by_queue.items()}, 0)}


def nsys(path):
    db = sqlite3.connect(path)
    pid_of = lambda g: (g >> 24) & 0xFFFFFF
    first, last, pids = None, None, set()
    rows = []
    for table, owner in (("CUPTI_ACTIVITY_KIND_KERNEL", "globalPid"), ("CUPTI_ACTIVITY_KIND_MEMCPY", "globalPid"),
                         ("CUPTI_ACTIVITY_KIND_MEMSET", "globalPid"), ("CUPTI_ACTIVITY_KIND_RUNTIME", "globalTid")):
        try:
            rows += [(table, o, s, e) for o, s, e in db.execute(f"select {owner}, start, end from {table}")]
        except sqlite3.OperationalError:
            pass
    pids = {pid_of(o) for _, o, _, _ in rows}
    rows += [("OSRT_API", o, s, e) for o, s, e in db.execute("select globalTid, start, end from OSRT_API")
             if pid_of(o) in pids]
    first = min(s for _, _, s, _ in rows)
    last = max(e for _, _, _, e in rows)
    first_kernel = min(s for t, _, s, _ in rows if t == "CUPTI_ACTIVITY_KIND_KERNEL")
    cpu_tids = {o for t, o, _, _ in rows if t in ("CUPTI_ACTIVITY_KIND_RUNTIME", "OSRT_API")}
    names = dict(db.execute("select t.globalTid, s.value from ThreadNames t join StringIds s on s.id = t.nameId"))
    procs = {pid_of(g): n for g, n in db.execute("select globalPid, name from PROCESSES")}
    return {"first_event_ns": first, "last_end_ns": last, "first_kernel_ns": first_kernel,
            "osrt_rows": sum(1 for t, *_ in rows if t == "OSRT_API"),
            "process": sorted(procs[p] for p in pids),
            "thread_names": sorted({names[t] for t in cpu_tids if t in names}),
            "cpu_threads": len(cpu_tids)}


def kineto(path):
    events = json.load(gzip.open(path, "rt"))["traceEvents"]
    cpu = {"cpu_op", "user_annotation", "python_function", "cuda_runtime", "cuda_driver", "Operator", "Runtime"}
    procs = {e["pid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "process_name"}
    threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in events
               if e.get("ph") == "M" and e.get("name") == "thread_name"}
    held = sorted({(e["pid"], e["tid"]) for e in events if e.get("ph") == "X" and e.get("cat") in cpu})
    return {"threads": [{"pid": p, "tid": t, "process_name": procs.get(p, ""), "thread_name": threads.get((p, t), "")}
                        for p, t in held]}


json.dump({"rocprofv3_908": rocprof("tests/data/rocprof/tracelens_908_results.json.gz"),
           "nsys_cloverleaf": nsys("tests/data/sqlite/nsys_cloverleaf_a100.sqlite"),
           "kineto_sampled": kineto("tests/data/kineto/hta/trace_filter/sampled_rank-0.json.gz")}, sys.stdout, indent=1)
print()

# Independent facts for the critical path on SQLite sources (issue 26: rocpd, RPD and nsys exports "where the links
# exist"), read with Python's sqlite3 alone:
#   /usr/bin/python3 tests/data/expected/critical_path/sqlite_facts.py > tests/data/expected/critical_path/sqlite_facts.json
# Per file: every GPU activity (kernel, copy, fill) as [start_ns, end_ns, launch_start_ns], the launch being the API
# call that the DB's correlation names (rocpd: the region whose rocpd_event has the dispatch's event's
# correlation_id; RPD: rocpd_api_ops api_id -> op_id; nsys: CUPTI_ACTIVITY_KIND_RUNTIME.correlationId), or null;
# the number of API calls with a duration (the graph's CPU events), how many activities have a launching call, and
# the wall span of the graph's events (API calls with a duration and every GPU activity): the strobe path's length
# when every activity is linked (the return of a blocking call after the GPU work it waited for included).
# blocking_return_ns (RPD and nsys_fuser_h200 only: one stream, each blocking call waiting for one known activity):
# the sum over the blocking calls (hipMemcpyWithStream; cudaMemcpy, cuda*Synchronize) of call end - max(end of the
# awaited activity, call start), clamped at 0; the awaited activity: the call's own copy through the DB's link
# (rocpd_api_ops, correlationId), for a synchronize the latest activity that ended by the call's end. (Left out for
# nsys_cloverleaf_a100, whose cudaDeviceSynchronize calls wait for several streams, and rocpd_doc_sample.db.)
import json
import os
import sqlite3

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "sqlite")
BLOCKING_RETURN = {}


def rocpd(path):
    c = sqlite3.connect(path)
    strings = dict(c.execute("select id, string from rocpd_string"))
    events = {i: (corr, cat) for i, corr, cat in c.execute("select id, correlation_id, category_id from rocpd_event")}
    calls = {}
    n_calls = 0
    spans = []
    for start, end, ev in c.execute("select start, end, event_id from rocpd_region"):
        corr, cat = events.get(ev, (None, None))
        name = strings.get(cat, "")
        if "MARKER" in name or not any(k in name for k in ("HIP", "HSA", "RCCL")) or end <= start:
            continue
        n_calls += 1
        spans.append((start, end))
        if corr is not None:
            calls[corr] = start  # several share an id: the last one wins, as the loaders do
    acts = []
    for table in ("rocpd_kernel_dispatch", "rocpd_memory_copy"):
        for start, end, ev in c.execute(f"select start, end, event_id from {table}"):
            corr = events.get(ev, (None, None))[0]
            acts.append([start, end, calls.get(corr)])
    return n_calls, spans, acts


def rpd(path):
    c = sqlite3.connect(path)
    strings = dict(c.execute("select id, string from rocpd_string"))
    calls = {}
    n_calls = 0
    spans = []
    for i, start, end, name_id in c.execute("select id, start, end, apiName_id from rocpd_api"):
        name = strings.get(name_id, "")
        if not name.startswith(("hip", "hsa")) or end <= start:
            continue
        n_calls += 1
        spans.append((start, end))
        calls[i] = start
    api_of = {op: api for api, op in c.execute("select api_id, op_id from rocpd_api_ops")}
    acts = [[s, e, calls.get(api_of.get(i))] for i, s, e in c.execute("select id, start, end from rocpd_op")]
    own_end = {}  # api id -> its ops' latest end
    for i, s, e in c.execute("select id, start, end from rocpd_op"):
        if api_of.get(i) is not None:
            own_end[api_of[i]] = max(e, own_end.get(api_of[i], e))
    returns = 0
    for i, start, end, name_id in c.execute("select id, start, end, apiName_id from rocpd_api"):
        if strings.get(name_id, "") == "hipMemcpyWithStream" and i in own_end:
            returns += max(0, end - max(own_end[i], start))
    BLOCKING_RETURN[os.path.basename(path)] = returns
    return n_calls, spans, acts


def nsys(path):
    c = sqlite3.connect(path)
    calls = {}
    n_calls = 0
    spans = []
    for start, end, corr in c.execute("select start, end, correlationId from CUPTI_ACTIVITY_KIND_RUNTIME"):
        if end <= start:
            continue
        n_calls += 1
        spans.append((start, end))
        calls[corr] = start
    acts = []
    for table in ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"):
        if not c.execute("select 1 from sqlite_master where name = ?", (table,)).fetchone():
            continue
        for start, end, corr in c.execute(f"select start, end, correlationId from {table}"):
            acts.append([start, end, calls.get(corr)])
    if os.path.basename(path) == "nsys_fuser_h200.sqlite":
        names = dict(c.execute("select id, value from StringIds"))
        own_end = {}
        for a_start, a_end, corr in nsys_activities(c):
            own_end[corr] = max(a_end, own_end.get(corr, a_end))
        ends = sorted(e for _, e, _ in nsys_activities(c))
        returns = 0
        for start, end, corr, name_id in c.execute(
                "select start, end, correlationId, nameId from CUPTI_ACTIVITY_KIND_RUNTIME"):
            name = names[name_id].split("_v")[0]
            if name == "cudaMemcpy" and corr in own_end:
                awaited = own_end[corr]
            elif name in ("cudaDeviceSynchronize", "cudaStreamSynchronize") and ends and ends[0] <= end:
                awaited = max(e for e in ends if e <= end)
            else:
                continue
            returns += max(0, end - max(awaited, start))
        BLOCKING_RETURN[os.path.basename(path)] = returns
    return n_calls, spans, acts


def nsys_activities(c):
    for table in ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"):
        if c.execute("select 1 from sqlite_master where name = ?", (table,)).fetchone():
            yield from c.execute(f"select start, end, correlationId from {table}")


out = {}
for name, reader in (("rocpd_doc_sample.db", rocpd), ("rpd_matmul.rpd", rpd), ("nsys_fuser_h200.sqlite", nsys),
                     ("nsys_cloverleaf_a100.sqlite", nsys)):
    n_calls, spans, acts = reader(os.path.join(ROOT, name))
    acts.sort()
    every = spans + [(a[0], a[1]) for a in acts]
    out[name] = {
        "api_calls": n_calls,
        "gpu_activities": len(acts),
        "linked": sum(1 for a in acts if a[2] is not None),
        "span_ns": max(e for _, e in every) - min(s for s, _ in every),
        "activities": acts,
    }
    if name in BLOCKING_RETURN:
        out[name]["blocking_return_ns"] = BLOCKING_RETURN[name]
print(json.dumps(out, indent=None, separators=(",", ":")))

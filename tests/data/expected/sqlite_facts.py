#!/usr/bin/python3
"""Facts of the SQLite samples under ../sqlite, computed with Python's sqlite3 module (no Strobe code).

Usage: /usr/bin/python3 sqlite_facts.py > sqlite_facts.json

nsys exports: per process (pid = (globalPid >> 24) & 0xFFFFFF) the CUDA kernels (count, sum of end-start, distinct
names preferring demangledName, then shortName, then mangledName), memcpy and memset (count, sum of bytes),
runtime calls, NVTX push/pop + start/end ranges with an end, NVTX marks, and how many kernels/memcpy/memset have a
runtime call of the same process with the same correlationId; the GPU names of TARGET_INFO_GPU by id; the product
version of META_DATA_EXPORT; the session start epoch.

rocprof v1: kernel count and duration sum of results.csv (csv module) and of results.db (sqlite3).

RPD: ops per opType, kernels (opType KernelExecution), their duration sum, API calls, ops linked to an API call
by rocpd_api_ops, copy bytes (rocpd_copyapi.size through rocpd_api_ops), monitor samples.

rocprof-compute: dispatches, their duration sum, distinct kernel names, non-NULL metric values, the value of
metric 'VALU FLOPs' (2.1.0) 'Peak' of the first dispatched kernel that has it, the GPU model.
"""
import json
import os
import sqlite3

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "sqlite")


def connect(name):
    return sqlite3.connect("file:" + os.path.join(DATA, name) + "?mode=ro", uri=True)


def tables(db):
    return {r[0] for r in db.execute("select name from sqlite_master where type in ('table','view')")}


def nsys(name):
    db = connect(name)
    t = tables(db)
    strings = dict(db.execute("select id, value from StringIds"))
    procs = {}

    def proc(pid):
        return procs.setdefault(pid, {"kernels": 0, "kernel_dur_ns": 0, "kernel_names": set(), "memcpy": 0,
                                      "memcpy_bytes": 0, "memset": 0, "memset_bytes": 0, "runtime": 0,
                                      "nvtx_ranges": 0, "nvtx_marks": 0, "linked": 0})

    runtime_corr = set()
    for start, end, gtid, corr in db.execute("select start, end, globalTid, correlationId from "
                                             "CUPTI_ACTIVITY_KIND_RUNTIME"):
        pid = (gtid >> 24) & 0xFFFFFF
        proc(pid)["runtime"] += 1
        runtime_corr.add((pid, corr))
    for start, end, gpid, corr, dem, short, mangled in db.execute(
            "select start, end, globalPid, correlationId, demangledName, shortName, mangledName "
            "from CUPTI_ACTIVITY_KIND_KERNEL"):
        pid = (gpid >> 24) & 0xFFFFFF
        p = proc(pid)
        p["kernels"] += 1
        p["kernel_dur_ns"] += end - start
        for sid in (dem, short, mangled):
            if sid in strings:
                p["kernel_names"].add(strings[sid])
                break
        p["linked"] += (pid, corr) in runtime_corr
    for table, key in (("CUPTI_ACTIVITY_KIND_MEMCPY", "memcpy"), ("CUPTI_ACTIVITY_KIND_MEMSET", "memset")):
        if table not in t:
            continue
        for gpid, nbytes, corr in db.execute(f"select globalPid, bytes, correlationId from {table}"):
            pid = (gpid >> 24) & 0xFFFFFF
            p = proc(pid)
            p[key] += 1
            p[key + "_bytes"] += nbytes
            p["linked"] += (pid, corr) in runtime_corr
    if "NVTX_EVENTS" in t:
        types = dict(db.execute("select id, name from ENUM_NSYS_EVENT_TYPE"))
        for start, end, et, gtid in db.execute("select start, end, eventType, globalTid from NVTX_EVENTS"):
            pid = (gtid >> 24) & 0xFFFFFF
            kind = types.get(et)
            if kind in ("NvtxPushPopRange", "NvtxStartEndRange") and end is not None:
                proc(pid)["nvtx_ranges"] += 1
            elif kind == "NvtxMark":
                proc(pid)["nvtx_marks"] += 1
    for p in procs.values():
        p["kernel_names"] = len(p["kernel_names"])
    meta = dict(db.execute("select name, value from META_DATA_EXPORT"))
    return {
        "processes": {str(k): v for k, v in sorted(procs.items())},
        "gpus": [r[0] for r in db.execute("select name from TARGET_INFO_GPU order by id")],
        "tool_version": meta.get("EXPORT_PRODUCT_VERSION", ""),
        "session_start_ns": db.execute("select utcEpochNs from TARGET_INFO_SESSION_START_TIME").fetchone()[0],
    }


def rpd(name):
    db = connect(name)
    s = dict(db.execute("select id, string from rocpd_string"))
    by_type = {}
    kernels = kernel_dur = 0
    for op_type, start, end in db.execute("select opType_id, start, end from rocpd_op"):
        ty = s[op_type]
        by_type[ty] = by_type.get(ty, 0) + 1
        if ty == "KernelExecution":
            kernels += 1
            kernel_dur += end - start
    linked = db.execute("select count(distinct op_id) from rocpd_api_ops").fetchone()[0]
    copy_bytes = db.execute("select coalesce(sum(c.size), 0) from rocpd_api_ops ao join rocpd_copyapi c "
                            "on c.api_ptr_id = ao.api_id").fetchone()[0]
    return {
        "ops_by_type": by_type,
        "kernels": kernels,
        "kernel_dur_ns": kernel_dur,
        "api_calls": db.execute("select count(*) from rocpd_api").fetchone()[0],
        "linked_ops": linked,
        "copy_bytes": copy_bytes,
        "monitor_samples": db.execute("select count(*) from rocpd_monitor").fetchone()[0],
    }


def rocprof_compute(name):
    db = connect(name)
    dispatches, dur = db.execute("select count(*), sum(end_timestamp - start_timestamp) "
                                 "from compute_dispatch").fetchone()
    names = db.execute("select count(distinct k.kernel_name) from compute_dispatch d join compute_kernel k "
                       "on k.kernel_uuid = d.kernel_uuid").fetchone()[0]
    values = db.execute("select count(*) from compute_kernel_metric_value v where v.value is not null and "
                        "v.kernel_uuid in (select kernel_uuid from compute_dispatch)").fetchone()[0]
    first = db.execute("select kernel_uuid from compute_dispatch where kernel_uuid in (select v.kernel_uuid from "
                       "compute_kernel_metric_value v join compute_metric_definition m on m.metric_uuid = "
                       "v.metric_uuid where m.metric_id = '2.1.0' and v.value_name = 'Peak') "
                       "order by start_timestamp limit 1").fetchone()[0]
    peak = db.execute("select v.value from compute_kernel_metric_value v join compute_metric_definition m on "
                      "m.metric_uuid = v.metric_uuid where m.metric_id = '2.1.0' and v.value_name = 'Peak' and "
                      "v.kernel_uuid = ?", (first,)).fetchone()[0]
    first_name = db.execute("select kernel_name from compute_kernel where kernel_uuid = ?", (first,)).fetchone()[0]
    sysinfo = json.loads(db.execute("select sys_info_extdata from compute_workload").fetchone()[0])
    return {
        "dispatches": dispatches,
        "kernel_dur_ns": dur,
        "kernel_names": names,
        "metric_values": values,
        "valu_flops_peak_kernel": first_name,
        "valu_flops_peak": peak,
        "gpu_model": sysinfo.get("gpu_model", ""),
    }


def rocpd(name):
    """rocpd (schema 3, our own sample in the documented layout): read through the un-suffixed views, and the
    UUID-suffixed tables where the sample has no view (PMC)."""
    db = connect(name)
    suffixed = {r[0] for r in db.execute("select name from sqlite_master where type = 'table'")}

    def t(base):
        return base if base in tables(db) else next(n for n in sorted(suffixed) if n.startswith(base + "_"))

    kernels, dur = db.execute("select count(*), sum(\"end\" - start) from rocpd_kernel_dispatch").fetchone()
    copies, nbytes = db.execute("select count(*), sum(size) from rocpd_memory_copy").fetchone()
    cats = dict(db.execute("select id, string from rocpd_string"))
    regions = markers = 0
    api_corr = set()
    for cat, corr in db.execute("select e.category_id, e.correlation_id from rocpd_region r "
                                "join rocpd_event e on e.id = r.event_id"):
        regions += 1
        if "MARKER" in cats[cat]:
            markers += 1
        else:
            api_corr.add(corr)
    linked = sum(1 for (c,) in db.execute(
        "select e.correlation_id from rocpd_kernel_dispatch k join rocpd_event e on e.id = k.event_id "
        "union all select e.correlation_id from rocpd_memory_copy m join rocpd_event e on e.id = m.event_id")
        if c in api_corr)
    pmc = db.execute(f'select count(*) from "{t("rocpd_pmc_event")}"').fetchone()[0]
    # SQ_WAVES of the dispatch with dispatch_id 3
    sq = db.execute(f'select p.value from "{t("rocpd_pmc_event")}" p join "{t("rocpd_info_pmc")}" i '
                    f'on i.id = p.pmc_id join rocpd_kernel_dispatch k on k.event_id = p.event_id '
                    f"where i.name = 'SQ_WAVES' and k.dispatch_id = 3").fetchone()[0]
    return {"kernels": kernels, "kernel_dur_ns": dur, "memcpy": copies, "memcpy_bytes": nbytes,
            "regions": regions, "markers": markers, "linked": linked, "pmc_values": pmc,
            "sq_waves_dispatch_3": sq,
            "pid": db.execute("select pid from rocpd_info_process").fetchone()[0],
            "gpu": db.execute("select product_name from rocpd_info_agent where type = 'GPU'").fetchone()[0]}


def rocprof_v1(folder):
    """rocprof v1 results.db, checked against the results.csv of the same run (Python's csv module)."""
    import csv
    with open(os.path.join(DATA, folder, "results.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    db = connect(folder + "/results.db")
    db_count, db_dur = db.execute('select count(*), sum("EndNs" - "BeginNs") from KERN').fetchone()
    return {"csv_kernels": len(rows), "csv_dur_ns": sum(int(r["EndNs"]) - int(r["BeginNs"]) for r in rows),
            "db_kernels": db_count, "db_dur_ns": db_dur, "kernel_names": len({r["KernelName"] for r in rows}),
            "pid": int(rows[0]["pid"])}


facts = {
    "rocprof_v1": rocprof_v1("rocprof_v1"),
    "rocpd_doc_sample.db": rocpd("rocpd_doc_sample.db"),
    "nsys_cloverleaf_a100.sqlite": nsys("nsys_cloverleaf_a100.sqlite"),
    "nsys_fuser_h200.sqlite": nsys("nsys_fuser_h200.sqlite"),
    "rpd_matmul.rpd": rpd("rpd_matmul.rpd"),
    "rocprof_compute_mi350.db": rocprof_compute("rocprof_compute_mi350.db"),
}
print(json.dumps(facts, indent=1, sort_keys=True))

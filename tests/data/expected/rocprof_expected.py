#!/usr/bin/python3
"""Expected values for the rocprof loaders' tests, computed with Python's csv/json/gzip modules only.

Run from tests/data:  /usr/bin/python3 expected/rocprof_expected.py > expected/rocprof_expected.json
"""
import csv
import gzip
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.dirname(HERE)


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def docs():
    d = os.path.join(DATA, "rocprof", "docs-2025")
    # The files of prefix "" (rocprofv3 names: <prefix>_<domain>.csv; these have no prefix). rocpd-to-csv.csv has no
    # known domain suffix: its own group.
    kt = rows(os.path.join(d, "kernel_trace.csv"))
    dispatch = {r["Dispatch_Id"] for r in kt}
    counter_rows = rows(os.path.join(d, "counter_collection.csv")) + rows(os.path.join(d, "kernel_names.csv"))
    matched = [r for r in counter_rows if r["Dispatch_Id"] in dispatch]
    api = 0
    for n in ("hip_runtime_trace.csv", "hip_trace.csv", "hsa_core_api_trace.csv", "marker_api_trace.csv",
              "rccl_trace.csv", "memory_allocation_trace.csv", "scratch_memory_trace.csv"):
        api += len(rows(os.path.join(d, n)))
    copies = rows(os.path.join(d, "memory_copy_trace.csv"))
    return {
        "kernels": len(kt),
        "kernel_ns": sum(int(r["End_Timestamp"]) - int(r["Start_Timestamp"]) for r in kt),
        "distinct_kernel_names": len({r["Kernel_Name"] for r in kt}),
        "counter_rows": len(counter_rows),
        "counter_matched": len(matched),
        "counter_sum_matched": sum(float(r["Counter_Value"]) for r in matched),
        "memcpy": len(copies),
        "memcpy_ns": sum(int(r["End_Timestamp"]) - int(r["Start_Timestamp"]) for r in copies),
        "slices": api,
        "rocpd_to_csv_rows": len(rows(os.path.join(d, "rocpd-to-csv.csv"))),
    }


def tracelens():
    with gzip.open(os.path.join(DATA, "rocprof", "tracelens_908_results.json.gz")) as f:
        t = json.load(f)["rocprofiler-sdk-tool"]
    out = []
    for proc in t:
        gpus = [a for a in proc["agents"] if a["type"] == 2]
        ks = proc["buffer_records"]["kernel_dispatch"]
        devices = {}
        for a in gpus:
            devices[a["id"]["handle"]] = a["gpu_index"]
        per_dev = {}
        for k in ks:
            dev = devices[k["dispatch_info"]["agent_id"]["handle"]]
            per_dev[dev] = per_dev.get(dev, 0) + 1
        out.append({
            "pid": proc["metadata"]["pid"],
            "gpus": len(gpus),
            "gpu_name": gpus[0]["product_name"],
            "kernels": len(ks),
            "kernel_ns": sum(k["end_timestamp"] - k["start_timestamp"] for k in ks),
            "kernels_on_device_0": per_dev.get(0, 0),
            "first_start": min(k["start_timestamp"] for k in ks),
            "last_end": max(k["end_timestamp"] for k in ks),
        })
    return out


def xr():
    d = os.path.join(DATA, "rocprof", "seismic_128x64.xr")
    res = rows(os.path.join(d, "results.csv"))
    dm = rows(os.path.join(d, "data_movement.csv"))
    # The counter pass joins by (kernel name, gpu-id, instance index of that name on that gpu).
    inst = {}
    trace_keys = {}
    for r in res:
        k = (r["KernelName"], r["gpu-id"])
        trace_keys[k] = trace_keys.get(k, 0) + 1
    matched = 0
    fetch_first = None
    for r in dm:
        k = (r["KernelName"], r["gpu-id"])
        i = inst.get(k, 0)
        inst[k] = i + 1
        if i < trace_keys.get(k, 0):
            matched += 1
            if fetch_first is None:
                fetch_first = float(r["FETCH_SIZE"])
    counters = [c for c in dm[0].keys() if c not in res[0].keys()]
    return {
        "kernels": len(res),
        "kernel_ns": sum(int(r["EndNs"]) - int(r["BeginNs"]) for r in res),
        "duration_ns_column_sum": sum(int(r["DurationNs"]) for r in res),
        "counter_names": counters,
        "counter_pass_rows": len(dm),
        "counter_pass_matched": matched,
        "counter_values": matched * len(counters),
        "first_fetch_size": fetch_first,
        "first_kernel": res[0]["KernelName"],
        "cmd": open(os.path.join(d, "cmd")).read().splitlines()[0],
    }


print(json.dumps({"docs_2025": docs(), "tracelens_908": tracelens(), "seismic_xr": xr()}, indent=1))

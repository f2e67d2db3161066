#!/usr/bin/python3
"""Writes the seeds of the sqlite_formats fuzz target (tests/fuzz/seeds/sqlite_formats/) from the samples in
tests/data/sqlite: reduced copies (a few rows of each table the loaders read, page size 512, vacuumed) so that
each seed stays under the fuzzer's 256 KiB input limit. The first byte of a seed selects the loader
(0 nsys, 1 RPD, 2 rocprof-compute, 3 rocpd; see fuzz_sqlite_formats.cpp).

Usage: /usr/bin/python3 tests/fuzz/make_sqlite_seeds.py
"""
import os
import sqlite3
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "tests", "data", "sqlite")
OUT = os.path.join(ROOT, "tests", "fuzz", "seeds", "sqlite_formats")


def reduce(src, tables, limit):
    """A copy of `tables` of src (first `limit` rows each; StringIds-like tables whole) as bytes."""
    fd, tmp = tempfile.mkstemp(suffix=".db")
    os.close(fd)
    os.remove(tmp)
    dst = sqlite3.connect(tmp)
    dst.execute("PRAGMA page_size = 512")
    dst.execute("ATTACH DATABASE ? AS src", ("file:" + src + "?mode=ro",))
    for name, rows in tables.items():
        sql = dst.execute("SELECT sql FROM src.sqlite_master WHERE name = ?", (name,)).fetchone()
        if not sql:
            continue
        dst.execute(sql[0])
        n = limit if rows is None else rows
        dst.execute(f'INSERT INTO main."{name}" SELECT * FROM src."{name}" LIMIT {n}')
    dst.commit()
    dst.execute("DETACH DATABASE src")
    dst.execute("VACUUM")
    dst.close()
    with open(tmp, "rb") as f:
        data = f.read()
    os.remove(tmp)
    return data


def main():
    os.makedirs(OUT, exist_ok=True)
    nsys_tables = {"StringIds": None, "CUPTI_ACTIVITY_KIND_KERNEL": None, "CUPTI_ACTIVITY_KIND_MEMCPY": None,
                   "CUPTI_ACTIVITY_KIND_MEMSET": None, "CUPTI_ACTIVITY_KIND_RUNTIME": None, "NVTX_EVENTS": None,
                   "TARGET_INFO_GPU": None, "TARGET_INFO_SESSION_START_TIME": None, "META_DATA_EXPORT": 4,
                   "PROCESSES": None, "ThreadNames": None, "ENUM_NSYS_EVENT_TYPE": 100}
    seeds = {
        "nsys_fuser.seed": (0, "nsys_fuser_h200.sqlite", nsys_tables, 12),
        "nsys_cloverleaf.seed": (0, "nsys_cloverleaf_a100.sqlite", nsys_tables, 12),
        # CUDA_GPU_MEMORY_USAGE_EVENTS (hand-built from the documented schema: make_nsys_memory_sample.py).
        "nsys_memory.seed": (0, "nsys_memory_usage.sqlite",
                             dict(nsys_tables, CUDA_GPU_MEMORY_USAGE_EVENTS=None, ENUM_CUDA_MEM_KIND=None,
                                  ENUM_CUDA_DEV_MEM_EVENT_OPER=None), 20),
        "rpd_matmul.seed": (1, "rpd_matmul.rpd",
                            {t: None for t in ("rocpd_string", "rocpd_op", "rocpd_api", "rocpd_api_ops",
                                               "rocpd_kernelapi", "rocpd_copyapi", "rocpd_monitor",
                                               "rocpd_metadata")}, 20),
        "rocprof_compute.seed": (2, "rocprof_compute_mi350.db",
                                 {"compute_workload": None, "compute_kernel": None, "compute_dispatch": None,
                                  "compute_metadata": None, "compute_metric_definition": None,
                                  "compute_kernel_metric_value": None}, 30),
    }
    with open(os.path.join(DATA, "rocpd_doc_sample.db"), "rb") as f:
        with open(os.path.join(OUT, "rocpd_doc.seed"), "wb") as o:
            o.write(bytes([3]) + f.read())
    for out, (selector, src, tables, limit) in seeds.items():
        data = reduce(os.path.join(DATA, src), tables, limit)
        with open(os.path.join(OUT, out), "wb") as f:
            f.write(bytes([selector]) + data)
        print(out, len(data) + 1)


main()

#!/usr/bin/python3
"""The strobe Python module against strobe-cli summary --json, on real traces of tests/data.

usage: test_strobe_module.py STROBE_CLI SOURCE_DIR   (ctest: python.strobe_module; PYTHONPATH holds the module)

For every source below (one of each reader's real files, and every real Kineto trace), each rank's kernel count and
kernel time computed in Python from the module's NumPy columns (kind == 'kernel') must equal summary --json's
ranks[].kernels (count, total_ns), and for Kineto files the count and sum of `kernel` events Python's json module
finds (kineto_facts.json); the module's SQL must
give the same; columns must be read-only views, not copies; a bad query raises ValueError naming the position.
"""
import json
import os
import subprocess
import sys

import numpy as np

import strobe

cli, root = sys.argv[1], sys.argv[2]
data = os.path.join(root, "tests", "data")
SOURCES = [
    os.path.join(root, "resources", "sample", "param-dlrm-8rank"),             # Kineto, 8 ranks, NVIDIA
    os.path.join(data, "kineto", "hta", "amd_trace"),                          # Kineto, AMD
    os.path.join(data, "sqlite", "nsys_cloverleaf_a100.sqlite"),               # nsys export
    os.path.join(data, "sqlite", "nsys_fuser_h200.sqlite"),                    # nsys export, H200
    os.path.join(data, "sqlite", "rpd_matmul.rpd"),                            # RPD
    os.path.join(data, "sqlite", "rocpd_doc_sample.db"),                       # rocpd
    os.path.join(data, "sqlite", "rocprof_compute_mi350.db"),                  # rocprof-compute
    os.path.join(data, "sqlite", "rocprof_v1"),                                # rocprof v1 results
    os.path.join(data, "rocprof", "docs-2025"),                                # rocprofv3 CSV
    os.path.join(data, "rocprof", "gfx1151-llamacpp-decode"),                  # rocprofv3, counters
    os.path.join(data, "rocprof", "seismic_128x64.xr"),                        # rocprof
]
# Every real Kineto trace of tests/data and the sample, one run each: their kernels are also checked against
# kineto_facts.json (Python's json module; tests/data/expected/kineto_facts.py).
with open(os.path.join(data, "expected", "kineto_facts.json")) as f:
    KINETO_FACTS = json.load(f)
for key in sorted(KINETO_FACTS):
    path = os.path.join(data, "kineto", key)
    if not os.path.exists(path):
        path = os.path.join(root, "resources", "sample", key)
    SOURCES.append(path)
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


for src in SOURCES:
    if not os.path.exists(src):
        check(False, f"missing test input {src}")
        continue
    summary = json.loads(subprocess.run([cli, "summary", "--json", src], check=True, capture_output=True,
                                        text=True).stdout)
    run = strobe.load(src)
    ranks = run.ranks
    check(len(ranks) == len(summary["ranks"]), f"{src}: {len(ranks)} ranks, summary has {len(summary['ranks'])}")
    for rank, want in zip(ranks, summary["ranks"]):
        k = rank.kernels
        kind = k["kind"]
        dur = k["dur_ns"]
        mask = np.asarray(kind == "kernel")
        n, total = int(mask.sum()), int(dur[mask].sum())
        check(rank.rank == want["rank"], f"{src}: rank {rank.rank} vs {want['rank']}")
        check(n == want["kernels"]["count"], f"{src} rank {rank.rank}: {n} kernels, summary {want['kernels']['count']}")
        check(total == want["kernels"]["total_ns"],
              f"{src} rank {rank.rank}: {total} ns, summary {want['kernels']['total_ns']}")
        check(not dur.flags.writeable and dur.base is not None, f"{src}: dur_ns is not a read-only view")
        check(len(k) == len(dur), f"{src}: len(kernels) {len(k)} != len(dur_ns) {len(dur)}")
        df = k.to_pandas()
        check(df.shape[0] == len(k) and "name" in df.columns, f"{src}: to_pandas shape {df.shape}")
        if len(k):
            check(str(df["name"].dtype) == "category", f"{src}: name is {df['name'].dtype}, not category")
        if len(ranks) == 1 and os.path.isfile(src):
            key = next((k for k in KINETO_FACTS if src.endswith(os.sep + k)), None)
            if key:
                import decimal
                fact = KINETO_FACTS[key]
                want_ns = int(decimal.Decimal(fact["kernel_dur_us_sum"]) * 1000)
                check((n, total) == (fact["kernels"], want_ns),
                      f"{key}: module {n} kernels / {total} ns, Python's json {fact['kernels']} / {want_ns}")
        q = run.query(f"SELECT count(*) AS n, coalesce(sum(dur_ns), 0) AS ns FROM kernels "
                      f"WHERE kind = 'kernel' AND rank = {rank.rank}")
        check((int(q["n"][0]), int(q["ns"][0])) == (n, total), f"{src} rank {rank.rank}: SQL {q.values.tolist()}")

# An analysis through the module is strobe-cli analyze's table: same columns, same values.
for name in ("temporal", "overlap", "kernel-types"):
    got = strobe.load(SOURCES[0]).analyze(name, window="hta")
    csv_text = subprocess.run([cli, "analyze", name, "--window", "hta", "--csv", "-", SOURCES[0]], check=True,
                              capture_output=True, text=True).stdout
    import io
    import pandas as pd
    want = pd.read_csv(io.StringIO(csv_text))
    check(list(got.columns) == list(want.columns), f"analyze {name}: columns {list(got.columns)}")
    check(got.equals(want), f"analyze {name}: values differ from strobe-cli analyze")
try:
    strobe.load(SOURCES[0]).analyze("no-such-analysis")
    check(False, "an unknown analysis did not raise")
except ValueError as e:
    check("temporal" in str(e), f"unknown analysis message: {e}")

# A view outlives the run object it came from (it keeps the data alive).
durs = strobe.load(SOURCES[0]).ranks[0].kernels["dur_ns"]
check(int(durs.sum()) > 0, "a column outliving its run")
try:
    strobe.load(SOURCES[0]).query("SELECT nme FROM kernels")
    check(False, "bad SQL did not raise")
except ValueError as e:
    check("byte 7" in str(e) and "nme" in str(e), f"bad SQL message: {e}")
try:
    strobe.load(os.path.join(data, "no-such-file.json"))
    check(False, "a missing file did not raise")
except RuntimeError as e:
    check("no-such-file.json" in str(e), f"missing file message: {e}")

print(f"{len(SOURCES)} sources checked, {len(failures)} failures")
sys.exit(1 if failures else 0)

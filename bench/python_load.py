#!/usr/bin/python3
"""Load + DataFrame of every kernel through the strobe module, beside `strobe-cli summary` (empty cache) of the same
file and Python's json.load (the floor of every Python tool), medians of REPEATS, in one run.

usage: PYTHONPATH=build/release/python /usr/bin/python3 bench/python_load.py TRACE.json STROBE_CLI [REPEATS] [HTA_SRC]
(make TRACE with build/release/bench/strobe-gen-kineto -o /tmp/t300.json --size 300M)

HTA_SRC, when given, is Holistic Trace Analysis' source tree (its commit f4d0062:
`git -C HolisticTraceAnalysis archive f4d0062 hta | tar -x -C HTA_SRC`), run with Debian's pandas: its
TraceAnalysis(trace_dir=...) load of the same file, timed once (it takes minutes) — what a notebook user waits for
today before the first DataFrame.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import strobe

trace, cli = sys.argv[1], sys.argv[2]
repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 3
hta_src = sys.argv[4] if len(sys.argv) > 4 else None


def timed(fn):
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def module_load():
    run = strobe.load(trace, cache=False)
    df = run.ranks[0].kernels.to_pandas()
    assert len(df) > 0


def cli_summary():
    with tempfile.TemporaryDirectory() as cache:
        subprocess.run([cli, "summary", trace], check=True, capture_output=True,
                       env=dict(os.environ, XDG_CACHE_HOME=cache))


def json_load():
    with open(trace, "rb") as f:
        json.load(f)


def hta_load():
    sys.path.insert(0, hta_src)
    import logging
    logging.disable(logging.WARNING)  # HTA logs every parse step
    from hta.trace_analysis import TraceAnalysis
    with tempfile.TemporaryDirectory() as d:
        os.symlink(os.path.abspath(trace), os.path.join(d, "rank0.json"))
        t = time.perf_counter()
        ta = TraceAnalysis(trace_dir=d)
        df = ta.t.get_trace(0)
        assert len(df) > 0
        return time.perf_counter() - t


mb = os.path.getsize(trace) / 1e6
rows = [("strobe.load(cache=False) + kernels.to_pandas()", timed(module_load)),
        ("strobe-cli summary, empty cache", timed(cli_summary)),
        ("json.load", timed(json_load))]
if hta_src:
    rows.append(("HTA TraceAnalysis(trace_dir) load, once", hta_load()))
print(f"{trace}: {mb:.0f} MB, medians of {repeats}")
for name, s in rows:
    print(f"| {name} | {s:.2f} s | {mb / s:.0f} MB/s | {s / rows[1][1]:.2f}× the summary |")

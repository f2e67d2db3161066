#!/usr/bin/python3
"""A notebook-shaped tour of the strobe Python module on the bundled 8-rank DLRM sample.

Run from the repository root after building the module (README, "Python"):
    PYTHONPATH=build/release/python /usr/bin/python3 docs/python_example.py
What it printed on 2026-12-02 is at the end of this file.
"""
import glob
import time

import strobe

t = time.perf_counter()
run = strobe.load("resources/sample/param-dlrm-8rank")
print(run, f"loaded in {time.perf_counter() - t:.3f} s")

# 1. Each rank's tables are read-only NumPy views of the loaded columns; names are pandas Categoricals.
r0 = run.ranks[0]
k = r0.kernels.to_pandas()
print(r0, "columns:", r0.kernels.columns)
kernels = k[k["kind"] == "kernel"]
print("rank 0: %d kernels, %.3f ms" % (len(kernels), kernels["dur_ns"].sum() / 1e6))

# 2. The top kernels by time, with pandas.
top = kernels.groupby("name", observed=True)["dur_ns"].agg(["count", "sum"]).sort_values("sum", ascending=False)
top.index = [name[:60] for name in top.index]  # kernel names run long
print(top.head(3).to_string())

# 3. The same engine as `strobe-cli query`: SQL over every rank, as a DataFrame.
per_rank = run.query("SELECT rank, count(*) AS kernels, sum(dur_ns) / 1e6 AS ms FROM kernels "
                     "WHERE kind = 'kernel' GROUP BY rank ORDER BY ms DESC")
print(per_rank.to_string(index=False))
skew = run.query("SELECT collective, instance, ranks, skew_ns / 1e6 AS skew_ms FROM collective_skew "
                 "ORDER BY skew_ns DESC LIMIT 3")
print(skew.to_string(index=False))


# 4. A standard view: how much of each rank's communication no computation hides.
exposed = run.query("SELECT rank, comm_ns / 1e6 AS comm_ms, exposed_ns / 1e6 AS exposed_ms, "
                    "round(exposed_pct, 1) AS exposed_pct FROM exposed_communication ORDER BY rank LIMIT 3")
print(exposed.to_string(index=False))

# 5. strobe-cli analyze's analyses, as DataFrames.
overlap = run.analyze("overlap")
print(overlap[["rank", "comm_ns", "overlap_pct"]].head(3).to_string(index=False))

# 6. The workbench's plots, rendered off screen (Jupyter shows a Figure inline; .save() writes PNG/SVG/PDF).
fig = run.plot("kernel-breakdown", size=(1000, 560), group_by="category")
fig.save("/tmp/strobe_kernel_breakdown.png")
print(fig, "table:", list(fig.table.columns))

# 7. Comparing runs: the slowest rank's trace against the fastest's, as two runs (strobe.sweep(dir) finds the runs of
#    a sweep directory the same way `strobe-cli sweep runs` does, and .compare() / .plot() work on all of them).
#    One run per side gives medians but no interval: the change says n/a and why.
files = sorted(glob.glob("resources/sample/param-dlrm-8rank/*.json"))
fast, slow = strobe.load(files[7], label="rank 7"), strobe.load(files[1], label="rank 1")  # each warns that the other 7 ranks are missing
diff = strobe.compare([fast, slow], group_by="category")
groups = diff[diff["kind"] == "group"]
print(groups.pivot(index="group", columns="configuration", values="median_ms").round(3).to_string())
print(diff["reason"].dropna().iloc[-1])

# Printed on 2026-12-02 (release build; the loader's two warnings go to stderr):
#   <strobe.Run resources/sample/param-dlrm-8rank: 8 ranks> loaded in 0.055 s
#   <strobe.Rank 0: 261 GPU activities> columns: ['ts_ns', 'dur_ns', 'name', 'kind', 'device', 'stream', 'correlation', 'grid_x', 'block_x', 'bytes', 'category', 'step_index', 'queue']
#   rank 0: 245 kernels, 6.832 ms
#                                                                 count      sum
#   ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, uns      5  3999000
#   ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigne      3  1799000
#   void at::native::vectorized_elementwise_kernel<4, at::native     16    52000
#    rank  kernels     ms
#       1      310 12.582
#       3      315 11.014
#       4      251  7.713
#       5      245  7.292
#       0      245  6.832
#       6      246  4.609
#       2      246  4.560
#       7      246  2.805
#   collective  instance  ranks  skew_ms
#    send_recv         0      8    7.624
#    send_recv         1      8    1.101
#   all_reduce         2      8    0.885
#    rank  comm_ms  exposed_ms  exposed_pct
#       0    5.798       5.537         95.5
#       1   11.336      11.056         97.5
#       2    3.492       3.217         92.1
#    rank  comm_ns  overlap_pct
#       0  5798000     4.501552
#       1 11336000     2.470007
#       2  3492000     7.875143
#   <strobe.Figure kernel-breakdown> table: ['bar', 'series', 'time_ns', 'count', 'pct']
#   [warning] ranks missing: 0-6 (world size 8)
#   [warning] ranks missing: 0, 2-7 (world size 8)
#   configuration  rank 1  rank 7
#   group                        
#   communication  11.336   1.746
#   elementwise     0.750   0.560
#   gemm            0.196   0.201
#   other           0.155   0.157
#   reduction       0.145   0.141
#   n/a: rank 1 has 1 run and 1 kept step; an interval needs 2 runs or 5 kept steps

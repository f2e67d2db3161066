#!/usr/bin/python3
"""A notebook-shaped tour of the strobe Python module on the bundled 8-rank DLRM sample.

Run from the repository root after building the module (README, "Python"):
    PYTHONPATH=build/release/python /usr/bin/python3 docs/python_example.py
What it printed on 2026-12-02 is at the end of this file.
"""
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


# Printed on 2026-12-02 (release build):
#   <strobe.Run resources/sample/param-dlrm-8rank: 8 ranks> loaded in 0.167 s
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

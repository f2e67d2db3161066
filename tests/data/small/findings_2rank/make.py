#!/usr/bin/python3
"""Writes rank0.json and rank1.json: a hand-built 2-rank Kineto trace for the findings tests (issue 30).

Per rank: ProfilerStep#1..#3 at 1000, 2500, 4000 us, 1000 us long (500 us gaps between steps). In each step one
cudaLaunchKernel (start + 10 us, 5 us long) launches volta_sgemm_128x64_nn (category gemm, HTA COMPUTATION) at
start + 20 us on stream 7, 600 us long on rank 0 and 200 us on rank 1. No communication, no data loader, no sync.

Expected by hand (S = 3 steps, step time 1 ms on both ranks, run step 1 ms):
  inter_step_gaps (GPU idle between the steps' kernels): rank 0: 2 x (2520 - 1620) = 1800 us, rank 1:
    2 x (2520 - 1220) = 2600 us; / 3 steps = 0.6 and 0.866667 ms per step, mean 0.733333 ms (share 0.7333, high),
    ranks 0, 1; its longest ranges are rank 1's 1220..2520 and 2720..4020 us. (The 500 us between the ProfilerStep
    spans lie inside these.)
  rank_imbalance: compute per step 0.6 ms and 0.2 ms, mean 0.4: excess 0.2 ms per step, share 0.2 (high), rank 0.
  launch_bound must NOT fire: host_wait is large (rank 0: 2 x (2520 - 1620) = 1800 us; rank 1: 2 x (2520 - 1220) =
    2600 us; mean 0.7333 ms per step) but no kernel ran shorter than its 5 us launch call.
  straggler must NOT fire on two ranks: there is no collective.
Run: /usr/bin/python3 tests/data/small/findings_2rank/make.py
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
for rank, kdur in ((0, 600), (1, 200)):
    ev = [{"ph": "M", "name": "process_name", "pid": 100 + rank, "args": {"name": "python"}}]
    for i, ts in enumerate((1000, 2500, 4000)):
        corr = 10 + i
        ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{i + 1}", "pid": 100 + rank,
                   "tid": 1, "ts": ts, "dur": 1000, "args": {}})
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100 + rank, "tid": 1,
                   "ts": ts + 10, "dur": 5, "args": {"correlation": corr}})
        ev.append({"ph": "X", "cat": "kernel", "name": "volta_sgemm_128x64_nn", "pid": 0, "tid": 7, "ts": ts + 20,
                   "dur": kdur, "args": {"device": 0, "stream": 7, "correlation": corr, "grid": [1, 1, 1],
                                         "block": [128, 1, 1]}})
    doc = {"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": rank, "world_size": 2},
           "traceEvents": ev}
    with open(os.path.join(HERE, f"rank{rank}.json"), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")

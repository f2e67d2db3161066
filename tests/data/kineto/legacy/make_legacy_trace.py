#!/usr/bin/python3
# Writes legacy_autograd_cpu.json: a real trace of Debian's python3-torch 1.13 (built without Kineto, so its
# profiler writes the legacy autograd format: a bare JSON array, pid "CPU functions", no "cat", ts relative to the
# profiler start), of a small MLP trained for 6 steps under a wait=1, warmup=1, active=3 schedule.
# Run: /usr/bin/python3 tests/data/kineto/legacy/make_legacy_trace.py   (needs python3-torch)
import os
import torch
from torch.profiler import ProfilerActivity, profile, schedule

torch.manual_seed(0)
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "legacy_autograd_cpu.json")
m = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10))
opt = torch.optim.SGD(m.parameters(), lr=0.1)
with profile(activities=[ProfilerActivity.CPU], schedule=schedule(wait=1, warmup=1, active=3), record_shapes=True,
             on_trace_ready=lambda p: p.export_chrome_trace(out)) as prof:
    for _ in range(6):
        x = torch.randn(32, 64)
        loss = m(x).sum()
        loss.backward()
        opt.step()
        opt.zero_grad()
        prof.step()
print(torch.__version__, out)

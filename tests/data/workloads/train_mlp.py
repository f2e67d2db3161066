#!/usr/bin/python3
"""A small real PyTorch training loop (CPU) under Strobe's torch-profiler contract: an MLP trained for STEPS
steps (default 6) on random data (hidden width HIDDEN, default 512); with the default schedule (wait 1, warm-up 1, active 3) the trace holds
ProfilerStep#2..#4. Exits with status 3 when TRAIN_FAIL=1 (a crashing workload for the fault tests).
Run: strobe-cli collect --out run --tool torch-profiler --tool cpu-sampler -- /usr/bin/python3 train_mlp.py
"""
import os
import sys

import torch
import strobe_torch

torch.manual_seed(0)
hidden = int(os.environ.get("HIDDEN", "512"))
model = torch.nn.Sequential(torch.nn.Linear(256, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, 10))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
steps = int(os.environ.get("STEPS", "6"))
with strobe_torch.profile() as prof:
    for i in range(steps):
        x = torch.randn(64, 256)
        loss = torch.nn.functional.cross_entropy(model(x), torch.randint(0, 10, (64,)))
        loss.backward()
        opt.step()
        opt.zero_grad()
        prof.step()
        if os.environ.get("TRAIN_FAIL") == "1" and i == 2:
            print("failing on purpose at step", i, file=sys.stderr)
            sys.exit(3)
print("trained", steps, "steps, loss", float(loss))

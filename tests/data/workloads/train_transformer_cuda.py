#!/usr/bin/env python3
"""A small real PyTorch training loop for a CUDA GPU under Strobe's torch-profiler contract: a 2-layer
Transformer encoder (d_model 1024, 16 heads, bf16 autocast) trained with AdamW on random tokens. Each step copies
its batch host->device from pinned memory (memcpy HtoD) and, with DIST=1, all-reduces the gradients through NCCL
in a world of one (real NCCL kernels on one GPU). Environment: BATCH (default 8), SEQ (512), STEPS (8), DIST (0).
Made to capture tests/data/cuda (see its README.md); it needs a GPU and is not run by the test suite.
"""
import os
import sys
import time

import torch
import strobe_torch

batch = int(os.environ.get("BATCH", "8"))
seq = int(os.environ.get("SEQ", "512"))
steps = int(os.environ.get("STEPS", "8"))
dist = os.environ.get("DIST") == "1"
dev = torch.device("cuda")
torch.manual_seed(0)

if dist:
    import torch.distributed as td
    td.init_process_group("nccl", init_method="file://" + os.environ.get("DIST_FILE", "/tmp/strobe_dist_init"),
                          rank=0, world_size=1, device_id=dev)

vocab, d = 8192, 1024
emb = torch.nn.Embedding(vocab, d)
layer = torch.nn.TransformerEncoderLayer(d_model=d, nhead=16, dim_feedforward=4 * d, batch_first=True,
                                         norm_first=True, dropout=0.0)
model = torch.nn.Sequential(emb, torch.nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False),
                            torch.nn.Linear(d, vocab)).to(dev)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
host_x = torch.randint(0, vocab, (batch, seq)).pin_memory()
host_y = torch.randint(0, vocab, (batch, seq)).pin_memory()

t0 = time.time()
with strobe_torch.profile() as prof:
    for i in range(steps):
        x = host_x.to(dev, non_blocking=True)
        y = host_y.to(dev, non_blocking=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = model(x)
            loss = torch.nn.functional.cross_entropy(logits.view(-1, vocab), y.view(-1))
        loss.backward()
        if dist:
            for p in model.parameters():
                if p.grad is not None:
                    td.all_reduce(p.grad)
        opt.step()
        opt.zero_grad(set_to_none=True)
        torch.cuda.synchronize()
        prof.step()
print("batch", batch, "seq", seq, "steps", steps, "loss", float(loss), "seconds", round(time.time() - t0, 3),
      "device", torch.cuda.get_device_name(0), flush=True)
if dist:
    td.destroy_process_group()
sys.exit(0)

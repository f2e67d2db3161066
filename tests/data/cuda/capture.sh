#!/usr/bin/env bash
# Captures tests/data/cuda on a machine with one NVIDIA GPU (run from the repository root; writes $OUT/cuda.tar.gz).
# A sweep batch={8,32} x rep{1,2} of tests/data/workloads/train_transformer_cuda.py under strobe_torch (wait 2,
# warm-up 2, active 3 steps) with an nvidia-smi query-gpu series beside each run (the fields and interval of
# resources/tools/nvidia-smi.yaml), then Nsight Compute's raw CSV of six kernels (the argv of resources/tools/ncu.yaml).
set -u
W=/tmp/cap/cuda; rm -rf /tmp/cap; mkdir -p $W/sweep $W/ncu
export PYTHONPATH=$PWD/resources/python PYTHONUNBUFFERED=1
WL=$PWD/tests/data/workloads/train_transformer_cuda.py
Q=timestamp,index,name,power.draw,power.limit,clocks.sm,clocks.mem,temperature.gpu,utilization.gpu,utilization.memory,memory.used,memory.total
{ nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap,pci.bus_id --format=csv; python3 -c 'import torch;print("torch",torch.__version__,"cuda",torch.version.cuda)'; ncu --version; uname -a; } > $W/device.txt 2>&1
DIST=0
if timeout 90 python3 -c 'import torch,torch.distributed as d;d.init_process_group("nccl",init_method="file:///tmp/pr_init",rank=0,world_size=1,device_id=torch.device("cuda"));t=torch.ones(4,device="cuda");d.all_reduce(t);torch.cuda.synchronize();print("nccl ok",t.sum().item());d.destroy_process_group()' > $W/nccl_probe.log 2>&1; then DIST=1; fi
echo "DIST=$DIST" >> $W/device.txt
for b in 8 32; do for r in 1 2; do
  R=$W/sweep/batch=$b/rep$r; mkdir -p $R
  nvidia-smi --query-gpu=$Q --format=csv -lms 100 > $R/nvidia_smi.csv 2> $R/nvidia_smi.stderr.log & S=$!
  sleep 0.5
  rm -f /tmp/strobe_dist_init_$b$r
  STROBE_TORCH_DIR=$R/torch STROBE_TORCH_WAIT=2 STROBE_TORCH_WARMUP=2 STROBE_TORCH_ACTIVE=3 STROBE_TORCH_SHAPES=1 \
    BATCH=$b STEPS=8 DIST=$DIST DIST_FILE=/tmp/strobe_dist_init_$b$r timeout 150 python3 $WL > $R/workload.log 2>&1
  echo "exit $?" >> $R/workload.log
  sleep 0.5; kill $S; wait $S 2>/dev/null
  tail -2 $R/workload.log; ls -la $R/torch
done; done
timeout 180 ncu --csv --page raw --kernel-name 'regex:.*' --launch-skip 40 --launch-count 6 --log-file $W/ncu/ncu.csv \
  env BATCH=8 STEPS=2 python3 $WL > $W/ncu/workload.log 2>&1
echo "ncu exit $?" >> $W/ncu/workload.log
tail -5 $W/ncu/workload.log; wc -c $W/ncu/ncu.csv
if ! [ -s $W/ncu/ncu.csv ] || grep -q "ERR" $W/ncu/workload.log; then
  timeout 120 ncu --clock-control none --csv --page raw --kernel-name 'regex:.*' --launch-skip 40 --launch-count 6 \
    --log-file $W/ncu/ncu_clock_none.csv env BATCH=8 STEPS=2 python3 $WL > $W/ncu/workload_clock_none.log 2>&1
  echo "ncu exit $?" >> $W/ncu/workload_clock_none.log
fi
cd /tmp/cap && tar czf $OUT/cuda.tar.gz cuda && ls -la $OUT; du -sh /tmp/cap/cuda

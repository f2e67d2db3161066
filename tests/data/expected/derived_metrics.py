#!/usr/bin/python3
# Expected derived metrics (resources/derived_metrics.yaml) on real counter data, computed directly from the CSVs
# and resources/arch_constants.yaml with Python's csv and yaml modules (formulas re-typed here, not evaluated by
# Strobe). rocprof-compute vcopy workload on an MI300X (arch key MI300X: 304 CUs, 4 SIMDs/CU, 32 waves/CU,
# 5300 GB/s); rocprofv3 docs-2025 counter collection (SQ_WAVES only).
# Run: /usr/bin/python3 tests/data/expected/derived_metrics.py > tests/data/expected/derived_metrics.txt
import csv, os, yaml
here = os.path.dirname(os.path.abspath(__file__))
root = os.path.join(here, "..", "..", "..")
arch = yaml.safe_load(open(os.path.join(root, "resources", "arch_constants.yaml")))["amd"]["MI300X"]
cu, simd, wmax, bw = arch["compute_units"], arch["simds_per_cu"], arch["max_waves_per_cu"], arch["hbm_bandwidth_gbs"]
print(f"arch MI300X cu={cu} simd={simd} max_waves={wmax} hbm={bw}")
rows = list(csv.DictReader(open(os.path.join(here, "..", "rocprof-compute", "vcopy_MI300X_A1_rocprofv2", "pmc_perf.csv"))))
for r in rows:
    f = lambda k: float(r[k])
    # The workload writes timestamps as 8.1097E+14: start == end, so every duration is 0 and the duration-based
    # metrics (waves_per_us, hbm_bandwidth_gbs, hbm_bandwidth_pct) must be reported as a division by zero.
    dur = round(float(r["End_Timestamp"])) - round(float(r["Start_Timestamp"]))
    assert dur == 0
    gui = f("GRBM_GUI_ACTIVE")
    hbm = (32 * f("TCC_EA0_RDREQ_32B_sum") + 64 * (f("TCC_EA0_RDREQ_sum") - f("TCC_EA0_RDREQ_32B_sum"))
           + 64 * f("TCC_EA0_WRREQ_64B_sum") + 32 * (f("TCC_EA0_WRREQ_sum") - f("TCC_EA0_WRREQ_64B_sum")))
    vals = {
        "gpu_busy_pct": 100 * gui / f("GRBM_COUNT"),
        "cu_busy_pct": 100 * f("SQ_BUSY_CU_CYCLES") / (gui * cu),
        "valu_active_pct": 100 * f("SQ_ACTIVE_INST_VALU") / (gui * cu),
        "mfma_busy_pct": 100 * f("SQ_VALU_MFMA_BUSY_CYCLES") / (gui * cu * simd),
        "occupancy_pct": 100 * f("SQ_WAVE_CYCLES") / (gui * cu * wmax),
        "l2_hit_pct": 100 * f("TCC_HIT_sum") / max(f("TCC_HIT_sum") + f("TCC_MISS_sum"), 1),
        "scalar_l1_hit_pct": 100 * f("SQC_DCACHE_HITS") / max(f("SQC_DCACHE_HITS") + f("SQC_DCACHE_MISSES"), 1),
        "hbm_bytes": hbm,
        "flops": 64 * sum(f(f"SQ_INSTS_VALU_{op}_{t}") * (2 if op == "FMA" else 1)
                          for op in ("ADD", "MUL", "TRANS", "FMA") for t in ("F16", "F32", "F64"))
                 + 512 * sum(f(f"SQ_INSTS_VALU_MFMA_MOPS_{t}") for t in ("F16", "BF16", "F32", "F64")),
    }
    print(f"dispatch {r['Dispatch_ID']} " + " ".join(f"{k}={v!r}" for k, v in vals.items()))
d = os.path.join(here, "..", "rocprof", "docs-2025")
kernels = {r["Dispatch_Id"]: r for r in csv.DictReader(open(os.path.join(d, "kernel_trace.csv")))}
# Counter rows come from counter_collection.csv and kernel_names.csv (both have Counter_Name); a dispatch listed in
# both keeps one value (they agree).
waves = {}
for name in ("counter_collection.csv", "kernel_names.csv"):
    for r in csv.DictReader(open(os.path.join(d, name))):
        if r["Dispatch_Id"] in kernels and r["Counter_Name"] == "SQ_WAVES":
            assert waves.setdefault(r["Dispatch_Id"], float(r["Counter_Value"])) == float(r["Counter_Value"])
for did, w in sorted(waves.items(), key=lambda x: int(x[0])):
    k = kernels[did]
    dur = int(k["End_Timestamp"]) - int(k["Start_Timestamp"])
    print(f"docs dispatch {did} waves_per_us={w / (dur / 1000)!r}")

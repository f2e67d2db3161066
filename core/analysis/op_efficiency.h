#pragma once
// Per-operator efficiency (`strobe-cli analyze ops`): every operator instance of a Kineto trace recorded with shapes
// whose FLOPs and bytes the models of op_models.h give, with the GPU time of its kernels, achieved TFLOP/s and TB/s,
// arithmetic intensity, % of the GPU's peak and the roofline's bound.
//
// An instance is the outermost CPU op with a model among a kernel's launching op and its ancestors (the merge's
// gpu.cpuOp and the slice hierarchy): aten::linear rather than the aten::addmm it calls, aten::layer_norm rather
// than aten::native_layer_norm; every kernel launched beneath it counts in its kernel_ns (the sum of the kernels'
// durations). A kernel with no modelled op above it is unmodelled, under the outermost CPU op above it (or "(no
// CPU op)"), as is an instance whose shapes are missing or do not fit its model — each with the reason.
//
//   tflops_per_s = flops / kernel_ns / 1000          tb_per_s = bytes / kernel_ns / 1000
//   intensity    = flops / bytes (FLOP/byte)
//   ridge        = peak TFLOP/s of the dtype × 1e12 / (HBM GB/s × 1e9)  (arch_constants.yaml, the rank's GPU)
//   bound        = compute when intensity ≥ ridge, else memory (memory when there is no FLOP)
//   peak_pct     = tflops_per_s / peak TFLOP/s × 100 (compute-bound), tb_per_s × 1000 / HBM GB/s × 100 (memory)

#include <string>
#include <vector>

#include "core/analysis/op_models.h"
#include "core/analysis/registry.h"

namespace strobe::core {

struct OpInstance {
    uint32_t slice = 0;
    OpCost cost;
    std::string shapes;  // "Input Dims" as JSON text
    int64_t kernels = 0;
    TimeNs kernelNs = 0;
};
struct UnmodelledOp {
    std::string op;
    std::string why;
    int64_t kernels = 0;
    TimeNs kernelNs = 0;
};
struct OpEfficiency {
    std::vector<OpInstance> ops;          // in slice order
    std::vector<UnmodelledOp> unmodelled;  // most kernel time first
    TimeNs totalKernelNs = 0, modelledKernelNs = 0;
};
OpEfficiency opEfficiency(const RankData& rank);

Result<Table> opEfficiencyTable(AnalysisContext& ctx, const AnalysisRequest& request);
AnalysisInfo opsAnalysisInfo();

}  // namespace strobe::core

#pragma once
// FLOPs of matrix multiplications from the shapes PyTorch's profiler records (Kineto CPU ops with "Input Dims" and
// "Input type", written when the profiler runs with record_shapes=True), their attribution to ProfilerSteps, and the
// peak FLOP/s of a GPU for a data type (arch_constants.yaml) — what achieved TFLOP/s and MFU per step need.
//
// Counted ops and their FLOPs (a multiply-add is 2 FLOPs; bias additions and alpha/beta scaling are not counted):
//   aten::mm      [M, K] x [K, N]                      2·M·N·K
//   aten::addmm   bias, [M, K] x [K, N]                2·M·N·K
//   aten::bmm     [B, M, K] x [B, K, N]                2·B·M·N·K
//   aten::baddbmm bias, [B, M, K] x [B, K, N]          2·B·M·N·K
//   aten::linear  input [..., K], weight [N, K]        2·(product of input's leading dims)·N·K
//   aten::matmul  a [..., M, K], b [..., K, N]         2·(broadcast batch)·M·N·K (a 1-D operand counts M or N as 1)
// A GEMM op inside another one (aten::linear → aten::addmm, aten::matmul → aten::mm/bmm) is counted once, at the
// outermost. Bytes: the operands and the result once each (elements × element size): the least traffic a GEMM needs,
// for a roofline's arithmetic intensity.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/analysis/derived_metrics.h"
#include "core/io/error.h"
#include "core/model/dataset.h"

namespace strobe::core {

// A data type of GEMM inputs as the peak tables know it: "fp64", "fp32", "tf32", "fp16", "bf16", "fp8"; "" unknown.
std::string gemmDtypeOf(std::string_view kinetoInputType);  // "float" → fp32, "c10::BFloat16" → bf16, ...
size_t gemmDtypeBytes(std::string_view dtype);              // 8, 4, 4, 2, 2, 1; 4 when unknown

struct GemmCost {
    double flops = 0;
    double bytes = 0;   // operands + result, once each
    std::string dtype;  // of the first matrix operand ("" when the trace does not say)
};

bool isGemmOp(std::string_view opName);
// The cost from an op's name and its "Input Dims" / "Input type" lists; nullopt when it is not a counted GEMM or
// its shapes do not fit the op (missing dims, inner dimensions that differ).
std::optional<GemmCost> gemmCost(std::string_view opName, const std::vector<std::vector<int64_t>>& dims,
                                 const std::vector<std::string>& types);
// The same from the op's args JSON object text ({"Input Dims": [[32, 2048], ...], "Input type": [...]}).
std::optional<GemmCost> gemmCostOfArgs(std::string_view opName, std::string_view argsJson);

// One counted GEMM op of a rank: its slice, its step (index into StepTable, -1 outside every step) and its cost.
struct GemmOp {
    uint32_t slice = 0;
    int32_t step = -1;
    GemmCost cost;
};
struct GemmOps {
    std::vector<GemmOp> ops;      // outermost GEMM ops with usable shapes, in slice order
    size_t withoutShapes = 0;     // outermost GEMM ops without "Input Dims" (record_shapes off) or with odd shapes
};
GemmOps gemmOps(const RankData& rank);

// strobe_torch's op-shapes table (resources/python/strobe_torch.py writes rank<R>_op_shapes.csv beside
// rank<R>_trace.json: name, input_shapes (a JSON list of shapes), calls, cpu_time_total_us, from
// key_averages(group_by_input_shape=True): totals over the profiled steps). The legacy autograd trace (a torch built
// without Kineto, such as Debian's) records no "Input Dims", so its GEMM FLOPs come from this table. The table is
// flat (no nesting), so only the ops that do the multiplication count: aten::mm, addmm, bmm and baddbmm
// (aten::linear and aten::matmul call them and would be counted twice). Data types are not recorded ("").
struct OpShapesGemm {
    std::string path;
    double flops = 0, bytes = 0;  // totals over the profiled steps
    int64_t calls = 0;            // GEMM calls counted
    int64_t profilerSteps = 0;    // calls of its "ProfilerStep*" row (the profiled steps); 0 when absent
    size_t unusable = 0;          // GEMM rows whose shapes do not fit the op
};
// "dir/rank3_op_shapes.csv" for "dir/rank3_trace.json" (or .json.gz); "" for any other name.
std::string opShapesPathOf(std::string_view tracePath);
// Errors name the file, the row and the column.
Result<OpShapesGemm> parseOpShapesGemm(std::string_view csvText, const std::string& path);
// The table beside the rank's trace file: nullopt when there is none, an error when it cannot be read.
std::optional<Result<OpShapesGemm>> opShapesGemmOf(const RankData& rank);

// GEMM FLOPs of each ProfilerStep of a rank (every step, also those without GEMMs). A rank whose trace has no GEMM
// op with shapes (the legacy trace) takes them from its op-shapes table when there is one: its totals divided by
// the number of profiled steps (the table's ProfilerStep* calls, else the trace's steps), the same in every step —
// an average, not a per-step count; `note` (when given) then says so, or why the table could not be used.
struct StepGemmFlops {
    int64_t step = 0;  // ProfilerStep number
    TimeNs start = 0, end = 0;
    double flops = 0;
    double bytes = 0;
    size_t ops = 0;
    std::string dtype;  // the data type with the most FLOPs in the step ("" when none)
    bool fromOpShapes = false;  // from the op-shapes table (an average over the profiled steps)
};
std::vector<StepGemmFlops> gemmFlopsPerStep(const RankData& rank, std::string* note = nullptr);

// Peak TFLOP/s of `arch` for a data type (the dense matrix/tensor-core rate where the GPU has one: fp32 on NVIDIA
// is the CUDA-core rate, tf32 the tensor-core rate); nullopt when the table has no number for it.
std::optional<double> peakTflops(const ArchConstants& arch, std::string_view dtype);

}  // namespace strobe::core

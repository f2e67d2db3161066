#pragma once
// Kernel-type breakdown with overlaps (Holistic Trace Analysis' definition). Each type's kernel intervals are
// merged, then one sweep over all of them attributes every instant to the set of types running: COMPUTATION,
// COMMUNICATION, MEMORY and each combination ("COMPUTATION overlapping COMMUNICATION", ...). OTHER kernels are
// not part of it (as in HTA). Per rank, plus the run total (rank "all").
//
// The `kernels` view is HTA's per-kernel table: per rank and type, each kernel name's count, sum, max, min,
// mean and standard deviation of its durations, the top-K names kept and the rest folded into "others".
// HTA keeps a name when it is among the first K by total time and within `duration-ratio` of the cumulative
// total (pandas' linear quantile of the running sums); "others" carries the statistics of the folded names'
// totals (sum, max, min, mean, stddev of per-name sums), exactly as HTA computes it. Named rows always carry
// their per-launch statistics (HTA prints max = min = mean = sum for them once it folds).

#include "core/analysis/registry.h"

namespace strobe::core {

struct KernelTypeOptions {
    bool includeMemory = true;
    int64_t topK = 10;
    double durationRatio = 0.8;
};

// Columns: rank ("all" for the run total), type, time_ns, pct (of the rank's typed GPU time).
Result<Table> kernelTypeBreakdown(AnalysisContext& ctx, const WindowSpec& window, const KernelTypeOptions& o = {});
// Columns: rank, type, name, count, sum_ns, max_ns, min_ns, mean_ns, stddev_ns.
Result<Table> kernelTypeTopKernels(AnalysisContext& ctx, const WindowSpec& window, const KernelTypeOptions& o = {});
AnalysisInfo kernelTypesAnalysisInfo();

}  // namespace strobe::core

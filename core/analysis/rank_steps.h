#pragma once
// Rank × step table (issue 29's cross-rank view): for every ProfilerStep#N of every rank, the step's duration on
// that rank and what the per-window analyses say about it, computed per step window (WindowSpec::stepList({N})):
//   dur_ns                 the rank's ProfilerStep#N span (CPU side, the rank's own clock);
//   idle_ns                HTA's temporal idle over the step's GPU activities (temporal.h);
//   wait_ns, caused_wait_ns, mean_start_lag_ns
//                          the straggler analysis of the step's collectives (straggler.h): time the rank waited
//                          in them, the wait it caused the others by arriving last, its mean arrival lag (the
//                          last needs a common clock);
// so a rank × step heatmap shows who is slow in which step. A cell with nothing to measure (no GPU activity, no
// collective matched across ranks) is null, never 0. The window, when it lists steps, limits the steps; otherwise
// every step is taken.

#include <cstdint>
#include <functional>
#include <map>
#include <vector>

#include "core/analysis/registry.h"

namespace strobe::core {

// The table's frame, shared with rankStepsFromSummaries (core/engine/rank_summary.h). `spans`: step → rank → the
// rank's (first) span of ProfilerStep#N; `cellsOf(step)`: per rank, what the step's window analyses say (a rank
// absent from it has null cells). wait and caused wait are null unless the rank has a matched collective.
struct RankStepCells {
    Cell idle, collectives, wait, caused, lag;
};
using RankStepCellsFn = std::function<Result<std::map<int64_t, RankStepCells>>(int64_t step)>;
Result<Table> rankStepsTable(const std::map<int64_t, std::map<int64_t, StepSpan>>& spans, const WindowSpec& window,
                             size_t rankCount, const RankStepCellsFn& cellsOf);

// Columns: rank, step, start_ns, end_ns, dur_ns, idle_ns, collectives, wait_ns, caused_wait_ns, mean_start_lag_ns.
// Rows by step, then rank.
Result<Table> rankStepsAnalysis(AnalysisContext& ctx, const WindowSpec& window);
AnalysisInfo rankStepsAnalysisInfo();

// Ranks whose value stands out above the others: robust z = (value − median) / max(1.4826 × MAD, 5 % of the
// median) > threshold (the window analysis's outlier rule, one-sided: only the slow side). Returns the indices.
std::vector<size_t> highOutliers(const std::vector<double>& values, double threshold = 3.0);

}  // namespace strobe::core

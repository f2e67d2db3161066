#pragma once
// Steady-state window: which training steps to analyse. A step's duration is the median over ranks of its
// ProfilerStep#N span. With three or more steps, a step is an outlier when it differs from the median step
// duration by more than `threshold` robust deviations (1.4826 × median absolute deviation, at least 5 % of the
// median). Leading outliers (warm-up) and trailing outliers (tail) are dropped; the contiguous steps between
// them are kept, interior outliers included (flagged). With fewer than three steps every step is kept.

#include "core/analysis/registry.h"

namespace strobe::core {

struct SteadyStep {
    int64_t number = -1;
    TimeNs start = 0;       // earliest start over ranks
    TimeNs end = 0;         // latest end over ranks
    TimeNs medianDur = 0;   // median over ranks of the step's duration
    TimeNs minDur = 0, maxDur = 0;
    int64_t ranks = 0;      // ranks that have this step
    bool outlier = false;
    bool kept = false;
    std::string reason;
};

struct SteadyState {
    std::vector<SteadyStep> steps;  // by step number
    std::vector<int64_t> kept;      // numbers of the kept steps
    std::string reason;             // one sentence: which steps were kept and why
};

SteadyState findSteadyState(AnalysisContext& ctx, double threshold = 3.0);

// Columns: step, start_ns, end_ns, dur_ns (median over ranks), min_dur_ns, max_dur_ns, ranks, outlier (0/1),
// kept (0/1), reason.
Result<Table> steadyStateWindow(AnalysisContext& ctx, double threshold = 3.0);
AnalysisInfo windowAnalysisInfo();

}  // namespace strobe::core

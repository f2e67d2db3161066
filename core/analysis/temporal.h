#pragma once
// Temporal breakdown per rank (Holistic Trace Analysis' definition): over the window from the first GPU
// activity's start to the last one's end, idle = window − union of all activities, compute = union of
// COMPUTATION kernels, non-compute = window − idle − compute; also as percentages (0–100) of the window.

#include "core/analysis/registry.h"

namespace strobe::core {

// Columns: rank, window_ns, idle_ns, compute_ns, non_compute_ns, idle_pct, compute_pct, non_compute_pct,
// activities. A rank without activities in the window gets nulls and a message.
Result<Table> temporalBreakdown(AnalysisContext& ctx, const WindowSpec& window);
AnalysisInfo temporalAnalysisInfo();

}  // namespace strobe::core

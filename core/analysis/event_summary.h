#pragma once
// Event summary: count and total duration of the events a window keeps, per rank and raw category — the
// CPU-side slices (complete events with a category, the profiler's own "Trace" span excluded) and the GPU
// activities. With the hta windows it is Holistic Trace Analysis' loaded event table: CPU-side events that
// start before the last ProfilerStep (hta; hta-include-last keeps every CPU-side event, as HTA at commit
// f4d0062 does) and the GPU activities the window keeps, on HTA's rounded µs.

#include "core/analysis/registry.h"

namespace strobe::core {

// Columns: rank, category, count, dur_ns. Categories sorted by name.
Result<Table> eventSummary(AnalysisContext& ctx, const WindowSpec& window);
AnalysisInfo eventSummaryAnalysisInfo();

}  // namespace strobe::core

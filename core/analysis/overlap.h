#pragma once
// Communication/computation overlap per rank (Holistic Trace Analysis' definition): merge COMMUNICATION and
// COMPUTATION kernel intervals apart; overlap % = 100 × time in both ÷ merged communication time.

#include "core/analysis/registry.h"

namespace strobe::core {

// Columns: rank, comm_ns, comp_ns, overlap_ns, overlap_pct (null, with a message, when a rank has no
// communication kernel).
Result<Table> commCompOverlap(AnalysisContext& ctx, const WindowSpec& window);
AnalysisInfo overlapAnalysisInfo();

}  // namespace strobe::core

#pragma once
// Idle time by cause, per rank and stream (Holistic Trace Analysis' rules). On each stream, activities are
// taken in start order; the gap before an activity is its start minus the previous activity's end on that
// stream (the first activity has no gap). The gap is
//   host_wait    when the activity's launching runtime call started after the previous activity ended (the
//                GPU waited for the CPU to launch),
//   kernel_wait  otherwise when the gap is shorter than the threshold (launch overhead between back-to-back
//                kernels; option kernel-wait-ns, HTA's default 30 µs),
//   other        otherwise (activities without a launching call included).
// A gap can be negative when activities overlap on one stream; it is summed as is, as HTA does.

#include "core/analysis/registry.h"

namespace strobe::core {

// Columns: rank, stream, cause, idle_ns, ratio (of the stream's idle time; null when it has none), count,
// mean_ns, max_ns. Streams appear in order of first activity; causes in the order host_wait, kernel_wait,
// other, each listed when at least one gap fell in it ("other" always, as the first activity counts there).
Result<Table> idleBreakdown(AnalysisContext& ctx, const WindowSpec& window, TimeNs kernelWaitNs = 30000);
AnalysisInfo idleAnalysisInfo();

}  // namespace strobe::core

#pragma once
// Launch and preparation overhead. Per GPU activity with a launching runtime/driver call:
//   launch_ns = activity start − launching call start (queueing + launch latency),
//   prep_ns   = launching call start − start of the CPU op that issued it (time spent in the op before the
//               launch; needs the merge's cpuOp link or the slice hierarchy).
// Distributions per rank and kernel category (plus "all"): mean and percentiles; --view cdf gives the
// launch-delay quantiles every 5 % for plotting a CDF.

#include "core/analysis/registry.h"

namespace strobe::core {

// Columns (summary): rank, category, count, launch_mean_ns, launch_p5_ns, launch_p50_ns, launch_p95_ns,
// launch_p99_ns, launch_max_ns, prep_count, prep_mean_ns, prep_p50_ns, prep_p95_ns.
// Columns (cdf): rank, category, quantile_pct, launch_ns.
Result<Table> launchOverhead(AnalysisContext& ctx, const WindowSpec& window, bool cdf = false);
AnalysisInfo launchAnalysisInfo();

}  // namespace strobe::core

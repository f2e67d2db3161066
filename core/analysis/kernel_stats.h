#pragma once
// Kernel statistics: durations of GPU activities grouped by kernel name, by category or by a regular
// expression, per rank or across ranks, over the window's steps: count, total, mean, median, p5, p95,
// sample standard deviation (n − 1) and coefficient of variation (stddev / mean). Quantiles interpolate
// linearly between closest ranks (numpy's default). The base for variance across sweeps.

#include "core/analysis/registry.h"

namespace strobe::core {

enum class KernelGroupBy : uint8_t { Name, Category, Regex };

struct KernelStatsOptions {
    KernelGroupBy groupBy = KernelGroupBy::Name;
    std::string regex;        // Regex: activities whose name matches (search); one group named by the regex;
                              // Name/Category: an optional filter on names
    bool acrossRanks = false; // one row per group over every rank (rank = "all")
    int64_t top = 0;          // keep the first N groups by total time per rank (0 = all)
};

// Columns: rank, name, category, count, total_ns, mean_ns, median_ns, p5_ns, p95_ns, stddev_ns, cv, min_ns,
// max_ns. Sorted by rank, then total time descending. `category` is Strobe's category when the merge
// classified the activity, else HTA's type in lower case; for group-by category, `name` is the category.
Result<Table> kernelStatistics(AnalysisContext& ctx, const WindowSpec& window, const KernelStatsOptions& o = {});
AnalysisInfo kernelStatsAnalysisInfo();

// Category code of activity `i` of a rank's window (r = *w.data): Strobe's category when the merge classified the
// activity, else HTA's type (+100). kernelCategoryName() names a code: the category, or HTA's type in lower case.
int kernelCategoryCode(const RankData& r, const RankWindow& w, size_t i);
std::string kernelCategoryName(int code);

}  // namespace strobe::core

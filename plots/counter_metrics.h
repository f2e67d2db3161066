#pragma once
// What the counter plots (counter-cdf, counter-timeline, arch-chart, roofline) share: the derived-metric table and
// the architecture constants (core/analysis/derived_metrics.h, loaded once), the GPU of a rank, the metrics and
// counters the loaded runs have values for (the choices of their "metric" parameter), and per-dispatch values of one
// metric.

#include <string>
#include <utility>
#include <vector>

#include "core/analysis/derived_metrics.h"
#include "plots/plot.h"

namespace strobe::plots {

struct MetricLibrary {
    core::DerivedMetricSet set;              // shipped table + the user's file
    std::vector<core::ArchConstants> archs;  // resources/arch_constants.yaml
    std::vector<std::string> errors;         // why a table could not be read (then it is empty)
};
// Loaded on first use, then shared (thread-safe).
const MetricLibrary& metricLibrary();

// The architecture constants of the rank's first GPU (by its name, else its gfx ISA: core::findArch), nullptr when
// the table has none.
const core::ArchConstants* archOf(const core::RankData& rank);

// Derived metrics whose formula names the data has on some rank of `runs` (in the table's order), then the raw
// counter names (sorted): what a kernel value can be drawn for.
std::vector<std::string> availableMetrics(const RunSet& runs);
// The "metric" parameter's choices: "auto" then availableMetrics(runs); with no runs, every metric of the table.
inline const std::string kAutoMetric = "auto";
std::vector<std::string> metricChoices(const RunSet& runs);
// `chosen`, or for "auto" the first of `preferred` that is available, else the first available ("" when none).
std::string resolveMetric(const std::string& chosen, const std::vector<std::string>& available,
                          const std::vector<std::string>& preferred);
// "l2_hit_pct (%)" for a derived metric with a unit, the name otherwise.
std::string metricLabel(const std::string& name);
bool metricIsPercent(const std::string& name);

// One value of a metric for one GPU activity.
struct KernelValue {
    size_t run = 0;
    int rank = 0;
    uint32_t gpuRow = 0;
    double value = 0;
};
// Values of `metric` for every kernel dispatch of every selected rank of every run that has it (finite values).
std::vector<KernelValue> kernelValues(const RunSet& runs, const std::vector<int>& ranks, const std::string& metric,
                                      const core::CancelToken& cancel);

// Messages for runs without any hardware counter, and the table-loading errors.
std::vector<std::string> counterMessages(const RunSet& runs);

}  // namespace strobe::plots

#pragma once
// What the three overlap plots of a sweep (overlap-per-config, overlap-vs-kernel-time, overlap-per-gpu) share:
// the colour axis (one bar or point colour per value: per configuration by default) and the sweep analysis of
// core/analysis/kernel_overlap run with the runs pooled by that colour value.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/analysis/kernel_overlap.h"
#include "plots/chart.h"
#include "plots/plot.h"
#include "plots/sweep_axes.h"

namespace strobe::plots {

// "color": a sweep axis; (auto) and configuration colour by configuration (repeats pooled), (none) pools all runs.
extern const AxisParam kOverlapColor;

// The colour axis chosen in `values` ("" for none) and each run's value on it ("all runs" for none), and the
// values in reading order.
struct OverlapColors {
    std::string axis;
    std::vector<std::string> keyOfRun;
    std::vector<std::string> order;
};
OverlapColors overlapColors(const RunSet& runs, const ParamValues& values);

// The grouped bars of overlap-per-config and overlap-per-gpu: one band per `bands` entry, one bar per colour value
// (`colors`, on `axis`; "" pools all runs), percentages; `subtitle` gets ", one bar per AXIS" (or ", all runs
// pooled"); `percent(band, color)` is a bar's height (nullopt: no bar, 0). The plot adds its hover fields.
BarChart overlapBarChart(const ParamValues& values, const std::string& title, const std::string& subtitle,
                         const std::string& valueLabel, const std::string& bandLabel, std::vector<std::string> bands,
                         const std::string& axis, const std::vector<std::string>& colors,
                         const std::function<std::optional<double>(size_t band, size_t color)>& percent);

// sweepKernelOverlap over `runs` pooled by colour value, with group_by and skip_steps from `values`. An Error for
// a bad group_by or when cancelled.
core::Result<core::SweepKernelOverlap> overlapByColor(const RunSet& runs, const ParamValues& values,
                                                      const OverlapColors& colors, core::KernelOverlapOptions o,
                                                      const core::CancelToken& cancel);

}  // namespace strobe::plots

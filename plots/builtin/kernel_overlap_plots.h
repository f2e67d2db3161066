#pragma once
// What the three overlap plots of a sweep (overlap-per-config, overlap-vs-kernel-time, overlap-per-gpu) share:
// the colour axis (one bar or point colour per value: per configuration by default) and the sweep analysis of
// core/analysis/kernel_overlap run with the runs pooled by that colour value.

#include <string>
#include <vector>

#include "core/analysis/kernel_overlap.h"
#include "plots/plot.h"
#include "plots/sweep_axes.h"

namespace strobe::plots {

// "color": a sweep axis; (auto) and configuration colour by configuration (repeats pooled), (none) pools all runs.
extern const AxisParam kOverlapColor;
extern const IntParam kOverlapSkipSteps;   // "skip_steps"
extern const StringParam kOverlapGroupBy;  // "group_by": name | category | op | normalized | regex:R

// The colour axis chosen in `values` ("" for none) and each run's value on it ("all runs" for none), and the
// values in reading order.
struct OverlapColors {
    std::string axis;
    std::vector<std::string> keyOfRun;
    std::vector<std::string> order;
};
OverlapColors overlapColors(const RunSet& runs, const ParamValues& values);

// sweepKernelOverlap over `runs` pooled by colour value, with group_by and skip_steps from `values`. An Error for
// a bad group_by or when cancelled.
core::Result<core::SweepKernelOverlap> overlapByColor(const RunSet& runs, const ParamValues& values,
                                                      const OverlapColors& colors, core::KernelOverlapOptions o,
                                                      const core::CancelToken& cancel);

}  // namespace strobe::plots

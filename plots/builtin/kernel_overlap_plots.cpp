#include "plots/builtin/kernel_overlap_plots.h"

#include "core/analysis/sweep_compare.h"
#include "plots/plot.h"

namespace strobe::plots {

const AxisParam kOverlapColor{"color", "Colour",
                              "Sweep axis with one colour per value: configuration (the default) keeps every sweep "
                              "configuration apart, repeats pooled; (none) pools all runs",
                              true};
const IntParam kOverlapSkipSteps =
    IntParam{"skip_steps", "Skip steps", "Leave out the first N steps of every run (warm-up)", 0}.bounded(0, 1000000, 1);
const StringParam kOverlapGroupBy{"group_by", "Group kernels by",
                                  "name, category, op (launching CPU operator), normalized, or regex:PATTERN", "name"};

OverlapColors overlapColors(const RunSet& runs, const ParamValues& values) {
    OverlapColors c;
    const std::string chosen = kOverlapColor(values);
    c.axis = chosen == kAutoAxis ? std::string(kConfigurationAxis) : chosen == kNoAxis ? std::string() : chosen;
    for (const auto& r : runs) c.keyOfRun.push_back(c.axis.empty() ? std::string("all runs") : axisValueOf(r, c.axis));
    c.order = c.keyOfRun;
    sortAxisValues(c.order);
    return c;
}

core::Result<core::SweepKernelOverlap> overlapByColor(const RunSet& runs, const ParamValues& values,
                                                      const OverlapColors& colors, core::KernelOverlapOptions o,
                                                      const core::CancelToken& cancel) {
    std::string error;
    if (!core::parseSweepGroupBy(kOverlapGroupBy(values), o.groupBy, o.groupRegex, error)) return core::Error(error);
    o.skipSteps = static_cast<int>(kOverlapSkipSteps(values));
    auto out = core::sweepKernelOverlap(core::pooledBy(runs, colors.keyOfRun), o, &cancel);
    if (!out && out.error().message == "cancelled") return cancelledError();
    return out;
}

}  // namespace strobe::plots

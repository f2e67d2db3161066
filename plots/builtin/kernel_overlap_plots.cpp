#include "plots/builtin/kernel_overlap_plots.h"

#include "core/analysis/sweep_compare.h"
#include "plots/plot.h"

namespace strobe::plots {

const AxisParam kOverlapColor{"color", "Colour",
                              "Sweep axis with one colour per value: configuration (the default) keeps every sweep "
                              "configuration apart, repeats pooled; (none) pools all runs",
                              true};

OverlapColors overlapColors(const RunSet& runs, const ParamValues& values) {
    OverlapColors c;
    const std::string chosen = kOverlapColor(values);
    c.axis = chosen == kAutoAxis ? std::string(kConfigurationAxis) : chosen == kNoAxis ? std::string() : chosen;
    for (const auto& r : runs) c.keyOfRun.push_back(c.axis.empty() ? std::string("all runs") : axisValueOf(r, c.axis));
    c.order = c.keyOfRun;
    sortAxisValues(c.order);
    return c;
}

BarChart overlapBarChart(const ParamValues& values, const std::string& title, const std::string& subtitle,
                         const std::string& valueLabel, const std::string& bandLabel, std::vector<std::string> bands,
                         const std::string& axis, const std::vector<std::string>& colors,
                         const std::function<std::optional<double>(size_t band, size_t color)>& percent) {
    BarChart c;
    c.title = title;
    c.subtitle = subtitle + (axis.empty() ? std::string(", all runs pooled") : ", one bar per " + axis);
    c.valueLabel = valueLabel;
    c.bandLabel = bandLabel;
    c.stacked = false;
    c.percentAxis = true;
    c.valueLabels = false;
    c.horizontal = kHorizontal(values);
    c.legend = legendMode(values);
    c.bars = std::move(bands);
    c.series = colors;
    for (size_t i = 0; i < colors.size(); ++i) c.colors.push_back(seriesColor(int(i)));
    for (size_t b = 0; b < c.bars.size(); ++b) {
        std::vector<double> row(colors.size(), 0.0);
        for (size_t k = 0; k < colors.size(); ++k)
            if (auto pct = percent(b, k)) row[k] = *pct;
        c.values.push_back(std::move(row));
    }
    return c;
}

core::Result<core::SweepKernelOverlap> overlapByColor(const RunSet& runs, const ParamValues& values,
                                                      const OverlapColors& colors, core::KernelOverlapOptions o,
                                                      const core::CancelToken& cancel) {
    if (auto st = sweepGroupBy(values, o.groupBy, o.groupRegex); !st) return st.error();
    o.skipSteps = static_cast<int>(kSkipSteps(values));
    auto out = core::sweepKernelOverlap(core::pooledBy(runs, colors.keyOfRun), o, &cancel);
    if (!out && out.error().message == "cancelled") return cancelledError();
    return out;
}

}  // namespace strobe::plots

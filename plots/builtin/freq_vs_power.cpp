// Frequency vs power: one dot per telemetry sample that has both the SM/graphics clock and the board power (same GPU,
// same instant), coloured by run.

#include <fmt/format.h>

#include "plots/plot_registry.h"
#include "plots/telemetry_plot.h"

namespace strobe::plots {
namespace {

const StringParam kFreqVsPowerX{"x_metric", "X metric", "Telemetry metric on the horizontal axis", "power_w"};
const StringParam kFreqVsPowerY{"y_metric", "Y metric", "Telemetry metric on the vertical axis", "sclk_mhz"};

class FreqVsPowerPlot final : public PairedMetricScatterPlot {
public:
    FreqVsPowerPlot()
        : PairedMetricScatterPlot(
              {"freq-vs-power", "Frequency vs power",
               "Scatter of telemetry samples: SM/graphics clock against board power, coloured by run.", 210},
              kFreqVsPowerX, kFreqVsPowerY) {}

    core::Table tableTyped(const TelemetryPrepared& p, const ParamValues& values) const override {
        core::Table t;
        t.columns = {"run", kFreqVsPowerX(values), kFreqVsPowerY(values)};
        t.messages = p.messages;
        for (const auto& s : p.series)
            for (auto [x, y] : s.points) t.addRow({p.runLabels[s.run], x, y});
        if (p.series.empty()) t.messages.push_back(*emptyMessageTyped(p, values));
        return t;
    }

protected:
    ScatterChart chart(const TelemetryPrepared& p, const ParamValues& v) const override {
        ScatterChart c;
        c.title = title();
        size_t n = 0;
        for (const auto& s : p.series) n += s.points.size();
        c.subtitle = fmt::format("{} samples; one dot per sample with both metrics", n);
        c.xTitle = kFreqVsPowerX(v);
        c.yTitle = kFreqVsPowerY(v);
        for (const auto& s : p.series) c.legend.push_back(fmt::format("{} ({} samples)", s.label, s.points.size()));
        return c;
    }
};

}  // namespace

STROBE_REGISTER_PLOT(FreqVsPowerPlot)

}  // namespace strobe::plots

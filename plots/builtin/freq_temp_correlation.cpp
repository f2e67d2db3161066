// Frequency vs temperature with Pearson's correlation coefficient per run: does the clock drop as the GPU heats
// (thermal throttling)? One dot per sample with both metrics (same GPU, same instant), coloured by run.

#include <cmath>

#include <fmt/format.h>

#include "plots/plot_registry.h"
#include "plots/telemetry_plot.h"

namespace strobe::plots {
namespace {

const StringParam kX{"x_metric", "X metric", "Temperature metric on the horizontal axis", "temp_c"};
const StringParam kY{"y_metric", "Y metric", "Clock metric on the vertical axis", "sclk_mhz"};

std::string rText(double r) { return std::isfinite(r) ? fmt::format("{:.3f}", r) : std::string("n/a"); }

class FreqTempCorrelationPlot final : public PairedMetricScatterPlot {
public:
    FreqTempCorrelationPlot()
        : PairedMetricScatterPlot({"freq-temp-correlation", "Frequency vs temperature",
                "Scatter of SM/graphics clock against GPU temperature, with Pearson's correlation coefficient per run.",
                220},
                                  kX, kY) {}

    // One row per run: its sample count and r (the dots are in the picture; r is the number this plot adds).
    core::Table tableTyped(const TelemetryPrepared& p, const ParamValues& values) const override {
        core::Table t;
        t.columns = {"run", "samples", "pearson_r", "mean_" + kX(values), "mean_" + kY(values)};
        t.messages = p.messages;
        for (const auto& s : p.series) {
            double mx = 0, my = 0;
            for (auto [x, y] : s.points) mx += x, my += y;
            const double n = double(s.points.size());
            const double r = pearsonR(s.points);
            t.addRow({p.runLabels[s.run], int64_t(s.points.size()), std::isfinite(r) ? core::Cell(r) : core::Cell(),
                      mx / n, my / n});
        }
        if (p.series.empty()) t.messages.push_back(*emptyMessageTyped(p, values));
        return t;
    }

protected:
    ScatterChart chart(const TelemetryPrepared& p, const ParamValues& v) const override {
        ScatterChart c;
        c.title = title();
        std::string rs;
        for (const auto& s : p.series) {
            c.legend.push_back(fmt::format("{}: r = {} (n = {})", s.label, rText(pearsonR(s.points)), s.points.size()));
            rs += fmt::format("{}{} r = {}", rs.empty() ? "" : "; ", p.series.size() > 1 ? s.label : std::string(),
                              rText(pearsonR(s.points)));
        }
        c.subtitle = fmt::format("Pearson's correlation: {}", rs);
        c.xTitle = kX(v);
        c.yTitle = kY(v);
        return c;
    }
};

}  // namespace

STROBE_REGISTER_PLOT(FreqTempCorrelationPlot)

}  // namespace strobe::plots

// Power timeline: board power (or another telemetry metric) over elapsed time, one line per GPU and run. Each run is
// drawn from its own first sample (runs recorded at different times, on different clocks, compare by elapsed time).

#include <algorithm>

#include <fmt/format.h>

#include "plots/plot_registry.h"
#include "plots/telemetry_plot.h"

namespace strobe::plots {
namespace {

// "metric" is, in every plot that has it, a measured quantity of the loaded data (an Enum of the data's choices):
// here a telemetry metric, in the counter plots a counter or derived metric.
const EnumParam kMetric{"metric", "Metric",
                        "Telemetry metric to draw (Strobe's names: power_w, sclk_mhz, temp_c, util_pct, mem_used_mib...)",
                        "power_w"};

class PowerTimelinePlot final : public TypedPlot<TelemetryPrepared> {
public:
    PowerTimelinePlot()
        : TypedPlot({"power-timeline", "Power timeline",
                     "Board power over elapsed time, one line per GPU and run (any telemetry metric by the metric "
                     "parameter).",
                     200}) {}

    // The metrics the runs hold; power_w always (the default: a run without it says so instead of drawing another).
    std::vector<ParamSpec> parameters(const RunSet& runs) const override {
        std::vector<std::string> choices = telemetryMetrics(runs).all;
        if (std::find(choices.begin(), choices.end(), kMetric.defaultValue()) == choices.end())
            choices.insert(choices.begin(), kMetric.defaultValue());
        return {kMetric.spec(std::move(choices))};
    }

    core::Result<std::shared_ptr<TelemetryPrepared>> prepareTyped(const RunSet& runs, const ParamValues& values,
                                                                  const core::CancelToken& cancel,
                                                                  const core::ProgressFn&) const override {
        if (cancel.cancelled()) return cancelledError();
        auto series = metricSeries(runs, kMetric(values), cancel);
        if (!series) return series.error();
        auto p = std::make_shared<TelemetryPrepared>();
        p->series = std::move(series.value());
        p->messages = missingRunMessages(runs, p->series, kMetric(values) + " samples");
        for (const auto& r : runs) p->runLabels.push_back(r.label);
        return p;
    }

    std::optional<std::string> emptyMessageTyped(const TelemetryPrepared& p, const ParamValues& values) const override {
        if (!p.series.empty()) return std::nullopt;
        return fmt::format("no {} samples (open a telemetry source: nvidia-smi, dmon, rocm-smi, amd-smi, a sampler CSV)",
                           kMetric(values));
    }

    std::optional<ChartData> chartDataTyped(const TelemetryPrepared& p, const ParamValues& values) const override {
        if (p.series.empty()) return std::nullopt;
        ChartData d;
        d.kind = ChartData::Kind::Lines;
        d.title = title();
        d.subtitle = subtitle(values);
        d.valueUnit = ChartData::Unit::Number;
        d.valueLabel = kMetric(values);
        d.xUnit = ChartData::Unit::Duration;
        d.xLabel = "elapsed time";
        for (size_t i = 0; i < p.series.size(); ++i)
            d.series.push_back({p.series[i].label, seriesColor(int(i)), {}, p.series[i].points});
        return d;
    }

    void drawTyped(Canvas& c, const TelemetryPrepared& p, const ParamValues& values) const override {
        drawScatter(c, chart(values), p.series);
    }

    std::optional<HitInfo> hitTestTyped(const TelemetryPrepared& p, const ParamValues& values, const QRectF& rect,
                                        QPointF pt) const override {
        return hitScatter(chart(values), p.series, rect, pt, "elapsed", kMetric(values));
    }

    core::Table tableTyped(const TelemetryPrepared& p, const ParamValues& values) const override {
        core::Table t;
        t.columns = {"run", "device", "elapsed_ns", kMetric(values)};
        t.messages = p.messages;
        for (const auto& s : p.series)
            for (auto [x, y] : s.points) t.addRow({p.runLabels[s.run], int64_t(s.device), int64_t(x), y});
        if (p.series.empty()) t.messages.push_back(*emptyMessageTyped(p, values));
        return t;
    }

private:
    static std::string subtitle(const ParamValues& v) {
        return fmt::format("{} per GPU; elapsed time from each run's first sample", kMetric(v));
    }
    ScatterChart chart(const ParamValues& v) const {
        ScatterChart c;
        c.title = title();
        c.subtitle = subtitle(v);
        c.xTitle = "elapsed time";
        c.yTitle = kMetric(v);
        c.xUnit = TickUnit::Duration;
        c.lines = true;
        return c;
    }
};

}  // namespace

STROBE_REGISTER_PLOT(PowerTimelinePlot)

}  // namespace strobe::plots

// Frequency vs power: one dot per telemetry sample that has both the SM/graphics clock and the board power (same GPU,
// same instant), coloured by run.

#include <fmt/format.h>

#include "plots/plot_registry.h"
#include "plots/telemetry_plot.h"

namespace strobe::plots {
namespace {

const StringParam kX{"x_metric", "X metric", "Telemetry metric on the horizontal axis", "power_w"};
const StringParam kY{"y_metric", "Y metric", "Telemetry metric on the vertical axis", "sclk_mhz"};

class FreqVsPowerPlot final : public Plot {
public:
    FreqVsPowerPlot()
        : Plot({"freq-vs-power", "Frequency vs power",
                "Scatter of telemetry samples: SM/graphics clock against board power, coloured by run.", 210}) {}

    std::vector<ParamSpec> parameters(const RunSet&) const override { return {kX.spec(), kY.spec()}; }

    core::Result<PreparedPtr> prepare(const RunSet& runs, const ParamValues& values, const core::CancelToken& cancel,
                                      const core::ProgressFn&) const override {
        if (cancel.cancelled()) return cancelledError();
        auto series = pairedSeries(runs, kX(values), kY(values), cancel);
        if (!series) return series.error();
        auto p = std::make_shared<TelemetryPrepared>();
        p->series = std::move(series.value());
        p->messages = missingRunMessages(runs, p->series, fmt::format("samples with both {} and {}", kX(values), kY(values)));
        for (const auto& r : runs) p->runLabels.push_back(r.label);
        return PreparedPtr(p);
    }

    std::optional<std::string> emptyMessage(const Prepared& prepared, const ParamValues& values) const override {
        const auto* p = dynamic_cast<const TelemetryPrepared*>(&prepared);
        if (!p || !p->series.empty()) return std::nullopt;
        return fmt::format("no telemetry samples with both {} and {} at the same instant", kX(values), kY(values));
    }

    void draw(Canvas& c, const Prepared& prepared, const ParamValues& values) const override {
        const auto* p = dynamic_cast<const TelemetryPrepared*>(&prepared);
        if (p) drawScatter(c, chart(*p, values), p->series);
    }

    std::optional<HitInfo> hitTest(const Prepared& prepared, const ParamValues& values, const QRectF& rect,
                                   QPointF pt) const override {
        const auto* p = dynamic_cast<const TelemetryPrepared*>(&prepared);
        if (!p) return std::nullopt;
        return hitScatter(chart(*p, values), p->series, rect, pt, kX(values), kY(values));
    }

    core::Table table(const Prepared& prepared, const ParamValues& values) const override {
        core::Table t;
        t.columns = {"run", kX(values), kY(values)};
        const auto* p = dynamic_cast<const TelemetryPrepared*>(&prepared);
        if (!p) return t;
        t.messages = p->messages;
        for (const auto& s : p->series)
            for (auto [x, y] : s.points) t.addRow({p->runLabels[s.run], x, y});
        if (p->series.empty()) t.messages.push_back(*emptyMessage(prepared, values));
        return t;
    }

private:
    ScatterChart chart(const TelemetryPrepared& p, const ParamValues& v) const {
        ScatterChart c;
        c.title = title();
        size_t n = 0;
        for (const auto& s : p.series) n += s.points.size();
        c.subtitle = fmt::format("{} samples; one dot per sample with both metrics", n);
        c.xTitle = kX(v);
        c.yTitle = kY(v);
        for (const auto& s : p.series) c.legend.push_back(fmt::format("{} ({} samples)", s.label, s.points.size()));
        return c;
    }
};

}  // namespace

STROBE_REGISTER_PLOT(FreqVsPowerPlot)

}  // namespace strobe::plots

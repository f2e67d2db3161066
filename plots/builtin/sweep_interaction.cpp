// Interaction plot of a sweep (issue 9): the end-to-end step time (median, mean or p95 over the pooled steps of a
// configuration's repeats) against one axis, one line per value of a second axis — do the two parameters act
// independently (parallel lines) or interact (lines that cross or fan out)? Axis values that are not numbers are
// placed at their rank (0, 1, 2… in sorted order).

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "core/analysis/context.h"
#include "plots/plot_registry.h"
#include "plots/step_times.h"
#include "plots/sweep_axes.h"
#include "plots/telemetry_plot.h"

namespace strobe::plots {
namespace {

const AxisParam kSweepInteractionXAxis{"x_axis", "X axis",
                                       "Sweep parameter along x ((auto): the first one that varies)", false};
const AxisParam kSeriesAxis{"series_axis", "Lines by",
                            "Sweep parameter with one line per value ((auto): the next one that varies, if any)", true};
const EnumParam kStatistic = EnumParam{"statistic", "Statistic", "Of the configuration's step times", "median"}.choices(
    {"median", "mean", "p95"});
struct InteractionPrepared final : Prepared {
    TelemetryPrepared lines;  // one series per value of the series axis; x: the x axis value, y: step time (ns)
    std::string xAxis, seriesAxis, statistic;
    std::vector<std::string> xLabels;  // non-numeric x: the label of each rank
    size_t bytes() const override { return sizeof(*this) + lines.bytes(); }
};

bool number(const std::string& s, double& out) {
    char* end = nullptr;
    out = std::strtod(s.c_str(), &end);
    return !s.empty() && end && *end == '\0';
}

class SweepInteractionPlot final : public TypedPlot<InteractionPrepared> {
public:
    SweepInteractionPlot()
        : TypedPlot(
              {"sweep-interaction", "Interaction of two sweep parameters",
               "Step time against one sweep parameter, one line per value of another: parallel lines mean the two "
               "act independently, crossing or fanning lines that they interact.",
               125}) {}

    std::vector<ParamSpec> parameters(const RunSet& runs) const override {
        return {kSweepInteractionXAxis.spec(runs), kSeriesAxis.spec(runs), kStatistic.spec(), kSkipSteps.spec()};
    }

    core::Result<std::shared_ptr<InteractionPrepared>> prepareTyped(const RunSet& runs, const ParamValues& values,
                                                                    const core::CancelToken& cancel,
                                                                    const core::ProgressFn&) const override {
        auto p = std::make_shared<InteractionPrepared>();
        const auto axes = sweepAxes(runs);
        const AxisRoles roles = resolveAxisRoles(runs, kSweepInteractionXAxis(values), kSeriesAxis(values), kNoAxis);
        p->xAxis = roles.x;
        p->seriesAxis = roles.color;
        p->statistic = kStatistic(values);
        if (axes.empty()) {
            p->lines.messages.push_back("these runs carry no sweep parameters (open a sweep)");
            return p;
        }
        // Pooled step times per (series value, x value).
        std::map<std::string, std::map<std::string, std::vector<double>>> pooled;
        std::vector<std::string> xValues;
        for (const auto& r : runs) {
            if (cancel.cancelled()) return cancelledError();
            if (!r.dataset) continue;
            const std::string x = axisValueOf(r, p->xAxis);
            const std::string series =
                p->seriesAxis.empty() ? std::string("all runs") : p->seriesAxis + "=" + axisValueOf(r, p->seriesAxis);
            for (const auto& [n, ns] : endToEndStepTimes(*r.dataset, kSkipSteps(values)))
                pooled[series][x].push_back(ns);
            xValues.push_back(x);
        }
        sortAxisValues(xValues);
        const std::vector<std::string>& order = xValues;
        double tmp = 0;
        const bool numeric = std::all_of(order.begin(), order.end(), [&](const std::string& v) { return number(v, tmp); });
        if (!numeric) p->xLabels = order;
        for (const auto& [series, byX] : pooled) {
            TelemetrySeries line;
            line.label = series;
            for (size_t i = 0; i < order.size(); ++i) {
                auto it = byX.find(order[i]);
                if (it == byX.end() || it->second.empty()) continue;
                auto v = it->second;
                std::sort(v.begin(), v.end());
                double y = 0;
                if (p->statistic == "mean") {
                    for (double d : v) y += d / double(v.size());
                } else {
                    y = core::stats::quantile(std::span<const double>(v), p->statistic == "p95" ? 0.95 : 0.5);
                }
                line.points.emplace_back(numeric ? std::strtod(order[i].c_str(), nullptr) : double(i), y);
            }
            if (!line.points.empty()) p->lines.series.push_back(std::move(line));
        }
        if (p->lines.series.empty()) p->lines.messages.push_back("no ProfilerStep#N in these runs");
        return p;
    }

    std::optional<std::string> emptyMessageTyped(const InteractionPrepared& p, const ParamValues&) const override {
        if (!p.lines.series.empty()) return std::nullopt;
        return emptyReason(p.lines.messages, "nothing to compare");
    }

    static ScatterChart chart(const InteractionPrepared& p) {
        ScatterChart c;
        c.title = "Interaction of two sweep parameters";
        c.subtitle = fmt::format("{} step time against {}{}", p.statistic, p.xAxis,
                                 p.seriesAxis.empty() ? std::string() : ", one line per " + p.seriesAxis +
                                     (p.xLabels.empty() ? "" : " (x: values in sorted order)"));
        c.xTitle = p.xAxis;
        c.yTitle = p.statistic + " step time";
        c.yUnit = TickUnit::Duration;
        c.lines = true;
        return c;
    }

    void drawTyped(Canvas& c, const InteractionPrepared& p, const ParamValues&) const override {
        if (!p.lines.series.empty()) drawScatter(c, chart(p), p.lines.series);
    }

    std::optional<HitInfo> hitTestTyped(const InteractionPrepared& p, const ParamValues&, const QRectF& rect,
                                        QPointF pt) const override {
        if (p.lines.series.empty()) return std::nullopt;
        return hitScatter(chart(p), p.lines.series, rect, pt, p.xAxis, p.statistic + " step time");
    }

    core::Table tableTyped(const InteractionPrepared& p, const ParamValues&) const override {
        core::Table t;
        t.columns = {"series", p.xAxis.empty() ? std::string("x") : p.xAxis, p.statistic + "_step_ns"};
        t.messages = p.lines.messages;
        for (const auto& s : p.lines.series)
            for (auto [x, y] : s.points) {
                const std::string xText = p.xLabels.empty() ? fmt::format("{}", x) : p.xLabels[size_t(x)];
                t.addRow({s.label, xText, y});
            }
        return t;
    }
};

}  // namespace

STROBE_REGISTER_PLOT(SweepInteractionPlot)

}  // namespace strobe::plots

// Straggler view (analysis `straggler`, summary view): per rank, the time it waited in collectives for the
// others and the wait it caused them (it arrived last); the rank that made the others wait most is highlighted.

#include <fmt/format.h>

#include "core/analysis/straggler.h"
#include "plots/analysis_plot.h"
#include "plots/chart.h"
#include "plots/plot_registry.h"

namespace strobe::plots {
namespace {

class StragglerPlot final : public Plot {
public:
    std::string id() const override { return "straggler"; }
    std::string title() const override { return "Stragglers"; }
    std::string description() const override {
        return "Per rank: time waited in collectives and wait caused to the others (the straggler is highlighted); "
               "or region end lag.";
    }
    int order() const override { return 60; }

    std::vector<ParamSpec> parameters(const RunSet& runs) const override {
        auto s = analysisWindowSpecs(runs, "all");
        ParamSpec metric;
        metric.key = "metric";
        metric.label = "Metric";
        metric.tooltip = "Collective waits (needs no common clock) or how late each rank ends annotated regions";
        metric.type = ParamType::Enum;
        metric.choices = {"collective-wait", "region-end-lag"};
        metric.defaultValue = std::string("collective-wait");
        metric.affectsPrepare = false;
        s.push_back(metric);
        return s;
    }

    core::Result<PreparedPtr> prepare(const RunSet& runs, const ParamValues& values, const core::CancelToken& cancel,
                                      const core::ProgressFn& progress) const override {
        auto r = runAnalysisOnRuns(runs, values, cancel, progress,
                                   [](core::AnalysisContext& ctx, const core::WindowSpec& w) {
                                       return core::stragglerAnalysis(ctx, w, "summary");
                                   });
        if (!r) return r.error();
        return PreparedPtr(r.value());
    }

    BarChart chart(const AnalysisTables& p, const ParamValues& v) const {
        BarChart c;
        c.title = title();
        bool regions = paramString(v, "metric", "collective-wait") == "region-end-lag";
        c.stacked = false;
        if (regions) {
            c.series = {"mean region end lag", "max region end lag"};
            c.colors = {QColor(0x1f, 0x77, 0xb4), QColor(0x9e, 0xc5, 0xe8)};
            c.valueLabel = "lag behind the earliest rank";
        } else {
            c.series = {"waited for others", "made others wait"};
            c.colors = {QColor(0x7f, 0x7f, 0x7f), QColor(0xd6, 0x27, 0x28)};
            c.valueLabel = "time in collectives";
        }
        double worst = 0;
        std::string worstLabel;
        for (size_t ri = 0; ri < p.perRun.size(); ++ri) {
            const auto& t = p.perRun[ri];
            for (size_t row = 0; row < t.rows.size(); ++row) {
                auto rank = int(cellNumber(t, row, "rank", -1));
                std::string label = p.perRun.size() > 1 ? fmt::format("{} / rank {}", p.runLabels[ri], rank)
                                                        : fmt::format("rank {}", rank);
                double a = regions ? cellNumber(t, row, "mean_region_end_lag_ns") : cellNumber(t, row, "wait_ns");
                double b = regions ? cellNumber(t, row, "max_region_end_lag_ns") : cellNumber(t, row, "caused_wait_ns");
                double key = regions ? a : b;
                if (key > worst) {
                    worst = key;
                    c.highlightBar = int(c.bars.size());
                    worstLabel = label;
                }
                c.bars.push_back(label);
                c.values.push_back({a, b});
            }
        }
        c.subtitle = worstLabel.empty()
                         ? fmt::format("window: {}", p.window)
                         : fmt::format("{} {} most ({}); window: {}", worstLabel,
                                       regions ? "ends regions late" : "made the others wait", formatDuration(worst),
                                       p.window);
        c.messages = p.combined.messages;
        if (c.bars.empty()) c.messages.insert(c.messages.begin(), "no collectives or regions matched across ranks");
        return c;
    }

    void draw(Canvas& c, const Prepared& prepared, const ParamValues& values) const override {
        if (const auto* p = dynamic_cast<const AnalysisTables*>(&prepared)) drawBarChart(c, chart(*p, values), false);
    }
    std::optional<HitInfo> hitTest(const Prepared& prepared, const ParamValues& values, const QRectF& rect,
                                   QPointF pt) const override {
        const auto* p = dynamic_cast<const AnalysisTables*>(&prepared);
        if (!p) return std::nullopt;
        return hitBarChart(chart(*p, values), false, rect, pt);
    }
    core::Table table(const Prepared& prepared, const ParamValues&) const override {
        const auto* p = dynamic_cast<const AnalysisTables*>(&prepared);
        return p ? p->combined : core::Table{};
    }
};

}  // namespace
}  // namespace strobe::plots

using strobe::plots::StragglerPlot;
STROBE_REGISTER_PLOT(StragglerPlot)

// Temporal breakdown per rank (analysis `temporal`, Holistic Trace Analysis' definition): idle, compute and
// non-compute GPU time over each rank's window, stacked per rank, in time or in percent of the window.

#include <fmt/format.h>

#include "core/analysis/temporal.h"
#include "plots/analysis_plot.h"
#include "plots/chart.h"
#include "plots/plot_registry.h"

namespace strobe::plots {
namespace {

class TemporalBreakdownPlot final : public Plot {
public:
    std::string id() const override { return "temporal-breakdown"; }
    std::string title() const override { return "Temporal breakdown"; }
    std::string description() const override {
        return "Idle, compute and non-compute GPU time per rank over the analysed window (HTA's definition).";
    }
    int order() const override { return 30; }

    std::vector<ParamSpec> parameters(const RunSet& runs) const override {
        auto s = analysisWindowSpecs(runs);
        ParamSpec pct;
        pct.key = "percent";
        pct.label = "Percent";
        pct.tooltip = "Show shares of each rank's window instead of time";
        pct.type = ParamType::Bool;
        pct.defaultValue = true;
        pct.affectsPrepare = false;
        s.push_back(pct);
        ParamSpec horiz = pct;
        horiz.key = "horizontal";
        horiz.label = "Horizontal bars";
        horiz.tooltip = "Draw bars left to right";
        horiz.defaultValue = false;
        s.push_back(horiz);
        return s;
    }

    core::Result<PreparedPtr> prepare(const RunSet& runs, const ParamValues& values, const core::CancelToken& cancel,
                                      const core::ProgressFn& progress) const override {
        auto r = runAnalysisOnRuns(runs, values, cancel, progress,
                                   [](core::AnalysisContext& ctx, const core::WindowSpec& w) {
                                       return core::temporalBreakdown(ctx, w);
                                   });
        if (!r) return r.error();
        return PreparedPtr(r.value());
    }

    BarChart chart(const AnalysisTables& p, const ParamValues& v) const {
        BarChart c;
        c.title = title();
        bool pct = paramBool(v, "percent", true);
        c.subtitle = fmt::format("window: {}", p.window);
        c.series = {"compute", "non-compute", "idle"};
        c.colors = {QColor(0x2c, 0xa0, 0x2c), QColor(0x1f, 0x77, 0xb4), QColor(0xc8, 0xc8, 0xc8)};
        c.percentAxis = pct;
        c.valueLabel = pct ? "share of the window" : "GPU time";
        for (size_t ri = 0; ri < p.perRun.size(); ++ri) {
            const auto& t = p.perRun[ri];
            for (size_t row = 0; row < t.rows.size(); ++row) {
                if (cellNumber(t, row, "window_ns", -1) < 0) continue;  // rank without activities
                auto rank = int(cellNumber(t, row, "rank", -1));
                c.bars.push_back(p.perRun.size() > 1 ? fmt::format("{} / rank {}", p.runLabels[ri], rank)
                                                     : fmt::format("rank {}", rank));
                if (pct)
                    c.values.push_back({cellNumber(t, row, "compute_pct"), cellNumber(t, row, "non_compute_pct"),
                                        cellNumber(t, row, "idle_pct")});
                else
                    c.values.push_back({cellNumber(t, row, "compute_ns"), cellNumber(t, row, "non_compute_ns"),
                                        cellNumber(t, row, "idle_ns")});
            }
        }
        c.messages = p.combined.messages;
        if (c.bars.empty() && c.messages.empty()) c.messages.push_back("no rank has GPU activities in the window");
        return c;
    }

    void draw(Canvas& c, const Prepared& prepared, const ParamValues& values) const override {
        if (const auto* p = dynamic_cast<const AnalysisTables*>(&prepared))
            drawBarChart(c, chart(*p, values), paramBool(values, "horizontal", false));
    }
    std::optional<HitInfo> hitTest(const Prepared& prepared, const ParamValues& values, const QRectF& rect,
                                   QPointF pt) const override {
        const auto* p = dynamic_cast<const AnalysisTables*>(&prepared);
        if (!p) return std::nullopt;
        return hitBarChart(chart(*p, values), paramBool(values, "horizontal", false), rect, pt);
    }
    core::Table table(const Prepared& prepared, const ParamValues&) const override {
        const auto* p = dynamic_cast<const AnalysisTables*>(&prepared);
        return p ? p->combined : core::Table{};
    }
};

}  // namespace
}  // namespace strobe::plots

using strobe::plots::TemporalBreakdownPlot;
STROBE_REGISTER_PLOT(TemporalBreakdownPlot)

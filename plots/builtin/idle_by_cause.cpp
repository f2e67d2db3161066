// Idle time by cause per rank and stream (analysis `idle`, HTA's rules): host wait, kernel wait (gaps shorter
// than a threshold between back-to-back kernels) and other, stacked per (rank, stream).

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "core/analysis/idle.h"
#include "plots/analysis_plot.h"
#include "plots/chart.h"
#include "plots/plot_registry.h"

namespace strobe::plots {
namespace {

class IdleByCausePlot final : public Plot {
public:
    std::string id() const override { return "idle-by-cause"; }
    std::string title() const override { return "Idle time by cause"; }
    std::string description() const override {
        return "GPU idle time per rank and stream split into host wait, kernel wait and other (HTA's rules).";
    }
    int order() const override { return 50; }

    std::vector<ParamSpec> parameters(const RunSet& runs) const override {
        auto s = analysisWindowSpecs(runs);
        ParamSpec thr;
        thr.key = "kernel_wait_us";
        thr.label = "Kernel wait threshold";
        thr.tooltip = "Gaps shorter than this between back-to-back kernels count as kernel wait (HTA: 30 µs)";
        thr.type = ParamType::Double;
        thr.defaultValue = 30.0;
        thr.min = 0;
        thr.max = 1e6;
        thr.step = 5;
        thr.unit = "µs";
        s.push_back(thr);
        ParamSpec pct;
        pct.key = "percent";
        pct.label = "Percent";
        pct.tooltip = "Show each stream's idle time as 100%";
        pct.type = ParamType::Bool;
        pct.defaultValue = false;
        pct.affectsPrepare = false;
        s.push_back(pct);
        ParamSpec horiz = pct;
        horiz.key = "horizontal";
        horiz.label = "Horizontal bars";
        horiz.tooltip = "Draw bars left to right";
        horiz.defaultValue = true;
        s.push_back(horiz);
        return s;
    }

    core::Result<PreparedPtr> prepare(const RunSet& runs, const ParamValues& values, const core::CancelToken& cancel,
                                      const core::ProgressFn& progress) const override {
        auto thresholdNs = core::TimeNs(paramDouble(values, "kernel_wait_us", 30.0) * 1000.0);
        auto r = runAnalysisOnRuns(runs, values, cancel, progress,
                                   [thresholdNs](core::AnalysisContext& ctx, const core::WindowSpec& w) {
                                       return core::idleBreakdown(ctx, w, thresholdNs);
                                   });
        if (!r) return r.error();
        return PreparedPtr(r.value());
    }

    BarChart chart(const AnalysisTables& p, const ParamValues& v) const {
        BarChart c;
        c.title = title();
        bool pct = paramBool(v, "percent", false);
        c.subtitle = fmt::format("per rank and stream; kernel wait < {} µs; window: {}",
                                 paramDouble(v, "kernel_wait_us", 30.0), p.window);
        c.series = {"host_wait", "kernel_wait", "other"};
        c.colors = {QColor(0xff, 0x7f, 0x0e), QColor(0x94, 0x67, 0xbd), QColor(0xa0, 0xa0, 0xa0)};
        c.percentAxis = pct;
        c.valueLabel = pct ? "share of the stream's idle time" : "idle time";
        for (size_t ri = 0; ri < p.perRun.size(); ++ri) {
            const auto& t = p.perRun[ri];
            // Rows come per (rank, stream, cause) in order; gather them into bars.
            std::map<std::pair<int64_t, int64_t>, size_t> bar;
            std::vector<std::pair<int64_t, int64_t>> order;
            for (size_t row = 0; row < t.rows.size(); ++row) {
                auto key = std::make_pair(int64_t(cellNumber(t, row, "rank", -1)), int64_t(cellNumber(t, row, "stream", -1)));
                auto [it, added] = bar.try_emplace(key, c.bars.size());
                if (added) {
                    c.bars.push_back(p.perRun.size() > 1
                                         ? fmt::format("{} / rank {} stream {}", p.runLabels[ri], key.first, key.second)
                                         : fmt::format("rank {} stream {}", key.first, key.second));
                    c.values.push_back({0, 0, 0});
                }
                std::string cause = cellText(t, row, "cause");
                auto s = size_t(std::find(c.series.begin(), c.series.end(), cause) - c.series.begin());
                if (s < c.series.size()) c.values[it->second][s] += std::max(0.0, cellNumber(t, row, "idle_ns"));
            }
        }
        if (pct)
            for (auto& row : c.values) {
                double total = row[0] + row[1] + row[2];
                for (auto& x : row) x = total > 0 ? x / total * 100.0 : 0;
            }
        c.messages = p.combined.messages;
        if (c.bars.empty()) c.messages.insert(c.messages.begin(), "no GPU activities in the window");
        return c;
    }

    void draw(Canvas& c, const Prepared& prepared, const ParamValues& values) const override {
        if (const auto* p = dynamic_cast<const AnalysisTables*>(&prepared))
            drawBarChart(c, chart(*p, values), paramBool(values, "horizontal", true));
    }
    std::optional<HitInfo> hitTest(const Prepared& prepared, const ParamValues& values, const QRectF& rect,
                                   QPointF pt) const override {
        const auto* p = dynamic_cast<const AnalysisTables*>(&prepared);
        if (!p) return std::nullopt;
        return hitBarChart(chart(*p, values), paramBool(values, "horizontal", true), rect, pt);
    }
    core::Table table(const Prepared& prepared, const ParamValues&) const override {
        const auto* p = dynamic_cast<const AnalysisTables*>(&prepared);
        return p ? p->combined : core::Table{};
    }
};

}  // namespace
}  // namespace strobe::plots

using strobe::plots::IdleByCausePlot;
STROBE_REGISTER_PLOT(IdleByCausePlot)

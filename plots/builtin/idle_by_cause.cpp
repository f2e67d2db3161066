// Idle time by cause per rank and stream (analysis `idle`, HTA's rules): host wait, kernel wait (gaps shorter
// than a threshold between back-to-back kernels) and other, stacked per (rank, stream).

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "core/analysis/idle.h"
#include "plots/analysis_plot.h"
#include "plots/plot_registry.h"

namespace strobe::plots {
namespace {

const DoubleParam kKernelWaitUs =
    DoubleParam{"kernel_wait_us", "Kernel wait threshold",
                "Gaps shorter than this between back-to-back kernels count as kernel wait (HTA: 30 µs)", 30.0}
        .bounded(0, 1e6, 5)
        .unit("µs");

class IdleByCausePlot final : public AnalysisBarPlot {
public:
    IdleByCausePlot()
        : AnalysisBarPlot(
              {"idle-by-cause", "Idle time by cause",
               "GPU idle time per rank and stream split into host wait, kernel wait and other (HTA's rules).", 50}) {}

    std::vector<ParamSpec> parameters(const RunSet& runs) const override {
        return analysisBarSpecs(runs, {kKernelWaitUs.spec()}, "Show each stream's idle time as 100%", false, true);
    }

protected:
    core::Result<core::Table> analyse(core::AnalysisContext& ctx, const core::WindowSpec& w,
                                      const ParamValues& values) const override {
        return core::idleBreakdown(ctx, w, core::TimeNs(kKernelWaitUs(values) * 1000.0));
    }

    BarChart chart(const AnalysisTables& p, const ParamValues& v) const override {
        BarChart c = styledChart(v);
        bool pct = c.percentAxis;
        c.subtitle = fmt::format("per rank and stream; kernel wait < {} µs; window: {}",
                                 kKernelWaitUs(v), p.window);
        c.series = {"host_wait", "kernel_wait", "other"};
        c.colors = {QColor(0xff, 0x7f, 0x0e), QColor(0x94, 0x67, 0xbd), QColor(0xa0, 0xa0, 0xa0)};
        c.valueLabel = pct ? "share of the stream's idle time" : "idle time";
        for (size_t ri = 0; ri < p.perRun.size(); ++ri) {
            const auto& t = p.perRun[ri];
            // Rows come per (rank, stream, cause) in order; gather them into bars.
            std::map<std::pair<int64_t, int64_t>, size_t> bar;
            for (size_t row = 0; row < t.rows.size(); ++row) {
                auto key = std::make_pair(int64_t(cellNumber(t, row, col::kRank, -1)), int64_t(cellNumber(t, row, col::kStream, -1)));
                auto [it, added] = bar.try_emplace(key, c.bars.size());
                if (added) {
                    c.bars.push_back(fmt::format("{} stream {}", p.rankLabel(ri, int(key.first)), key.second));
                    c.values.push_back({0, 0, 0});
                }
                std::string cause = cellText(t, row, col::kCause);
                auto s = size_t(std::find(c.series.begin(), c.series.end(), cause) - c.series.begin());
                if (s < c.series.size()) c.values[it->second][s] += std::max(0.0, cellNumber(t, row, col::kIdleNs));
            }
        }
        if (pct)
            for (auto& row : c.values) {
                double total = row[0] + row[1] + row[2];
                for (auto& x : row) x = total > 0 ? x / total * 100.0 : 0;
            }
        addMessages(c, p, "no GPU activities in the window");
        return c;
    }
};

}  // namespace

STROBE_REGISTER_PLOT(IdleByCausePlot)

}  // namespace strobe::plots

// Temporal breakdown per rank (analysis `temporal`, Holistic Trace Analysis' definition): idle, compute and
// non-compute GPU time over each rank's window, stacked per rank, in time or in percent of the window.

#include <fmt/format.h>

#include "core/analysis/temporal.h"
#include "plots/analysis_plot.h"
#include "plots/plot_registry.h"

namespace strobe::plots {
namespace {

class TemporalBreakdownPlot final : public AnalysisBarPlot {
public:
    TemporalBreakdownPlot()
        : AnalysisBarPlot(
              {"temporal-breakdown", "Temporal breakdown",
               "Idle, compute and non-compute GPU time per rank over the analysed window (HTA's definition).", 30}) {}

    std::vector<ParamSpec> parameters(const RunSet& runs) const override {
        return analysisBarSpecs(runs, {}, "Show shares of each rank's window instead of time", true, false);
    }

protected:
    core::Result<core::Table> analyse(core::AnalysisContext& ctx, const core::WindowSpec& w,
                                      const ParamValues&) const override {
        return core::temporalBreakdown(ctx, w);
    }

    BarChart chart(const AnalysisTables& p, const ParamValues& v) const override {
        BarChart c = styledChart(v);
        bool pct = c.percentAxis;
        c.subtitle = fmt::format("window: {}", p.window);
        c.series = {"compute", "non-compute", "idle"};
        c.colors = {QColor(0x2c, 0xa0, 0x2c), QColor(0x1f, 0x77, 0xb4), QColor(0xc8, 0xc8, 0xc8)};
        c.valueLabel = pct ? "share of the window" : "time in the window";
        for (size_t ri = 0; ri < p.perRun.size(); ++ri) {
            const auto& t = p.perRun[ri];
            for (size_t row = 0; row < t.rows.size(); ++row) {
                if (cellNumber(t, row, col::kWindowNs, -1) < 0) continue;  // rank without activities
                c.bars.push_back(p.rankLabel(ri, int(cellNumber(t, row, col::kRank, -1))));
                if (pct)
                    c.values.push_back({cellNumber(t, row, col::kComputePct), cellNumber(t, row, col::kNonComputePct),
                                        cellNumber(t, row, col::kIdlePct)});
                else
                    c.values.push_back({cellNumber(t, row, col::kComputeNs), cellNumber(t, row, col::kNonComputeNs),
                                        cellNumber(t, row, col::kIdleNs)});
            }
        }
        c.messages = p.combined.messages;
        if (c.bars.empty() && c.messages.empty()) c.messages.push_back("no rank has GPU activities in the window");
        return c;
    }
};

}  // namespace

STROBE_REGISTER_PLOT(TemporalBreakdownPlot)

}  // namespace strobe::plots

// Communication/computation overlap per rank (analysis `overlap`, HTA's definition): each rank's merged
// communication time split into the part during which computation runs (overlapped) and the rest (exposed).

#include <fmt/format.h>

#include "core/analysis/overlap.h"
#include "plots/analysis_plot.h"
#include "plots/plot_registry.h"

namespace strobe::plots {
namespace {

class CommCompOverlapPlot final : public AnalysisBarPlot {
public:
    CommCompOverlapPlot()
        : AnalysisBarPlot(
              {"comm-comp-overlap", "Communication/computation overlap",
               "Per rank, the share of merged communication time during which computation runs (HTA's definition).",
               40}) {}

    std::vector<ParamSpec> parameters(const RunSet& runs) const override {
        return analysisBarSpecs(runs, {}, "Show overlapped/exposed as shares of communication time instead of time",
                                true, true);
    }

protected:
    core::Result<core::Table> analyse(core::AnalysisContext& ctx, const core::WindowSpec& w,
                                      const ParamValues&) const override {
        return core::commCompOverlap(ctx, w);
    }

    BarChart chart(const AnalysisTables& p, const ParamValues& v) const override {
        BarChart c = styledChart(v);
        bool pct = c.percentAxis;
        c.subtitle = fmt::format("communication time overlapped by computation; window: {}", p.window);
        c.series = {"overlapped by computation", "exposed communication"};
        c.colors = {QColor(0x2c, 0xa0, 0x2c), QColor(0xd6, 0x27, 0x28)};
        c.valueLabel = pct ? "share of communication time" : "communication time";
        for (size_t ri = 0; ri < p.perRun.size(); ++ri) {
            const auto& t = p.perRun[ri];
            for (size_t row = 0; row < t.rows.size(); ++row) {
                double comm = cellNumber(t, row, col::kCommNs, 0);
                if (comm <= 0) continue;
                double ov = cellNumber(t, row, col::kOverlapNs, 0);
                auto rank = int(cellNumber(t, row, col::kRank, -1));
                c.bars.push_back(fmt::format("{} ({:.1f}%)", p.rankLabel(ri, rank), cellNumber(t, row, col::kOverlapPct)));
                if (pct) c.values.push_back({ov / comm * 100.0, (comm - ov) / comm * 100.0});
                else c.values.push_back({ov, comm - ov});
            }
        }
        addMessages(c, p, "no rank has communication kernels in the window");
        return c;
    }
};

}  // namespace

STROBE_REGISTER_PLOT(CommCompOverlapPlot)

}  // namespace strobe::plots

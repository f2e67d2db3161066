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
    std::string id() const override { return "comm-comp-overlap"; }
    std::string title() const override { return "Communication/computation overlap"; }
    std::string description() const override {
        return "Per rank, the share of merged communication time during which computation runs (HTA's definition).";
    }
    int order() const override { return 40; }

    std::vector<ParamSpec> parameters(const RunSet& runs) const override {
        auto s = analysisWindowSpecs(runs);
        for (auto& spec :
             barStyleSpecs("Show overlapped/exposed as shares of communication time instead of time", true, true))
            s.push_back(spec);
        return s;
    }

protected:
    core::Result<core::Table> analyse(core::AnalysisContext& ctx, const core::WindowSpec& w,
                                      const ParamValues&) const override {
        return core::commCompOverlap(ctx, w);
    }

    BarChart chart(const AnalysisTables& p, const ParamValues& v) const override {
        BarChart c;
        c.title = title();
        bool pct = kPercent(v);
        c.horizontal = kHorizontal(v);
        c.subtitle = fmt::format("communication time overlapped by computation; window: {}", p.window);
        c.series = {"overlapped by computation", "exposed communication"};
        c.colors = {QColor(0x2c, 0xa0, 0x2c), QColor(0xd6, 0x27, 0x28)};
        c.percentAxis = pct;
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
        c.messages = p.combined.messages;
        if (c.bars.empty()) c.messages.insert(c.messages.begin(), "no rank has communication kernels in the window");
        return c;
    }
};

}  // namespace
}  // namespace strobe::plots

using strobe::plots::CommCompOverlapPlot;
STROBE_REGISTER_PLOT(CommCompOverlapPlot)

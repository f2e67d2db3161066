// Straggler view (analysis `straggler`, summary view): per rank, the time it waited in collectives for the
// others and the wait it caused them (it arrived last); the rank that made the others wait most is highlighted.

#include "core/analysis/straggler.h"

#include <fmt/format.h>

#include "plots/analysis_plot.h"
#include "plots/plot_registry.h"

namespace strobe::plots {
namespace {

const EnumParam kStragglerMetric =
    EnumParam{"evidence", "Evidence",
              "Collective waits (needs no common clock) or how late each rank ends annotated regions",
              "collective-wait"}
        .choices({"collective-wait", "region-end-lag"})
        .formerKey("metric")  // before issue 32: "metric" meant three things across the plots
        .drawOnly();

class StragglerPlot final : public AnalysisBarPlot {
public:
    StragglerPlot()
        : AnalysisBarPlot({"straggler", "Stragglers",
                           "Per rank: time waited in collectives and wait caused to the others (the straggler is "
                           "highlighted); or region end lag.",
                           60}) {}

    std::vector<ParamSpec> parameters(const RunSet& runs) const override {
        auto s = analysisWindowSpecs(runs, "all");
        s.push_back(kStragglerMetric.spec());
        return s;
    }

protected:
    core::Result<core::Table> analyse(core::AnalysisContext& ctx, const core::WindowSpec& w,
                                      const ParamValues&) const override {
        return core::stragglerAnalysis(ctx, w, "summary");
    }

    BarChart chart(const AnalysisTables& p, const ParamValues& v) const override {
        BarChart c;
        c.title = title();
        bool regions = kStragglerMetric(v) == "region-end-lag";
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
                auto rank = int(cellNumber(t, row, col::kRank, -1));
                std::string label = p.rankLabel(ri, rank);
                double a = regions ? cellNumber(t, row, col::kMeanRegionEndLagNs) : cellNumber(t, row, col::kWaitNs);
                double b = regions ? cellNumber(t, row, col::kMaxRegionEndLagNs) : cellNumber(t, row, col::kCausedWaitNs);
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
        addMessages(c, p, "no collectives or regions matched across ranks");
        return c;
    }
};

}  // namespace

STROBE_REGISTER_PLOT(StragglerPlot)

}  // namespace strobe::plots

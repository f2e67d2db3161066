// Top kernels table (analysis `kernels`): kernel statistics by name or category, across ranks or per rank,
// drawn as a table image; sorted and filtered by drawing parameters (no re-preparation).

#include <algorithm>

#include <fmt/format.h>

#include "core/analysis/kernel_stats.h"
#include "plots/analysis_plot.h"
#include "plots/plot_registry.h"
#include "plots/sweep_axes.h"
#include "plots/table_picture.h"

namespace strobe::plots {
namespace {

const BoolParam kAcrossRanks{"across_ranks", "Across ranks",
                             "One row per kernel over every rank (off: one row per rank and kernel)", true};
// The columns sort_by offers (kSortBy).
const std::vector<std::string> kTopKernelsSortColumns{"total_ns", "count",     "mean_ns", "median_ns", "p95_ns",
                                                      "max_ns",   "stddev_ns", "cv",      "name"};
const RegexParam kFilter =
    RegexParam{"filter", "Name filter", "Only rows whose name matches this regular expression (empty: all)", ""}
        .drawOnly();
const IntParam kMaxRows =
    IntParam{"max_rows", "Rows", "Rows drawn in pictures and exports (the table on screen and the CSV have every row that passes the filter)", 30}.bounded(1, 500, 5).drawOnly();

class TopKernelsPlot final : public AnalysisPlot {
public:
    TopKernelsPlot()
        : AnalysisPlot(
              {"top-kernels", "Top kernels",
               "Kernel statistics (count, total, mean, median, p5/p95, stddev, cv) as a sortable, filterable table.",
               90}) {}
    bool isTable() const override { return true; }

    std::vector<ParamSpec> parameters(const RunSet& runs) const override {
        auto s = analysisWindowSpecs(runs, "all");
        for (const auto* spec : {&kSweepGroupBy.spec(), &kAcrossRanks.spec()}) s.push_back(*spec);
        s.push_back(kSortBy.spec(kTopKernelsSortColumns));
        for (const auto* spec : {&kDescending.spec(), &kFilter.spec(), &kMaxRows.spec()}) s.push_back(*spec);
        return s;
    }

    // Row indices of the combined table after the drawing parameters' filter and sort.
    static std::vector<size_t> view(const core::Table& t, const ParamValues& v) {
        return tableView(t, kFilter(v), kSortBy(v), kDescending(v));
    }

    // What the picture shows: run and rank only when the rows differ in them.
    static TablePicture picture(const core::Table& t, const ParamValues& v) {
        TablePicture how;
        const auto shown = displayColumns(t);
        for (const char* k : {"run", "rank", "name", "category", "count", "total_ns", "mean_ns", "median_ns", "p5_ns",
                              "p95_ns", "stddev_ns", "cv"})
            if (std::find(shown.begin(), shown.end(), k) != shown.end()) how.columns.push_back(k);
        how.sortKey = kSortBy(v);
        how.descending = kDescending(v);
        how.maxRows = size_t(kMaxRows(v));
        return how;
    }

    std::optional<std::string> emptyMessageTyped(const AnalysisTables& p, const ParamValues& values) const override {
        if (!view(p.combined, values).empty()) return std::nullopt;
        return emptyReason(p.combined.messages, "no kernels match");
    }

    void drawTyped(Canvas& c, const AnalysisTables& p, const ParamValues& values) const override {
        const auto& t = p.combined;
        auto rows = view(t, values);
        QRectF area =
            drawTitle(c, c.rect, title(),
                      fmt::format("{} of {} rows, sorted by {} {}; window: {}",
                                  std::min<size_t>(rows.size(), size_t(kMaxRows(values))), t.rows.size(),
                                  kSortBy(values), kDescending(values) ? "descending" : "ascending", p.window));
        if (rows.empty()) {
            drawMessage(c, area, t.messages.empty() ? "no kernels match" : t.messages.front());
            return;
        }
        drawTablePicture(c, area, t, rows, picture(t, values));
    }

    std::optional<HitInfo> hitTestTyped(const AnalysisTables& p, const ParamValues& values, const QRectF& rect,
                                        QPointF pt) const override {
        LayoutCanvas lc(rect);
        const QRectF area = drawTitle(lc.canvas, rect, title(), "x");
        const auto& t = p.combined;
        const auto rows = view(t, values);
        const auto how = picture(t, values);
        const auto k = tablePictureRowAt(area, pt, rows.size(), how);
        if (!k) return std::nullopt;
        return tablePictureHit(t, rows[*k], how);
    }

    // The analysis rows that pass the filter, in the drawn order (every row, not only the drawn ones).
    core::Table tableTyped(const AnalysisTables& p, const ParamValues& values) const override {
        return tableRows(p.combined, view(p.combined, values));
    }

protected:
    core::Result<core::Table> analyse(core::AnalysisContext& ctx, const core::WindowSpec& w,
                                      const ParamValues& values) const override {
        // The shared group_by (core::parseSweepGroupBy); the kernels analysis groups by name or category only.
        core::SweepGroupBy by{};
        std::string regex;
        if (auto st = sweepGroupBy(values, by, regex); !st) return st.error();
        if (by != core::SweepGroupBy::Name && by != core::SweepGroupBy::Category)
            return groupingNotSupported(id(), kSweepGroupBy(values), "name or category");
        core::KernelStatsOptions o;
        o.groupBy = by == core::SweepGroupBy::Category ? core::KernelGroupBy::Category : core::KernelGroupBy::Name;
        o.acrossRanks = kAcrossRanks(values);
        return core::kernelStatistics(ctx, w, o);
    }
};

}  // namespace

STROBE_REGISTER_PLOT(TopKernelsPlot)

}  // namespace strobe::plots

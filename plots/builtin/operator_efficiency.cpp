// Operator efficiency table (analysis `ops`, issue 27): every operator instance a model covers (or every operator ×
// shape × dtype, group_by shape) with its FLOPs, bytes, kernel time, achieved TFLOP/s and TB/s, arithmetic
// intensity, % of the GPU's peak and roofline bound, as a sortable, filterable table. The subtitle states the share
// of GPU kernel time the models cover (the analysis' "% of GPU kernel time modelled" message). Over several runs the
// table has a leading run column (AnalysisPlot) and, for a sweep, the run's configuration (its parameter values,
// addConfigurationColumn) beside it: sorting by configuration groups the rows of each configuration.

#include <algorithm>

#include <fmt/format.h>

#include "core/analysis/registry.h"
#include "plots/analysis_plot.h"
#include "plots/plot_registry.h"
#include "plots/table_picture.h"

namespace strobe::plots {
namespace {

// "group_by" is a String in every plot (plots/sweep_axes.h); here it takes instance or shape.
const core::StringParam kOpsTableGroupBy{
    "group_by", "Group operators by",
    "instance: one row per operator instance; shape: one row per operator, shapes and data type (sums over its "
    "instances)",
    "instance"};
const std::vector<std::string> kOpsTableSortColumns{"kernel_ns", "flops",  "bytes",     "tflops_per_s", "tb_per_s",
                                                    "intensity", "peak_pct", "instances", "kernels",      "op",
                                                    "family",    "dtype",  "bound",     "ts_ns",
                                                    "configuration"};
const RegexParam kOpsTableFilter =
    RegexParam{"filter", "Name filter", "Only rows whose name matches this regular expression (empty: all)", ""}
        .drawOnly();
const IntParam kOpsTableMaxRows =
    IntParam{"max_rows", "Rows",
             "Rows drawn in pictures and exports (the table on screen and the CSV have every row that passes the "
             "filter)",
             30}
        .bounded(1, 500, 5)
        .drawOnly();

// The modelled-share messages of the analysis ("ops: rank 0: 73.0 % of GPU kernel time modelled ...; unmodelled:
// ..."), without the "ops: " prefix, joined; what the subtitle leads with.
std::string modelledText(const core::Table& t) {
    std::string out;
    for (const auto& m : t.messages) {
        if (m.find("of GPU kernel time modelled") == std::string::npos) continue;
        std::string s = m;
        if (const auto at = s.find("ops: "); at != std::string::npos) s.erase(at, 5);
        out += (out.empty() ? "" : " | ") + s;
    }
    return out;
}

// A second muted line under the title (the row count and order); returns the area below it.
QRectF drawOpsTableSubline(Canvas& c, const QRectF& area, const std::string& text) {
    const QFontMetricsF fm(c.painter.font());
    c.painter.setPen(c.theme().muted);
    const QRectF line(area.left() + 8, area.top(), area.width() - 16, fm.height());
    c.painter.drawText(line, Qt::AlignLeft | Qt::AlignVCenter, elided(c.painter, text, line.width()));
    const double used = fm.height() + 2;
    return QRectF(area.left(), area.top() + used, area.width(), std::max(0.0, area.height() - used));
}

class OperatorEfficiencyPlot final : public AnalysisPlot {
public:
    OperatorEfficiencyPlot()
        : AnalysisPlot({"operator-efficiency", "Operator efficiency",
                        "Per operator instance (or operator × shape): FLOPs and bytes from the recorded shapes, kernel "
                        "time, TFLOP/s, TB/s, intensity, % of the GPU's peak and the roofline bound, as a sortable, "
                        "filterable table; the subtitle says how much GPU time the models cover.",
                        91}) {}
    bool isTable() const override { return true; }

    std::vector<ParamSpec> parameters(const RunSet&) const override {
        return {kOpsTableGroupBy.spec(),  kSortBy.withDefault("kernel_ns").spec(kOpsTableSortColumns),
                kDescending.spec(),       kOpsTableFilter.spec(),
                kOpsTableMaxRows.spec()};
    }

    static std::vector<size_t> view(const core::Table& t, const ParamValues& v) {
        return tableView(t, kOpsTableFilter(v), kSortBy(v), kDescending(v), "op");
    }

    static TablePicture picture(const core::Table& t, const ParamValues& v) {
        TablePicture how;
        const auto shown = displayColumns(t);
        const bool byShape = kOpsTableGroupBy(v) == "shape";
        // The figures first, the (long) shapes last: a narrow picture cuts the shapes, not the figures.
        for (const char* k : {"run", "configuration", "rank", "op", "family", "dtype", "instances", "kernel_ns", "tflops_per_s",
                              "tb_per_s", "peak_pct", "bound", "intensity", "flops", "bytes", "shapes"}) {
            if (std::string_view(k) == "instances" && !byShape) continue;
            if (std::find(shown.begin(), shown.end(), k) != shown.end()) how.columns.push_back(k);
        }
        how.nameColumn = "op";
        how.sortKey = kSortBy(v);
        how.descending = kDescending(v);
        how.maxRows = size_t(kOpsTableMaxRows(v));
        return how;
    }

    std::optional<std::string> emptyMessageTyped(const AnalysisTables& p, const ParamValues& values) const override {
        if (!view(p.combined, values).empty()) return std::nullopt;
        return emptyReason(p.combined.messages, "no modelled operator matches");
    }

    void drawTyped(Canvas& c, const AnalysisTables& p, const ParamValues& values) const override {
        const auto& t = p.combined;
        const auto rows = view(t, values);
        const std::string modelled = modelledText(t);
        QRectF area = drawTitle(c, c.rect, title(), modelled.empty() ? "no GPU kernels" : modelled);
        area = drawOpsTableSubline(c, area,
                                   fmt::format("{} of {} rows (one per {}), sorted by {} {}",
                                     std::min<size_t>(rows.size(), size_t(kOpsTableMaxRows(values))), t.rows.size(),
                                     kOpsTableGroupBy(values) == "shape" ? "operator × shape" : "operator instance",
                                     kSortBy(values), kDescending(values) ? "descending" : "ascending"));
        if (rows.empty()) {
            drawMessage(c, area, t.messages.empty() ? "no modelled operator matches" : t.messages.front());
            return;
        }
        drawTablePicture(c, area, t, rows, picture(t, values));
    }

    std::optional<HitInfo> hitTestTyped(const AnalysisTables& p, const ParamValues& values, const QRectF& rect,
                                        QPointF pt) const override {
        LayoutCanvas lc(rect);
        QRectF area = drawTitle(lc.canvas, rect, title(), "x");
        area = drawOpsTableSubline(lc.canvas, area, "x");
        const auto& t = p.combined;
        const auto rows = view(t, values);
        const auto how = picture(t, values);
        const auto k = tablePictureRowAt(area, pt, rows.size(), how);
        if (!k) return std::nullopt;
        return tablePictureHit(t, rows[*k], how);
    }

    // The analysis rows that pass the filter, in the drawn order: `strobe-cli analyze ops --csv` re-ordered.
    core::Table tableTyped(const AnalysisTables& p, const ParamValues& values) const override {
        return tableRows(p.combined, view(p.combined, values));
    }

protected:
    bool namesConfigurations() const override { return true; }

    core::Result<core::Table> analyse(core::AnalysisContext& ctx, const core::WindowSpec&,
                                      const ParamValues& values) const override {
        const std::string by = kOpsTableGroupBy(values);
        if (by != "instance" && by != "shape")
            return core::Error(fmt::format("group_by {}: {} groups by instance or shape", by, id()));
        core::AnalysisRequest req;
        if (auto all = core::WindowSpec::parse("all", ""); all) req.window = *all;
        req.values["group-by"] = by;
        return core::runAnalysis(ctx, "ops", req);
    }
};

}  // namespace

STROBE_REGISTER_PLOT(OperatorEfficiencyPlot)

}  // namespace strobe::plots

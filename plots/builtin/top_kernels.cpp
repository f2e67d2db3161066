// Top kernels table (analysis `kernels`): kernel statistics by name or category, across ranks or per rank,
// drawn as a table image; sorted and filtered by drawing parameters (no re-preparation).

#include <QFontMetricsF>
#include <algorithm>
#include <numeric>
#include <regex>

#include <fmt/format.h>

#include "core/analysis/kernel_stats.h"
#include "plots/analysis_plot.h"
#include "plots/plot_registry.h"

namespace strobe::plots {
namespace {

const EnumParam kGroupBy = EnumParam{"group_by", "Group by", "Kernel name or category", "name"}.choices({"name", "category"});
const BoolParam kAcrossRanks{"across_ranks", "Across ranks",
                             "One row per kernel over every rank (off: one row per rank and kernel)", true};
const EnumParam kSortBy = EnumParam{"sort_by", "Sort by", "Column to sort by", "total_ns"}
                              .choices({"total_ns", "count", "mean_ns", "median_ns", "p95_ns", "max_ns", "stddev_ns",
                                        "cv", "name"})
                              .drawOnly();
const BoolParam kDescending = BoolParam{"descending", "Descending", "Largest first", true}.drawOnly();
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
        for (const auto* spec : {&kGroupBy.spec(), &kAcrossRanks.spec(), &kSortBy.spec(), &kDescending.spec(),
                                 &kFilter.spec(), &kMaxRows.spec()})
            s.push_back(*spec);
        return s;
    }

    // Row indices of the combined table after the drawing parameters' filter and sort.
    static std::vector<size_t> view(const core::Table& t, const ParamValues& v) {
        std::vector<size_t> rows;
        std::string f = kFilter(v);
        std::optional<std::regex> re;
        if (!f.empty()) {
            try {
                re.emplace(f, std::regex::ECMAScript);
            } catch (const std::regex_error&) {
                re.reset();
            }
        }
        for (size_t i = 0; i < t.rows.size(); ++i)
            if (!re || std::regex_search(cellText(t, i, col::kName), *re)) rows.push_back(i);
        std::string key = kSortBy(v);
        bool desc = kDescending(v);
        std::stable_sort(rows.begin(), rows.end(), [&](size_t a, size_t b) {
            if (key == "name") {
                auto x = cellText(t, a, col::kName), y = cellText(t, b, col::kName);
                return desc ? x > y : x < y;
            }
            double x = cellNumber(t, a, key), y = cellNumber(t, b, key);
            return desc ? x > y : x < y;
        });
        return rows;
    }

    std::optional<std::string> emptyMessage(const Prepared& prepared, const ParamValues& values) const override {
        const auto* p = dynamic_cast<const AnalysisTables*>(&prepared);
        if (!p || !view(p->combined, values).empty()) return std::nullopt;
        return emptyReason(p->combined.messages, "no kernels match");
    }

    void draw(Canvas& c, const Prepared& prepared, const ParamValues& values) const override {
        const auto* p = dynamic_cast<const AnalysisTables*>(&prepared);
        if (!p) return;
        const auto& t = p->combined;
        auto rows = view(t, values);
        QRectF area = drawTitle(c, c.rect, title(),
                                fmt::format("{} of {} rows, sorted by {} {}; window: {}",
                                            std::min<size_t>(rows.size(), size_t(kMaxRows(values))),
                                            t.rows.size(), kSortBy(values),
                                            kDescending(values) ? "descending" : "ascending",
                                            p->window));
        if (rows.empty()) {
            drawMessage(c, area, t.messages.empty() ? "no kernels match" : t.messages.front());
            return;
        }
        auto& painter = c.painter;
        Theme th = c.theme();
        QFontMetricsF fm(painter.font());
        double rowH = fm.height() + 6;
        auto maxRows = size_t(kMaxRows(values));
        rows.resize(std::min(rows.size(), maxRows));
        QFont f = painter.font(), bold = f;
        bold.setBold(true);
        auto cols = columns(t, rows, fm, QFontMetricsF(bold), area.width() - 16);
        double x0 = area.left() + 8, y = area.top() + 4;
        std::string sortKey = kSortBy(values);
        // Header.
        painter.setFont(bold);
        double x = x0;
        for (const auto& col : cols) {
            painter.setPen(col.key == sortKey ? th.highlight : th.foreground);
            painter.drawText(QRectF(x + 4, y, col.width - 8, rowH), (col.right ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter,
                             QString::fromStdString(col.header + (col.key == sortKey ? (kDescending(values) ? " ▼" : " ▲") : "")));
            x += col.width;
        }
        painter.setFont(f);
        y += rowH;
        painter.setPen(QPen(th.foreground, 0));
        painter.drawLine(QPointF(x0, y), QPointF(x, y));
        // Long names are cut where they differ from the other names drawn.
        std::vector<std::string> names;
        for (size_t r : rows) names.push_back(cellText(t, r, col::kName));
        auto shared = sharedPrefixLengths(names);
        for (size_t k = 0; k < rows.size() && y + rowH <= area.bottom(); ++k) {
            size_t r = rows[k];
            if (k % 2 == 1) painter.fillRect(QRectF(x0, y, x - x0, rowH), QColor(th.grid.red(), th.grid.green(), th.grid.blue(), 110));
            double xx = x0;
            for (const auto& col : cols) {
                const std::string text = formatCell(t, r, col.key);
                painter.setPen(th.foreground);
                painter.drawText(
                    QRectF(xx + 4, y, col.width - 8, rowH), (col.right ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter,
                    col.key == "name" ? elideMiddle(fm, text, col.width - 8, shared[k])
                                      : elided(painter, text, col.width - 8));
                xx += col.width;
            }
            y += rowH;
        }
    }

    struct Col {
        std::string key, header;
        double width = 0;
        bool right = true;  // numbers right-aligned
    };
    // The columns drawn (run and rank only when the rows differ in them), each as wide as its widest text among
    // `rows`; the name takes the rest of `width`, at most what its longest name needs, at least 200 px.
    static std::vector<Col> columns(const core::Table& t, const std::vector<size_t>& rows, const QFontMetricsF& fm,
                                    const QFontMetricsF& boldFm, double width) {
        const auto shown = displayColumns(t);
        std::vector<Col> cols;
        for (const char* k : {"run", "rank", "name", "category", "count", "total_ns", "mean_ns", "median_ns", "p5_ns",
                              "p95_ns", "stddev_ns", "cv"}) {
            if (std::find(shown.begin(), shown.end(), k) == shown.end()) continue;
            Col c{k, columnHeader(k)};
            c.right = c.key != "name" && c.key != "category" && c.key != "run";
            c.width = boldFm.horizontalAdvance(QString::fromStdString(c.header + " ▼"));
            for (size_t r : rows)
                c.width = std::max(c.width, fm.horizontalAdvance(QString::fromStdString(formatCell(t, r, c.key))));
            c.width += 14;
            cols.push_back(std::move(c));
        }
        double others = 0;
        for (const auto& c : cols)
            if (c.key != "name") others += c.width;
        for (auto& c : cols)
            if (c.key == "name") c.width = std::min(c.width, std::max(200.0, width - others));
        return cols;
    }

    std::optional<HitInfo> hitTest(const Prepared& prepared, const ParamValues& values, const QRectF& rect,
                                   QPointF pt) const override {
        const auto* p = dynamic_cast<const AnalysisTables*>(&prepared);
        if (!p) return std::nullopt;
        LayoutCanvas lc(rect);
        QRectF area = drawTitle(lc.canvas, rect, title(), "x");
        QFontMetricsF fm(lc.painter.font());
        double rowH = fm.height() + 6;
        double y0 = area.top() + 4 + rowH;
        if (pt.y() < y0) return std::nullopt;
        auto k = size_t((pt.y() - y0) / rowH);
        auto rows = view(p->combined, values);
        if (k >= rows.size() || k >= size_t(kMaxRows(values))) return std::nullopt;
        const auto& t = p->combined;
        size_t r = rows[k];
        HitInfo h;
        h.title = cellText(t, r, col::kName);
        for (const auto& col : displayColumns(t))
            if (col != "name") h.fields.push_back({columnHeader(col), formatCell(t, r, col)});
        return h;
    }

    // The analysis rows that pass the filter, in the drawn order (every row, not only the drawn ones).
    core::Table table(const Prepared& prepared, const ParamValues& values) const override {
        const auto* p = dynamic_cast<const AnalysisTables*>(&prepared);
        if (!p) return {};
        core::Table out;
        out.columns = p->combined.columns;
        out.messages = p->combined.messages;
        for (size_t r : view(p->combined, values)) out.rows.push_back(p->combined.rows[r]);
        return out;
    }

protected:
    core::Result<core::Table> analyse(core::AnalysisContext& ctx, const core::WindowSpec& w,
                                      const ParamValues& values) const override {
        core::KernelStatsOptions o;
        o.groupBy = kGroupBy(values) == "category" ? core::KernelGroupBy::Category
                                                                          : core::KernelGroupBy::Name;
        o.acrossRanks = kAcrossRanks(values);
        return core::kernelStatistics(ctx, w, o);
    }
};

}  // namespace

STROBE_REGISTER_PLOT(TopKernelsPlot)

}  // namespace strobe::plots

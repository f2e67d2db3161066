#include "plots/table_picture.h"

#include <algorithm>
#include <regex>

#include <QFontMetricsF>

#include "plots/analysis_plot.h"

namespace strobe::plots {

core::Table tableRows(const core::Table& t, const std::vector<size_t>& rows) {
    core::Table out;
    out.columns = t.columns;
    out.messages = t.messages;
    out.rows.reserve(rows.size());
    for (size_t r : rows) out.rows.push_back(t.rows[r]);
    return out;
}

std::vector<size_t> tableView(const core::Table& t, const std::string& filter, const std::string& sortKey,
                              bool descending, const std::string& nameColumn) {
    std::optional<std::regex> re;
    if (!filter.empty()) {
        try {
            re.emplace(filter, std::regex::ECMAScript);
        } catch (const std::regex_error&) {
            re.reset();
        }
    }
    std::vector<size_t> rows;
    for (size_t i = 0; i < t.rows.size(); ++i)
        if (!re || std::regex_search(cellText(t, i, nameColumn), *re)) rows.push_back(i);
    const int sortCol = t.columnIndex(sortKey);
    if (sortCol < 0) return rows;
    // A column is text when its first non-null cell is.
    bool text = false;
    for (const auto& r : t.rows)
        if (!std::holds_alternative<std::monostate>(r[size_t(sortCol)])) {
            text = std::holds_alternative<std::string>(r[size_t(sortCol)]);
            break;
        }
    std::stable_sort(rows.begin(), rows.end(), [&](size_t a, size_t b) {
        if (text) {
            auto x = cellText(t, a, sortKey), y = cellText(t, b, sortKey);
            return descending ? x > y : x < y;
        }
        const double x = cellNumber(t, a, sortKey), y = cellNumber(t, b, sortKey);
        return descending ? x > y : x < y;
    });
    return rows;
}

namespace {

struct Col {
    std::string key, header;
    double width = 0;
    bool right = true;  // numbers right-aligned
};

double rowHeight(const QFontMetricsF& fm) { return fm.height() + 6; }

// Each column as wide as its widest text among `rows`; the name column takes the rest of `width`, at most what
// its longest name needs, at least 200 px.
std::vector<Col> layoutColumns(const core::Table& t, const std::vector<size_t>& rows, const TablePicture& how,
                               const QFontMetricsF& fm, const QFontMetricsF& boldFm, double width) {
    std::vector<Col> cols;
    for (const auto& k : how.columns) {
        const int ci = t.columnIndex(k);
        if (ci < 0) continue;
        Col c{k, columnHeader(k)};
        bool textColumn = k == how.nameColumn;
        for (size_t r : rows)
            if (std::holds_alternative<std::string>(t.rows[r][size_t(ci)])) textColumn = true;
        c.right = !textColumn;
        c.width = boldFm.horizontalAdvance(QString::fromStdString(c.header + " ▼"));
        for (size_t r : rows)
            c.width = std::max(c.width, fm.horizontalAdvance(QString::fromStdString(formatCell(t, r, c.key))));
        c.width += 14;
        cols.push_back(std::move(c));
    }
    double others = 0;
    for (const auto& c : cols)
        if (c.key != how.nameColumn) others += c.width;
    for (auto& c : cols)
        if (c.key == how.nameColumn) c.width = std::min(c.width, std::max(200.0, width - others));
    return cols;
}

}  // namespace

void drawTablePicture(Canvas& c, const QRectF& area, const core::Table& t, const std::vector<size_t>& allRows,
                      const TablePicture& how) {
    auto& painter = c.painter;
    const Theme th = c.theme();
    const QFontMetricsF fm(painter.font());
    const double rowH = rowHeight(fm);
    std::vector<size_t> rows(allRows.begin(), allRows.begin() + std::min(allRows.size(), how.maxRows));
    QFont f = painter.font(), bold = f;
    bold.setBold(true);
    const auto cols = layoutColumns(t, rows, how, fm, QFontMetricsF(bold), area.width() - 16);
    const double x0 = area.left() + 8;
    double y = area.top() + 4;
    painter.setFont(bold);
    double x = x0;
    for (const auto& col : cols) {
        const bool sorted = col.key == how.sortKey;
        painter.setPen(sorted ? th.highlight : th.foreground);
        painter.drawText(QRectF(x + 4, y, col.width - 8, rowH),
                         (col.right ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter,
                         QString::fromStdString(col.header + (sorted ? (how.descending ? " ▼" : " ▲") : "")));
        x += col.width;
    }
    painter.setFont(f);
    y += rowH;
    painter.setPen(QPen(th.foreground, 0));
    painter.drawLine(QPointF(x0, y), QPointF(x, y));
    std::vector<std::string> names;
    for (size_t r : rows) names.push_back(cellText(t, r, how.nameColumn));
    const auto shared = sharedPrefixLengths(names);
    for (size_t k = 0; k < rows.size() && y + rowH <= area.bottom(); ++k) {
        const size_t r = rows[k];
        if (k % 2 == 1)
            painter.fillRect(QRectF(x0, y, x - x0, rowH), QColor(th.grid.red(), th.grid.green(), th.grid.blue(), 110));
        double xx = x0;
        for (const auto& col : cols) {
            const std::string text = formatCell(t, r, col.key);
            painter.setPen(th.foreground);
            painter.drawText(QRectF(xx + 4, y, col.width - 8, rowH),
                             (col.right ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter,
                             col.key == how.nameColumn ? elideMiddle(fm, text, col.width - 8, shared[k])
                                                       : elided(painter, text, col.width - 8));
            xx += col.width;
        }
        y += rowH;
    }
}

std::optional<size_t> tablePictureRowAt(const QRectF& area, QPointF pt, size_t rowCount, const TablePicture& how) {
    LayoutCanvas lc(area);
    const double rowH = rowHeight(QFontMetricsF(lc.painter.font()));
    const double y0 = area.top() + 4 + rowH;
    if (pt.y() < y0) return std::nullopt;
    const auto k = size_t((pt.y() - y0) / rowH);
    if (k >= rowCount || k >= how.maxRows) return std::nullopt;
    return k;
}

HitInfo tablePictureHit(const core::Table& t, size_t row, const TablePicture& how) {
    HitInfo h;
    h.title = cellText(t, row, how.nameColumn);
    for (const auto& col : how.columns)
        if (col != how.nameColumn && t.columnIndex(col) >= 0)
            h.fields.push_back({columnHeader(col), formatCell(t, row, col)});
    return h;
}

}  // namespace strobe::plots

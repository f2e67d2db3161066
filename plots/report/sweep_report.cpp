// The sweep report: tables from core::compareSweep and the overlap analysis, drawn as inline SVG (no script, no
// external resource, so the page reads the same offline and in any browser), each table also as CSV.
#include "plots/report/sweep_report.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "core/analysis/columns.h"
#include "core/analysis/context.h"
#include "core/analysis/collectives.h"
#include "core/analysis/overlap.h"
#include "core/analysis/structural_diff.h"
#include "core/analysis/table.h"
#include "plots/chart.h"

namespace strobe::plots {

namespace {

using core::SweepCompareRow;
using core::SweepComparison;
using core::RunEntry;
using core::Table;

std::string esc(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (char c : s) {
        switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        default: out += c;
        }
    }
    return out;
}

std::string shorten(const std::string& s, size_t n) { return s.size() <= n ? s : s.substr(0, n - 1) + "…"; }

std::string hex(const QColor& c) { return fmt::format("#{:02x}{:02x}{:02x}", c.red(), c.green(), c.blue()); }

double percentileOf(const std::vector<double>& sorted, double q) {
    return sorted.empty() ? 0.0 : core::stats::quantile(std::span<const double>(sorted), q);
}

std::string paramsLabel(const std::map<std::string, std::string>& p) {
    const std::string text = core::parametersText(p);
    return text.empty() ? "(one configuration)" : text;
}

// A configuration of the sweep: runs equal but for their repeat index, in the order the runs came.
struct Config {
    std::string key;
    std::map<std::string, std::string> params;
    std::vector<const RunEntry*> runs;
    std::string label() const { return paramsLabel(params); }
    // The axis values alone ("4 / 256"), for the x axis of the charts (the axis names go in the caption).
    std::string shortLabel() const {
        std::string out;
        for (const auto& [k, v] : params) out += (out.empty() ? "" : " / ") + v;
        return out.empty() ? "(one)" : out;
    }
};

// "x: nccl_channels / threads", the axes the short labels list.
std::string axesCaption(const std::vector<Config>& configs) {
    if (configs.empty() || configs.front().params.empty()) return {};
    std::string out;
    for (const auto& [k, v] : configs.front().params) out += (out.empty() ? "" : " / ") + k;
    return "<figcaption>x: " + out + "</figcaption>";
}

std::vector<Config> configsOf(const core::RunSet& runs) {
    std::vector<Config> out;
    for (const auto& r : runs) {
        const std::string key = r.key();
        auto it = std::find_if(out.begin(), out.end(), [&](const Config& c) { return c.key == key; });
        if (it == out.end()) {
            out.push_back({key, core::parameterTexts(r.parameters), {}});
            it = out.end() - 1;
        }
        it->runs.push_back(&r);
    }
    return out;
}

// Values of one axis in order: numerically when every value is a number, else as text.
std::vector<std::string> axisValues(const std::vector<Config>& configs, const std::string& axis) {
    std::set<std::string> seen;
    for (const auto& c : configs)
        if (auto it = c.params.find(axis); it != c.params.end()) seen.insert(it->second);
    std::vector<std::string> v(seen.begin(), seen.end());
    auto num = [](const std::string& s, double& out) {
        std::istringstream in(s);
        return static_cast<bool>(in >> out) && in.eof();
    };
    double a = 0, b = 0;
    if (std::all_of(v.begin(), v.end(), [&](const std::string& s) { return num(s, a); }))
        std::sort(v.begin(), v.end(), [&](const std::string& x, const std::string& y) {
            num(x, a);
            num(y, b);
            return a < b;
        });
    return v;
}

// Configurations ordered by their axis values (numerically where the axis is numeric), axes in name order.
void sortConfigs(std::vector<Config>& configs) {
    std::map<std::string, std::vector<std::string>> order;
    for (const auto& c : configs)
        for (const auto& [k, v] : c.params)
            if (!order.count(k)) order[k] = axisValues(configs, k);
    auto rankOf = [&](const Config& c) {
        std::vector<size_t> r;
        for (const auto& [axis, values] : order) {
            auto it = c.params.find(axis);
            r.push_back(it == c.params.end() ? values.size()
                                             : size_t(std::find(values.begin(), values.end(), it->second) - values.begin()));
        }
        return r;
    };
    std::stable_sort(configs.begin(), configs.end(), [&](const Config& a, const Config& b) { return rankOf(a) < rankOf(b); });
}

// ---------------------------------------------------------------- SVG pieces

constexpr double kLeft = 78, kRight = 16, kTop = 30, kBottom = 46;

// A vertical value axis from `lo` to `hi` (ns or %), grid lines across the plot, labels at the left.
std::string svgAxis(double lo, double hi, double x0, double x1, double y0, double y1, TickUnit unit) {
    std::string out;
    auto ticks = niceTicks(lo, hi, 5);
    const auto labels = tickLabels(ticks, unit);
    for (size_t i = 0; i < ticks.size(); ++i) {
        if (ticks[i] < lo - 1e-9 * std::abs(hi) || ticks[i] > hi + 1e-9 * std::abs(hi)) continue;
        const double y = y1 - (ticks[i] - lo) / (hi - lo) * (y1 - y0);
        out += fmt::format("<line x1='{:.1f}' y1='{:.1f}' x2='{:.1f}' y2='{:.1f}' class='grid'/>", x0, y, x1, y);
        out += fmt::format("<text x='{:.1f}' y='{:.1f}' class='tick' text-anchor='end'>{}</text>", x0 - 6, y + 4,
                           esc(i < labels.size() ? labels[i] : ""));
    }
    return out;
}

struct SweepReportBox {
    std::string label;
    std::vector<double> samples;  // sorted
    std::string fill;
    std::string note;  // above the box (e.g. "+10.0% *")
};

// Box plot: box from the 25th to the 75th percentile, the median as a line, whiskers to the smallest and largest
// per-step time, the mean as a dot.
std::string svgBoxPlot(const std::string& title, const std::vector<SweepReportBox>& boxes) {
    const double w = std::max(520.0, kLeft + kRight + 90.0 * double(boxes.size())), h = 250;
    double lo = 1e300, hi = -1e300;
    for (const auto& b : boxes)
        if (!b.samples.empty()) {
            lo = std::min(lo, b.samples.front());
            hi = std::max(hi, b.samples.back());
        }
    if (lo > hi) return {};
    const double pad = std::max((hi - lo) * 0.08, std::abs(hi) * 0.01 + 1);
    lo = std::max(0.0, lo - pad);
    hi += pad;
    const double x0 = kLeft, x1 = w - kRight, y0 = kTop, y1 = h - kBottom;
    auto yOf = [&](double v) { return y1 - (v - lo) / (hi - lo) * (y1 - y0); };
    std::string out = fmt::format("<svg xmlns='http://www.w3.org/2000/svg' width='{:.0f}' height='{:.0f}' "
                                  "viewBox='0 0 {:.0f} {:.0f}' role='img'><title>{}</title>",
                                  w, h, w, h, esc(title));
    out += fmt::format("<text x='8' y='18' class='title'>{}</text>", esc(shorten(title, size_t((w - 16) / 8.2))));
    out += svgAxis(lo, hi, x0, x1, y0, y1, TickUnit::Duration);
    out += fmt::format("<g class='plotarea' data-x0='{:.1f}' data-y0='{:.1f}' data-x1='{:.1f}' data-y1='{:.1f}'/>", x0,
                       y0, x1, y1);
    const double slot = (x1 - x0) / double(boxes.size());
    for (size_t i = 0; i < boxes.size(); ++i) {
        const auto& b = boxes[i];
        const double cx = x0 + slot * (double(i) + 0.5), half = std::min(28.0, slot * 0.3);
        if (!b.samples.empty()) {
            const double q1 = percentileOf(b.samples, 0.25), q3 = percentileOf(b.samples, 0.75);
            const double med = percentileOf(b.samples, 0.5);
            double mean = 0;
            for (double v : b.samples) mean += v / double(b.samples.size());
            out += fmt::format("<line x1='{0:.1f}' y1='{1:.1f}' x2='{0:.1f}' y2='{2:.1f}' class='whisker mark'/>", cx,
                               yOf(b.samples.front()), yOf(b.samples.back()));
            out += fmt::format("<rect x='{:.1f}' y='{:.1f}' width='{:.1f}' height='{:.1f}' fill='{}' class='box mark'/>",
                               cx - half, yOf(q3), 2 * half, std::max(1.0, yOf(q1) - yOf(q3)), b.fill);
            out += fmt::format("<line x1='{:.1f}' y1='{:.1f}' x2='{:.1f}' y2='{:.1f}' class='median mark'/>", cx - half,
                               yOf(med), cx + half, yOf(med));
            out += fmt::format("<circle cx='{:.1f}' cy='{:.1f}' r='2.5' class='mean mark'/>", cx, yOf(mean));
        }
        out += fmt::format("<text x='{:.1f}' y='{:.1f}' class='label' text-anchor='middle'>{}</text>", cx, y1 + 16,
                           esc(shorten(b.label, size_t(std::max(8.0, slot / 6.5)))));
        out += fmt::format("<text x='{:.1f}' y='{:.1f}' class='note' text-anchor='middle'>{}</text>", cx, y1 + 32,
                           esc(b.note));
    }
    return out + "</svg>";
}

// Horizontal stacked bars: one bar per configuration, one segment per category, with a legend.
std::string svgStacked(const std::vector<std::string>& bars, const std::vector<std::string>& parts,
                       const std::vector<std::vector<double>>& value) {
    const double rowH = 26, w = 760, legendH = 22.0 * std::ceil(double(parts.size()) / 4.0);
    const double x0 = 190, x1 = w - kRight, h = kTop + rowH * double(bars.size()) + 30 + legendH;
    double hi = 0;
    for (const auto& row : value) {
        double s = 0;
        for (double v : row) s += v;
        hi = std::max(hi, s);
    }
    if (hi <= 0) return {};
    std::string out = fmt::format("<svg xmlns='http://www.w3.org/2000/svg' width='{:.0f}' height='{:.0f}' "
                                  "viewBox='0 0 {:.0f} {:.0f}' role='img'><title>GPU time per step by category</title>",
                                  w, h, w, h);
    // The axis ends at the first tick at or past the longest stack (niceTicks may stop below it): every stack holds
    // on the axis (the report used to clip gemm and reduction off the end).
    auto ticks = niceTicks(0, hi, 5);
    while (!ticks.empty() && ticks.back() < hi) ticks.push_back(ticks.back() + (ticks.size() > 1 ? ticks[1] - ticks[0] : hi));
    if (ticks.empty()) ticks = {0, hi};
    const double top = ticks.back();
    const auto labels = tickLabels(ticks, TickUnit::Duration);
    const double yAxis = kTop + rowH * double(bars.size());
    out += fmt::format("<g class='plotarea' data-x0='{:.1f}' data-y0='{:.1f}' data-x1='{:.1f}' data-y1='{:.1f}'/>", x0,
                       kTop - 4, x1, yAxis);
    for (size_t i = 0; i < ticks.size(); ++i) {
        const double x = x0 + ticks[i] / top * (x1 - x0);
        out += fmt::format("<line x1='{0:.1f}' y1='{1:.1f}' x2='{0:.1f}' y2='{2:.1f}' class='grid'/>", x, kTop - 4,
                           yAxis);
        out += fmt::format("<text x='{:.1f}' y='{:.1f}' class='tick' text-anchor='{}'>{}</text>", x, yAxis + 14,
                           i + 1 == ticks.size() ? "end" : "middle", esc(labels[i]));
    }
    for (size_t b = 0; b < bars.size(); ++b) {
        const double y = kTop + rowH * double(b);
        out += fmt::format("<text x='{:.1f}' y='{:.1f}' class='label' text-anchor='end'>{}</text>", x0 - 8, y + 16,
                           esc(shorten(bars[b], 30)));
        double x = x0;
        for (size_t p = 0; p < parts.size(); ++p) {
            const double len = value[b][p] / top * (x1 - x0);
            if (len <= 0) continue;
            out += fmt::format("<rect class='mark' x='{:.1f}' y='{:.1f}' width='{:.1f}' height='{:.1f}' fill='{}'><title>{}: {}"
                               "</title></rect>",
                               x, y + 3, len, rowH - 6, hex(seriesColor(int(p))), esc(parts[p]),
                               esc(formatDuration(value[b][p])));
            x += len;
        }
    }
    for (size_t p = 0; p < parts.size(); ++p) {
        const double lx = x0 + double(p % 4) * 140, ly = yAxis + 30 + 22.0 * double(p / 4);
        out += fmt::format("<rect x='{:.1f}' y='{:.1f}' width='12' height='12' fill='{}'/>", lx, ly - 10,
                           hex(seriesColor(int(p))));
        out += fmt::format("<text x='{:.1f}' y='{:.1f}' class='label'>{}</text>", lx + 16, ly, esc(shorten(parts[p], 18)));
    }
    return out + "</svg>";
}

// Vertical bars of a percentage per configuration (none: an empty slot marked "n/a").
std::string svgPercentBars(const std::string& title, const std::vector<std::string>& bars,
                           const std::vector<std::optional<double>>& pct) {
    const double w = std::max(420.0, kLeft + kRight + 90.0 * double(bars.size())), h = 230;
    const double x0 = kLeft, x1 = w - kRight, y0 = kTop + 14, y1 = h - kBottom;
    std::string out = fmt::format("<svg xmlns='http://www.w3.org/2000/svg' width='{:.0f}' height='{:.0f}' "
                                  "viewBox='0 0 {:.0f} {:.0f}' role='img'><title>{}</title>",
                                  w, h, w, h, esc(title));
    out += fmt::format("<text x='8' y='18' class='title'>{}</text>", esc(title));
    out += svgAxis(0, 100, x0, x1, y0, y1, TickUnit::Percent);
    out += fmt::format("<g class='plotarea' data-x0='{:.1f}' data-y0='{:.1f}' data-x1='{:.1f}' data-y1='{:.1f}'/>", x0,
                       y0, x1, y1);
    const double slot = (x1 - x0) / double(std::max<size_t>(1, bars.size()));
    for (size_t i = 0; i < bars.size(); ++i) {
        const double cx = x0 + slot * (double(i) + 0.5), half = std::min(24.0, slot * 0.3);
        if (pct[i]) {
            const double y = y1 - std::clamp(*pct[i], 0.0, 100.0) / 100 * (y1 - y0);
            out += fmt::format("<rect class='mark' x='{:.1f}' y='{:.1f}' width='{:.1f}' height='{:.1f}' fill='{}'/>", cx - half, y,
                               2 * half, std::max(0.5, y1 - y), hex(seriesColor(0)));
            out += fmt::format("<text x='{:.1f}' y='{:.1f}' class='note' text-anchor='middle'>{:.1f}%</text>", cx,
                               y - 4, *pct[i]);
        } else {
            out += fmt::format("<text x='{:.1f}' y='{:.1f}' class='note' text-anchor='middle'>n/a</text>", cx, y1 - 6);
        }
        out += fmt::format("<text x='{:.1f}' y='{:.1f}' class='label' text-anchor='middle'>{}</text>", cx, y1 + 16,
                           esc(shorten(bars[i], size_t(std::max(8.0, slot / 6.5)))));
    }
    return out + "</svg>";
}

// A heatmap: rows × columns of values (NaN: no configuration), each cell coloured from light to dark by its value
// and labelled with it.
std::string svgHeatmap(const std::string& rowAxis, const std::vector<std::string>& rowsV, const std::string& colAxis,
                       const std::vector<std::string>& colsV, const std::vector<std::vector<double>>& v) {
    const double cw = 96, ch = 34, x0 = 130, y0 = 52;
    const double w = x0 + cw * double(colsV.size()) + kRight, h = y0 + ch * double(rowsV.size()) + 12;
    double lo = 1e300, hi = -1e300;
    for (const auto& row : v)
        for (double x : row)
            if (std::isfinite(x)) {
                lo = std::min(lo, x);
                hi = std::max(hi, x);
            }
    std::string out = fmt::format("<svg xmlns='http://www.w3.org/2000/svg' width='{:.0f}' height='{:.0f}' "
                                  "viewBox='0 0 {:.0f} {:.0f}' role='img'><title>GPU time per step over {} and {}"
                                  "</title>",
                                  w, h, w, h, esc(rowAxis), esc(colAxis));
    out += fmt::format("<text x='{:.0f}' y='18' class='title'>{} →</text>", x0, esc(colAxis));
    out += fmt::format("<text x='8' y='{:.0f}' class='title'>{} ↓</text>", y0 - 8, esc(rowAxis));
    for (size_t c = 0; c < colsV.size(); ++c)
        out += fmt::format("<text x='{:.1f}' y='{:.1f}' class='label' text-anchor='middle'>{}</text>",
                           x0 + cw * (double(c) + 0.5), y0 - 8, esc(shorten(colsV[c], 14)));
    for (size_t r = 0; r < rowsV.size(); ++r) {
        const double y = y0 + ch * double(r);
        out += fmt::format("<text x='{:.1f}' y='{:.1f}' class='label' text-anchor='end'>{}</text>", x0 - 8, y + 21,
                           esc(shorten(rowsV[r], 16)));
        for (size_t c = 0; c < colsV.size(); ++c) {
            const double x = x0 + cw * double(c), val = v[r][c];
            if (!std::isfinite(val)) {
                out += fmt::format("<rect x='{:.1f}' y='{:.1f}' width='{:.0f}' height='{:.0f}' class='empty'/>", x, y,
                                   cw - 2, ch - 2);
                continue;
            }
            const double t = hi > lo ? (val - lo) / (hi - lo) : 0.5;
            const QColor col = QColor::fromRgbF(float(0.93 - 0.6 * t), float(0.95 - 0.45 * t), float(1.0 - 0.2 * t));
            out += fmt::format("<rect x='{:.1f}' y='{:.1f}' width='{:.0f}' height='{:.0f}' fill='{}'/>", x, y, cw - 2,
                               ch - 2, hex(col));
            out += fmt::format("<text x='{:.1f}' y='{:.1f}' class='{}' text-anchor='middle'>{}</text>", x + cw / 2 - 1,
                               y + 21, t > 0.55 ? "cellDark" : "cell", esc(formatDuration(val)));
        }
    }
    return out + "</svg>";
}

// ---------------------------------------------------------------- tables

// A column's header on the page: its CSV name with the unit of its cells (durations carry their own unit).
std::string headerHtml(const std::string& column) {
    std::string base = column;
    std::string unit;
    for (const auto& [suffix, u] : {std::pair<std::string, std::string>{"_ms", " (ms/step)"}, {"_pct", " (%)"},
                                    {"_gbps", " (GB/s)"}, {"_ns", ""}})
        if (base.ends_with(suffix)) {
            base.resize(base.size() - suffix.size());
            unit = u;
            break;
        }
    if (base.starts_with("delta")) base = "Δ" + base.substr(5);
    for (char& ch : base)
        if (ch == '_') ch = ' ';
    return esc(base + unit);
}

std::string cellHtml(const std::string& column, const core::Cell& c) {
    if (std::holds_alternative<std::monostate>(c)) return "–";
    if (const auto* s = std::get_if<std::string>(&c))  // long kernel names: shortened, whole on hover and in the CSV
        return s->size() > 56 ? fmt::format("<span title='{}'>{}</span>", esc(*s), esc(shorten(*s, 56))) : esc(*s);
    const double v = Table::number(c);
    const bool signedValue = column.starts_with("delta") || column.starts_with("ci_");
    if (column.ends_with("_ns")) return esc(formatDuration(v));
    if (column.ends_with("_ms")) return signedValue ? fmt::format("{:+.3f}", v) : fmt::format("{:.3f}", v);
    if (column.ends_with("_pct")) return signedValue ? fmt::format("{:+.2f}", v) : fmt::format("{:.1f}", v);
    if (column == "cv") return fmt::format("{:.3f}", v);
    if (column.ends_with("_gbps")) return fmt::format("{:.2f}", v);
    return esc(Table::text(c));
}

std::string htmlTable(const Table& t, const std::string& csvName) {
    std::string out = "<div class='scroll'><table><thead><tr>";
    for (const auto& c : t.columns) out += "<th>" + headerHtml(c) + "</th>";
    out += "</tr></thead><tbody>";
    const int sig = t.columnIndex("significant");
    for (const auto& row : t.rows) {
        const bool flagged = sig >= 0 && Table::text(row[size_t(sig)]) == "yes";
        out += flagged ? "<tr class='sig'>" : "<tr>";
        for (size_t i = 0; i < row.size(); ++i) out += "<td>" + cellHtml(t.columns[i], row[i]) + "</td>";
        out += "</tr>";
    }
    out += "</tbody></table></div>";
    return out + fmt::format("<p class='csv'>CSV: <a href='{0}'>{0}</a></p>", esc(csvName));
}

std::string csvOf(const Table& t) {
    std::ostringstream s;
    t.writeCsv(s);
    return s.str();
}

// Per configuration: the mean over runs and ranks of the communication/computation overlap (HTA's definition),
// none when no rank has communication kernels.
std::vector<std::optional<double>> overlapOf(const std::vector<Config>& configs) {
    std::vector<std::optional<double>> out;
    for (const auto& c : configs) {
        double sum = 0;
        int n = 0;
        for (const auto* r : c.runs) {
            auto ctx = core::AnalysisContext::of(r->dataset);
            auto t = core::commCompOverlap(*ctx, core::WindowSpec{});
            if (!t) continue;
            const int col = t->columnIndex(core::col::kOverlapPct);
            for (const auto& row : t->rows)
                if (col >= 0 && !std::holds_alternative<std::monostate>(row[size_t(col)])) {
                    sum += Table::number(row[size_t(col)]);
                    ++n;
                }
        }
        out.push_back(n ? std::optional<double>(sum / n) : std::nullopt);
    }
    return out;
}

const char* kStyle =
    "body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1400px;color:#222;padding:0 16px}"
    "h1{font-size:24px;margin-bottom:4px}h2{font-size:18px;margin-top:32px;border-bottom:1px solid #ddd}"
    "table{border-collapse:collapse;font-size:12px;margin:8px 0}th,td{border:1px solid #ddd;padding:2px 5px;"
    "text-align:right;white-space:nowrap}th{background:#f4f4f4}.scroll{overflow-x:auto}td:first-child,th:first-child{text-align:left}tr.sig td{background:"
    "#fff1e6;font-weight:600}.note,.tick,.label{font-size:11px;fill:#444}.title{font-size:13px;font-weight:600}"
    ".grid{stroke:#e6e6e6}.whisker{stroke:#555}.box{stroke:#333}.median{stroke:#111;stroke-width:2}.mean{fill:#111}"
    ".cell{font-size:11px;fill:#222}.cellDark{font-size:11px;fill:#fff}.empty{fill:#f6f6f6;stroke:#ddd}"
    ".noise{background:#f7f9fc;border-left:4px solid #4a78c2;padding:8px 12px}.csv{font-size:12px;color:#666}"
    "figure{margin:12px 0}figcaption{font-size:12px;color:#555;margin-left:78px}svg{max-width:100%;height:auto}.boxes figure{display:inline-block;margin:8px 12px 8px 0;"
    "vertical-align:top}";

}  // namespace

namespace {

struct Sections {
    std::string html;
    std::vector<std::pair<std::string, std::string>> csv;
    void table(const std::string& prefix, const std::string& name, const Table& t) {
        const std::string file = prefix + "-" + name + ".csv";
        html += htmlTable(t, file);
        csv.emplace_back(file, csvOf(t));
    }
};

// "bs=4 rep1": a run by its configuration and repeat (labels alone repeat across configurations: rep0, rep1).
std::string runLabel(const RunEntry& r) {
    const std::string params = core::parametersText(core::parameterTexts(r.parameters));
    return params.empty() ? r.label : fmt::format("{} rep{}", params, r.repeat);
}

// Rows of the comparison as a table: per row its measure, configuration, sample, median and change in ms per step
// with the interval; "n/a" rows say why in `note`.
Table comparisonTable(const std::vector<const SweepCompareRow*>& rows, const char* what) {
    Table t;
    t.columns = {what, "configuration", "runs", "steps", "median_ms", "delta_ms", "ci_low_ms", "ci_high_ms",
                 "significant", "delta_pct", "ci_low_pct", "ci_high_pct", "note"};
    auto ms = [](const std::optional<double>& v) { return v ? core::Cell(*v / 1e6) : core::Cell(); };
    auto opt = [](const std::optional<double>& v) { return v ? core::Cell(*v) : core::Cell(); };
    for (const SweepCompareRow* r : rows) {
        const bool interval = r->ciLowNs.has_value();
        const std::string note = !r->reason.empty() ? r->reason : interval ? "resampled " + r->resampled : "";
        t.addRow({r->group, paramsLabel(r->parameters), int64_t(r->runs), int64_t(r->steps), r->medianNs / 1e6,
                  ms(r->deltaNs), ms(r->ciLowNs), ms(r->ciHighNs), std::string(r->significant ? "yes" : interval ? "no" : ""),
                  opt(r->deltaPct), opt(r->ciLowPct), opt(r->ciHighPct), note});
    }
    return t;
}

// The configuration table and, per configuration, the GPU time per step by category (stacked bars).
void configurationSections(Sections& s, const std::vector<Config>& configs, const SweepComparison& byCategory,
                           const std::string& prefix, std::vector<double>& totals) {
    std::set<std::string> axes;
    for (const auto& c : configs)
        for (const auto& [k, v] : c.params) axes.insert(k);
    // GPU time is kernels (by category) + memcpy + memset: the one definition of the comparison (issue 21).
    std::vector<SweepCompareRow> rows = byCategory.rows;
    for (const auto& r : byCategory.gpuRows)
        if (r.group == "memcpy" || r.group == "memset") rows.push_back(r);
    std::vector<std::string> parts;
    for (const auto& r : rows)
        if (std::find(parts.begin(), parts.end(), r.group) == parts.end()) parts.push_back(r.group);
    std::vector<std::vector<double>> value(configs.size(), std::vector<double>(parts.size(), 0.0));
    totals.assign(configs.size(), 0.0);
    for (const auto& r : rows)
        for (size_t c = 0; c < configs.size(); ++c)
            if (configs[c].key == r.config) {
                const auto p = size_t(std::find(parts.begin(), parts.end(), r.group) - parts.begin());
                value[c][p] = r.perStepNs;
                totals[c] += r.perStepNs;
            }
    Table t;
    t.columns = {"configuration"};
    for (const auto& a : axes) t.columns.push_back(a);
    for (const char* c : {"repeats", "ranks", "gpu_time_per_step_ns", "runs"}) t.columns.push_back(c);
    for (size_t c = 0; c < configs.size(); ++c) {
        std::vector<core::Cell> row{configs[c].label()};
        for (const auto& a : axes) {
            auto it = configs[c].params.find(a);
            row.push_back(it != configs[c].params.end() ? core::Cell(it->second) : core::Cell());
        }
        size_t ranks = 0;
        std::string labels;
        for (const auto* r : configs[c].runs) {
            ranks = std::max(ranks, r->dataset->ranks.size());
            labels += (labels.empty() ? "" : "; ") + runLabel(*r);
        }
        for (core::Cell x : {core::Cell(int64_t(configs[c].runs.size())), core::Cell(int64_t(ranks)),
                             core::Cell(totals[c]), core::Cell(labels)})
            row.push_back(std::move(x));
        t.addRow(std::move(row));
    }
    s.html += "<h2>Configurations</h2>";
    s.table(prefix, "configurations", t);
    s.html += "<h2>GPU time per step by category</h2>";
    if (!byCategory.gpuActivity || parts.empty()) {
        s.html += "<p>No GPU activity in these runs: nothing to break down.</p>";
        return;
    }
    s.html += "<p>Kernel time by Strobe's category, then memcpy and memset: their sum is the GPU time of the "
              "configuration table (mean per kept step).</p><figure>";
    std::vector<std::string> bars;
    for (const auto& c : configs) bars.push_back(c.label());
    s.html += svgStacked(bars, parts, value) + "</figure>";
    Table cat;  // one row per configuration, one column per category: GPU time per step
    cat.columns = {"configuration"};
    for (const auto& p : parts) cat.columns.push_back(p + "_ns");
    for (size_t c = 0; c < configs.size(); ++c) {
        std::vector<core::Cell> row{configs[c].label()};
        for (double v : value[c]) row.emplace_back(v);
        cat.addRow(std::move(row));
    }
    s.table(prefix, "categories", cat);
}

// Step time first (the ProfilerStep#N span per configuration, its change and interval, a box plot), then the GPU's
// busy and idle time per step with kernels, memcpy and memset.
void stepSections(Sections& s, const std::vector<Config>& configs, const SweepComparison& cmp,
                  const std::string& prefix) {
    s.html += "<h2>Step time</h2><p>Per kept step, the ProfilerStep#N span (the latest end minus the earliest start "
              "over the ranks); median per configuration, change of the median against the baseline with its "
              "interval. No interval below 2 runs and 5 kept steps: n/a, with the reason.</p>";
    if (cmp.stepRows.empty()) {
        s.html += "<p>No run has a kept step: nothing to compare.</p>";
        return;
    }
    std::vector<const SweepCompareRow*> rows;
    for (const auto& r : cmp.stepRows) rows.push_back(&r);
    s.table(prefix, "steps", comparisonTable(rows, "measure"));
    std::vector<SweepReportBox> boxes;
    for (const auto& c : configs) {
        SweepReportBox b{c.shortLabel(), {}, hex(seriesColor(0)), ""};
        for (const auto& r : cmp.stepRows)
            if (r.config == c.key) {
                b.samples = r.stepsNs;
                if (r.deltaNs) b.note = fmt::format("{:+.1f} ms{}", *r.deltaNs / 1e6, r.significant ? " *" : "");
                if (r.reason == "baseline") {
                    b.fill = "#bdbdbd";
                    b.note = "baseline";
                } else if (r.significant) {
                    b.fill = "#f39c4a";
                }
            }
        boxes.push_back(std::move(b));
    }
    s.html += "<figure>" + svgBoxPlot("step time per configuration", boxes) + axesCaption(configs) + "</figure>";
    s.html += "<h2>GPU busy and idle per step</h2>";
    if (!cmp.gpuActivity) {
        s.html += "<p>No GPU activity in these runs: they are compared by step time and CPU operators.</p>";
        return;
    }
    s.html += "<p>busy: the union of kernel, memcpy and memset intervals per GPU, summed over GPUs; idle: GPUs × "
              "step time − busy; kernels, memcpy, memset: their summed durations (GPU time = kernels + memcpy + "
              "memset).</p>";
    rows.clear();
    for (const auto& r : cmp.gpuRows) rows.push_back(&r);
    s.table(prefix, "gpu", comparisonTable(rows, "measure"));
}

// The top groups: their comparison table and a box plot each.
void groupSections(Sections& s, const std::vector<Config>& configs, const SweepComparison& cmp,
                   const std::string& prefix, const std::string& baselineKey) {
    Table t;
    // The change, its interval and significance right after the names (visible at 1400 px), then the sample.
    t.columns = {"group", "configuration", "delta_ms", "ci_low_ms", "ci_high_ms", "significant", "delta_pct",
                 "ci_low_pct", "ci_high_pct", "median_ns", "per_step_ns", "count", "p5_ns", "p95_ns", "cv", "note"};
    auto opt = [](const std::optional<double>& v) { return v ? core::Cell(*v) : core::Cell(); };
    auto ms = [](const std::optional<double>& v) { return v ? core::Cell(*v / 1e6) : core::Cell(); };
    for (const auto& r : cmp.rows)
        t.addRow({r.group, paramsLabel(r.parameters), ms(r.deltaNs), ms(r.ciLowNs), ms(r.ciHighNs),
                  std::string(r.significant ? "yes" : (r.ciLowNs ? "no" : "")), opt(r.deltaPct), opt(r.ciLowPct),
                  opt(r.ciHighPct), r.medianNs, r.perStepNs, int64_t(r.count), r.p5Ns, r.p95Ns, r.cv,
                  r.reason == "baseline" ? std::string() : r.reason});
    s.html += cmp.gpuActivity ? "<h2>Top kernel groups</h2><p>Ranked by their largest absolute change in time per step "
                                "(Δ ms/step) against the baseline.</p>"
                              : "<h2>Top CPU operators</h2><p>No GPU activity: the outermost CPU operators of each "
                                "step, ranked by their largest absolute change in time per step.</p>";
    if (cmp.rows.empty()) {
        s.html += "<p>No group in the kept steps.</p>";
        return;
    }
    s.table(prefix, "groups", t);
    std::vector<std::string> groups;
    for (const auto& r : cmp.rows)
        if (std::find(groups.begin(), groups.end(), r.group) == groups.end()) groups.push_back(r.group);
    s.html += "<h2>Time per step of each top group</h2><p>Box: 25th–75th percentile of the per-step time (kept steps "
              "of every repeat); line: median; dot: mean; whiskers: smallest and largest step. Orange: a "
              "significant change against the baseline (grey).</p><div class='boxes'>";
    for (const auto& g : groups) {
        std::vector<SweepReportBox> boxes;
        for (const auto& c : configs) {
            SweepReportBox b{c.shortLabel(), {}, hex(seriesColor(0)), ""};
            for (const auto& r : cmp.rows)
                if (r.group == g && r.config == c.key) {
                    b.samples = r.stepsNs;
                    if (r.deltaNs) b.note = fmt::format("{:+.2f} ms{}", *r.deltaNs / 1e6, r.significant ? " *" : "");
                    if (r.significant) b.fill = "#f39c4a";
                }
            if (c.key == baselineKey) {
                b.fill = "#bdbdbd";
                b.note = "baseline";
            }
            boxes.push_back(std::move(b));
        }
        s.html += "<figure>" + svgBoxPlot(g, boxes) + axesCaption(configs) + "</figure>";
    }
    s.html += "</div>";
}

void overlapChart(Sections& s, const std::vector<Config>& configs, const std::vector<std::optional<double>>& overlap,
                  const std::string& prefix);
void heatmapSection(Sections& s, const std::vector<Config>& configs, const std::vector<double>& totals,
                    const std::string& prefix);

// Overlap per configuration, and the heatmap over the first two axes.
void overlapAndHeatmap(Sections& s, const std::vector<Config>& configs, const std::vector<double>& totals,
                       const std::string& prefix) {
    const auto overlap = overlapOf(configs);
    if (std::none_of(overlap.begin(), overlap.end(), [](const auto& v) { return v.has_value(); })) {
        s.html += "<h2>Communication/computation overlap</h2><p>No communication kernel in these runs: no overlap to "
                  "show.</p>";
    } else {
        overlapChart(s, configs, overlap, prefix);
    }
    heatmapSection(s, configs, totals, prefix);
}

void overlapChart(Sections& s, const std::vector<Config>& configs, const std::vector<std::optional<double>>& overlap,
                  const std::string& prefix) {
    std::vector<std::string> bars, shortBars;
    for (const auto& c : configs) {
        bars.push_back(c.label());
        shortBars.push_back(c.shortLabel());
    }
    s.html += "<h2>Communication/computation overlap</h2><p>Share of each rank's communication kernel time that "
              "overlaps computation kernels (HTA's definition), averaged over ranks and repeats.</p><figure>" +
              svgPercentBars("overlap % per configuration", shortBars, overlap) + axesCaption(configs) + "</figure>";
    Table ov;
    ov.columns = {"configuration", "overlap_pct"};
    for (size_t c = 0; c < configs.size(); ++c)
        ov.addRow({bars[c], overlap[c] ? core::Cell(*overlap[c]) : core::Cell()});
    s.table(prefix, "overlap", ov);
}

// The heatmap of GPU time per step over the first two axes (none with fewer axes).
void heatmapSection(Sections& s, const std::vector<Config>& configs, const std::vector<double>& totals,
                    const std::string& prefix) {
    std::set<std::string> axisSet;
    for (const auto& c : configs)
        for (const auto& [k, v] : c.params) axisSet.insert(k);
    if (axisSet.size() < 2) return;
    const std::vector<std::string> axes(axisSet.begin(), axisSet.end());
    const auto rowsV = axisValues(configs, axes[0]), colsV = axisValues(configs, axes[1]);
    std::vector<std::vector<double>> sum(rowsV.size(), std::vector<double>(colsV.size(), 0.0));
    std::vector<std::vector<int>> n(rowsV.size(), std::vector<int>(colsV.size(), 0));
    for (size_t c = 0; c < configs.size(); ++c) {
        const auto a = configs[c].params.find(axes[0]), b = configs[c].params.find(axes[1]);
        if (a == configs[c].params.end() || b == configs[c].params.end()) continue;
        const auto r = size_t(std::find(rowsV.begin(), rowsV.end(), a->second) - rowsV.begin());
        const auto k = size_t(std::find(colsV.begin(), colsV.end(), b->second) - colsV.begin());
        sum[r][k] += totals[c];
        ++n[r][k];
    }
    Table hm;
    hm.columns = {axes[0], axes[1], "gpu_time_per_step_ns"};
    for (size_t r = 0; r < rowsV.size(); ++r)
        for (size_t k = 0; k < colsV.size(); ++k) {
            sum[r][k] = n[r][k] ? sum[r][k] / n[r][k] : std::nan("");
            if (n[r][k]) hm.addRow({rowsV[r], colsV[k], sum[r][k]});
        }
    s.html += fmt::format("<h2>GPU time per step over {} and {}</h2>", esc(axes[0]), esc(axes[1]));
    if (axes.size() > 2) s.html += "<p>Averaged over the other axes.</p>";
    s.html += "<figure>" + svgHeatmap(axes[0], rowsV, axes[1], colsV, sum) + "</figure>";
    s.table(prefix, "heatmap", hm);
}

// Collectives per configuration and type (core/analysis/collectives.h): count, size, latency, bandwidth, skew.
void collectivesSection(Sections& s, const core::RunSet& runs, int skipSteps, const std::string& prefix) {
    const core::CollectiveSweep c = core::collectivesBySweep(runs, skipSteps);
    s.html += "<h2>Collectives</h2><p>Communication kernels matched across ranks. Latency: the collective's kernel on "
              "the rank that arrived last (the shortest among its ranks: the transfer without waiting); algbw = bytes "
              "/ latency, busbw with nccl-tests' factors (all_reduce 2(n-1)/n; all_gather, reduce_scatter, "
              "all_to_all (n-1)/n; others 1); start skew: the latest minus the earliest start of a collective's "
              "kernels; wait: a rank's kernel minus the shortest.</p>";
    if (c.rows.empty()) {
        s.html += "<p>No communication kernel in these runs.</p>";
        return;
    }
    for (const auto& m : c.messages) s.html += "<p class='csv'>" + esc(m) + "</p>";
    Table t;
    t.columns = {"configuration", "collective", "count", "bytes", "latency_mean_ns", "latency_p50_ns",
                 "latency_p99_ns", "algbw_gbps", "busbw_gbps", "start_skew_p50_ns", "start_skew_max_ns",
                 "wait_mean_ns"};
    auto opt = [](const std::optional<double>& v) { return v ? core::Cell(*v) : core::Cell(); };
    for (const auto& r : c.rows) {
        const std::string params = core::parametersText(r.parameters);
        t.addRow({params.empty() ? (r.config.empty() ? std::string("all runs") : r.config) : params, r.collective,
                  int64_t(r.count), r.bytes ? core::Cell(int64_t(std::llround(*r.bytes))) : core::Cell(),
                  r.latencyMeanNs, r.latencyP50Ns, r.latencyP99Ns, opt(r.algbwGbps), opt(r.busbwGbps),
                  r.startSkewP50Ns, r.startSkewMaxNs, r.waitMeanNs});
    }
    s.table(prefix, "collectives", t);
}

}  // namespace

namespace {

// Structural diff (issue 22, core/analysis/structural_diff.h): each configuration against the baseline one (repeats
// pooled), as the call sites (CPU operators by normalised name path) whose GPU time per step moved most.
void structuralDiffSection(Sections& s, const std::vector<Config>& configs, const std::string& baselineKey,
                           int skipSteps, const std::string& prefix) {
    if (configs.size() < 2) return;
    const Config* base = &configs.front();
    for (const auto& c : configs)
        if (c.key == baselineKey) base = &c;
    s.html += "<h2>Structural diff against the baseline</h2><p>The tree of CPU operators by call site (names "
              "normalised across PyTorch versions and backends), with the GPU time (kernels + memcpy + memset) "
              "launched beneath each, per kept step, matched by path; as <code>strobe-cli diff --sweep</code>. "
              "The 10 call sites with the largest |Δ| per configuration; kernels below them are in the CLI's "
              "output.</p>";
    std::string csv = "configuration,path,status,count_a,count_b,per_step_ms_a,per_step_ms_b,delta_ms\n";
    core::DiffOptions options;
    options.skipSteps = skipSteps;
    for (const auto& c : configs) {
        if (&c == base) continue;
        const core::StructuralDiff d = core::structuralDiff(base->runs, c.runs, options);
        s.html += fmt::format("<h3>{} vs {}</h3><p>{} of {} and {} nodes matched, holding {:.1f} % and {:.1f} % of the "
                              "GPU time per step.{}</p>",
                              esc(c.label()), esc(base->label()), d.matched, d.a.nodes, d.b.nodes, 100 * d.timeShareA,
                              100 * d.timeShareB, d.byKernelName ? " No CPU operators: by kernel name." : "");
        std::vector<size_t> order;
        for (size_t i = 0; i < d.nodes.size(); ++i)
            if (!d.nodes[i].leaf || d.byKernelName) order.push_back(i);
        std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
            return std::abs(d.nodes[x].deltaNs()) > std::abs(d.nodes[y].deltaNs());
        });
        if (order.size() > 10) order.resize(10);
        s.html += "<table><tr><th>call site</th><th>status</th><th>count A</th><th>count B</th><th>A ms/step</th>"
                  "<th>B ms/step</th><th>Δ ms/step</th></tr>";
        for (size_t i : order) {
            const core::DiffNode& n = d.nodes[i];
            std::string path;
            for (const auto& part : d.path(i)) path += (path.empty() ? "" : " › ") + part;
            s.html += fmt::format("<tr><td>{}</td><td>{}</td><td>{:.4g}</td><td>{:.4g}</td><td>{:.3f}</td><td>{:.3f}"
                                  "</td><td>{:+.3f}</td></tr>",
                                  esc(shorten(path, 160)), core::toString(n.status), n.countA, n.countB,
                                  n.perStepNsA / 1e6, n.perStepNsB / 1e6, n.deltaNs() / 1e6);
        }
        s.html += "</table>";
        for (size_t i = 0; i < d.nodes.size(); ++i) {
            const core::DiffNode& n = d.nodes[i];
            std::string path;
            for (const auto& part : d.path(i)) path += (path.empty() ? "" : " > ") + part;
            std::string quoted = "\"";
            for (char ch : path) quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
            csv += fmt::format("\"{}\",{}\",{},{},{},{},{},{}\n", c.label(), quoted, core::toString(n.status), n.countA,
                               n.countB, n.perStepNsA / 1e6, n.perStepNsB / 1e6, n.deltaNs() / 1e6);
        }
    }
    s.csv.emplace_back(prefix + "-structural-diff.csv", csv);
}

}  // namespace

SweepReport buildSweepReport(const core::RunSet& runs, const SweepReportOptions& o) {
    SweepReport out;
    auto configs = configsOf(runs);
    sortConfigs(configs);
    core::SweepCompareOptions co;
    co.groupBy = o.groupBy;
    co.groupRegex = o.groupRegex;
    co.top = o.top;
    co.skipSteps = o.skipSteps;  // groups ranked by |change| (auto): the one ranking of every sweep view
    co.baseline = o.baseline;
    // The documented default (README "Comparing runs"): the first configuration in axis order, named by its first
    // run's path (labels such as rep0 repeat across configurations).
    if (co.baseline.empty() && configs.size() > 1) co.baseline = configs.front().runs.front()->path();
    if (co.baseline.empty() && configs.size() > 1) co.baseline = configs.front().runs.front()->label;
    const SweepComparison cmp = core::compareSweep(runs, co);
    core::SweepCompareOptions cats = co;
    cats.groupBy = core::SweepGroupBy::Category;
    cats.top = 0;
    cats.baseline.clear();
    const SweepComparison byCategory = core::compareSweep(runs, cats);
    const std::string baselineKey = cmp.baselineConfig;

    Sections s;
    s.html += fmt::format("<h1>{}</h1><p>{} runs in {} configurations; generated by Strobe {}.</p>", esc(o.title),
                          runs.size(), configs.size(), STROBE_VERSION);
    s.html += "<div class='noise'><b>Noise and significance.</b> ";
    if (cmp.method) {
        std::string baselineConfig;
        for (const auto& c : configs)
            if (c.key == baselineKey) baselineConfig = c.label();
        s.html += fmt::format("Baseline: {}. Confidence {:.0f} %. Method: {}. A change is marked "
                              "significant only when its corrected interval excludes zero; below 2 runs and 5 kept "
                              "steps a configuration has no interval (n/a).",
                              esc(baselineConfig.empty() ? *cmp.baseline : baselineConfig),
                              100 * cmp.confidence.value_or(0.95),
                              esc(*cmp.method));
    }
    else
        s.html += "No baseline: nothing was tested.";
    for (const auto& m : cmp.messages) s.html += "<br>" + esc(m);
    s.html += "</div>";
    std::vector<double> totals;
    stepSections(s, configs, cmp, o.csvPrefix);
    configurationSections(s, configs, byCategory, o.csvPrefix, totals);
    groupSections(s, configs, cmp, o.csvPrefix, baselineKey);
    overlapAndHeatmap(s, configs, totals, o.csvPrefix);
    collectivesSection(s, runs, o.skipSteps, o.csvPrefix);
    structuralDiffSection(s, configs, baselineKey, o.skipSteps, o.csvPrefix);

    out.html = fmt::format("<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'><title>{}</title><style>{}"
                           "</style></head><body>\n{}\n</body></html>\n",
                           esc(o.title), kStyle, s.html);
    out.csv = std::move(s.csv);
    out.messages = cmp.messages;
    return out;
}

}  // namespace strobe::plots

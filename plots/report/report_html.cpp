// The helpers both reports share (report_html.h): moved here from sweep_report.cpp unchanged but for plotPng and
// the optional CSV link.
#include "plots/report/report_html.h"

#include <algorithm>
#include <regex>
#include <sstream>

#include <QBuffer>
#include <QImage>
#include <fmt/format.h>

#include "plots/chart.h"
#include "plots/plot_registry.h"
#include "plots/render.h"

namespace strobe::plots::report {

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


// A figure of the page: registered plot `id` (the one the GUI shows for that view) on the runs with `set` (the
// others at their defaults), rendered by plots::renderToSvg (QSvgGenerator, as strobe-cli plot and the GUI's
// export) and embedded inline: text in the charts stays searchable and selectable, and nothing is fetched. The XML
// prolog goes, the size is given in CSS pixels (`size`; QSvgGenerator writes millimetres), and the ids (clip paths,
// gradients) get a prefix of their own so that two charts on one page never share one. Nothing to draw: the
// plot's reason, one line.
std::string plotFigure(const core::RunSet& runs, const std::string& id, const ParamValues& set, QSize size,
                       const std::string& figureId, Table* table) {
    const Plot* plot = PlotRegistry::instance().find(id);
    if (!plot) return "<p>(plot " + esc(id) + " is not in this build)</p>";
    const auto specs = plot->parameters(runs);
    ParamValues own;  // the shared values this plot takes (step-time-box has no group_by)
    for (const auto& [key, value] : set)
        if (findSpec(specs, key)) own[key] = value;
    auto values = core::resolveValues(specs, own);
    if (!values) return "<p>" + esc(id) + ": " + esc(values.error().toString()) + "</p>";
    auto prepared = plot->prepare(runs, *values, {}, {});
    if (!prepared) return "<p>" + esc(id) + ": " + esc(prepared.error().toString()) + "</p>";
    if (table) *table = plot->table(**prepared, *values);
    if (auto why = plot->emptyMessage(**prepared, *values)) {  // one line: the first reason, and how many more
        const size_t more = size_t(std::count(why->begin(), why->end(), '\n'));
        std::string line = why->substr(0, why->find('\n'));
        if (more) line += fmt::format(" (and {} more like it)", more);
        return "<p class='nochart'>No chart: " + esc(line) + ".</p>";
    }
    // Drawn at 3/4 of the size it is shown at: QSvgGenerator writes the plots' point sizes as user units, which read
    // small in a browser's CSS pixels; scaled by 4/3 they read as in the GUI (96 dpi).
    std::string svg = renderToSvg(*plot, **prepared, *values, size * 3 / 4).toStdString();
    svg.erase(0, svg.find("<svg"));
    const size_t open = svg.find('>');
    std::string head = svg.substr(0, open);
    head = std::regex_replace(head, std::regex(R"re(width="[^"]*")re"), fmt::format("width=\"{}\"", size.width()), std::regex_constants::format_first_only);
    head = std::regex_replace(head, std::regex(R"re(height="[^"]*")re"), fmt::format("height=\"{}\"", size.height()), std::regex_constants::format_first_only);
    svg = head + fmt::format(" class=\"plot\" data-plot=\"{}\" role=\"img\"", esc(id)) + svg.substr(open);
    svg = std::regex_replace(svg, std::regex(R"re(id="([^"]+)")re"), "id=\"" + figureId + "-$1\"");
    svg = std::regex_replace(svg, std::regex(R"re(url\(#([^)]+)\))re"), "url(#" + figureId + "-$1)");
    svg = std::regex_replace(svg, std::regex(R"re(href="#([^"]+)")re"), "href=\"#" + figureId + "-$1\"");
    return "<figure>" + svg + "</figure>";
}


QByteArray plotPng(const core::RunSet& runs, const std::string& id, const ParamValues& set, QSize size,
                   std::string& why) {
    const Plot* plot = PlotRegistry::instance().find(id);
    if (!plot) {
        why = "plot " + id + " is not in this build";
        return {};
    }
    const auto specs = plot->parameters(runs);
    ParamValues own;
    for (const auto& [key, value] : set)
        if (findSpec(specs, key)) own[key] = value;
    auto values = core::resolveValues(specs, own);
    if (!values) {
        why = values.error().toString();
        return {};
    }
    auto prepared = plot->prepare(runs, *values, {}, {});
    if (!prepared) {
        why = prepared.error().toString();
        return {};
    }
    if (auto empty = plot->emptyMessage(**prepared, *values)) {
        why = empty->substr(0, empty->find('\n'));
        return {};
    }
    const QImage image = renderToImage(*plot, **prepared, *values, size);
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    image.save(&buffer, "PNG");
    return bytes;
}

// A column's header on the page: its CSV name with the unit of its cells (durations carry their own unit).
namespace {

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

}  // namespace

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
    if (csvName.empty()) return out;
    return out + fmt::format("<p class='csv'>CSV: <a href='{0}'>{0}</a></p>", esc(csvName));
}

std::string csvOf(const Table& t) {
    std::ostringstream s;
    t.writeCsv(s);
    return s.str();
}


const char* const kStyle =
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

}  // namespace strobe::plots::report

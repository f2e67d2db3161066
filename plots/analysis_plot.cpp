#include "plots/analysis_plot.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "plots/chart.h"

namespace strobe::plots {

size_t AnalysisTables::bytes() const {
    size_t b = sizeof(*this);
    auto tableBytes = [](const core::Table& t) {
        size_t n = 0;
        for (const auto& row : t.rows) {
            n += row.capacity() * sizeof(core::Cell);
            for (const auto& c : row)
                if (const auto* s = std::get_if<std::string>(&c)) n += s->capacity();
        }
        return n + t.columns.size() * 32;
    };
    for (const auto& t : perRun) b += tableBytes(t);
    return b + tableBytes(combined);
}

std::vector<ParamSpec> analysisWindowSpecs(const RunSet& runs, const std::string& defaultWindow) {
    ParamSpec window;
    window.key = "window";
    window.label = "Window";
    window.tooltip =
        "Which GPU activities to analyse: auto (steady-state steps), all, steps (span of every ProfilerStep), hta "
        "(Holistic Trace Analysis' default: launched before the last step), hta-include-last";
    window.type = ParamType::Enum;
    window.choices = {"auto", "all", "steps", "hta", "hta-include-last"};
    window.defaultValue = defaultWindow;
    ParamSpec steps;
    steps.key = "steps";
    steps.label = "Steps";
    steps.tooltip = "Analyse only these ProfilerStep numbers (overrides the window when set)";
    steps.type = ParamType::StringList;
    steps.defaultValue = std::vector<std::string>{};
    std::set<int64_t> nums;
    for (const auto& run : runs)
        if (run.dataset)
            for (const auto& r : run.dataset->ranks)
                if (r)
                    for (auto n : r->steps.number) nums.insert(n);
    for (auto n : nums) steps.choices.push_back(std::to_string(n));
    return {window, steps};
}

core::Result<std::shared_ptr<AnalysisTables>> runAnalysisOnRuns(const RunSet& runs, const ParamValues& values,
                                                                 const core::CancelToken& cancel,
                                                                 const core::ProgressFn& progress,
                                                                 const AnalysisFn& fn) {
    std::string stepsText;
    for (const auto& s : paramList(values, "steps")) stepsText += (stepsText.empty() ? "" : ",") + s;
    auto spec = core::WindowSpec::parse(paramString(values, "window", "auto"), stepsText);
    if (!spec) return spec.error();
    auto out = std::make_shared<AnalysisTables>();
    out->window = spec->toString();
    for (size_t i = 0; i < runs.size(); ++i) {
        if (cancel.cancelled()) return cancelledError();
        out->runLabels.push_back(runs[i].label);
        if (!runs[i].dataset) {
            core::Table empty;
            empty.messages.push_back(fmt::format("run '{}' is not loaded", runs[i].label));
            out->perRun.push_back(std::move(empty));
            continue;
        }
        core::AnalysisContext ctx(runs[i].dataset);
        auto t = fn(ctx, *spec);
        if (!t) return core::Error(t.error().where, fmt::format("{}: {}", runs[i].label, t.error().message));
        out->perRun.push_back(std::move(t.value()));
        if (progress) progress({"analysis", runs[i].label, double(i + 1) / double(runs.size()), i + 1, runs.size()});
    }
    if (cancel.cancelled()) return cancelledError();
    // Combined table: as is for one run, else with a leading run column.
    if (out->perRun.size() == 1) {
        out->combined = out->perRun[0];
    } else {
        for (size_t i = 0; i < out->perRun.size(); ++i) {
            const auto& t = out->perRun[i];
            if (out->combined.columns.empty() && !t.columns.empty()) {
                out->combined.columns = {"run"};
                out->combined.columns.insert(out->combined.columns.end(), t.columns.begin(), t.columns.end());
            }
            for (const auto& row : t.rows) {
                std::vector<core::Cell> r{out->runLabels[i]};
                r.insert(r.end(), row.begin(), row.end());
                out->combined.rows.push_back(std::move(r));
            }
            for (const auto& m : t.messages) out->combined.messages.push_back(out->runLabels[i] + ": " + m);
        }
    }
    return out;
}

double cellNumber(const core::Table& t, size_t row, const std::string& column, double fallback) {
    int c = t.columnIndex(column);
    if (c < 0 || row >= t.rows.size() || size_t(c) >= t.rows[row].size()) return fallback;
    const auto& cell = t.rows[row][size_t(c)];
    if (const auto* i = std::get_if<int64_t>(&cell)) return double(*i);
    if (const auto* d = std::get_if<double>(&cell)) return *d;
    return fallback;
}

std::string cellText(const core::Table& t, size_t row, const std::string& column) {
    int c = t.columnIndex(column);
    if (c < 0 || row >= t.rows.size() || size_t(c) >= t.rows[row].size()) return {};
    const auto& cell = t.rows[row][size_t(c)];
    if (const auto* s = std::get_if<std::string>(&cell)) return *s;
    if (const auto* i = std::get_if<int64_t>(&cell)) return std::to_string(*i);
    if (const auto* d = std::get_if<double>(&cell)) return fmt::format("{}", *d);
    return {};
}

namespace {

struct BarGeometry {
    QRectF plot;
    double maxValue = 1;
};

BarGeometry barLayout(Canvas& c, const BarChart& chart, bool horizontal) {
    QRectF area = drawTitle(c, c.rect, chart.title, chart.subtitle);
    std::vector<LegendEntry> legend;
    for (size_t s = 0; s < chart.series.size(); ++s) legend.push_back({chart.series[s], chart.colors[s]});
    area = drawLegend(c, area, legend);
    BarGeometry g;
    g.plot = horizontal ? area.adjusted(170, 8, -24, -40) : area.adjusted(96, 8, -16, -28);
    double mx = 0;
    for (const auto& row : chart.values) {
        double s = 0;
        for (double v : row) s = chart.stacked ? s + std::max(0.0, v) : std::max(s, v);
        mx = std::max(mx, s);
    }
    g.maxValue = chart.percentAxis ? 100.0 : (mx > 0 ? mx * 1.05 : 1.0);
    return g;
}

QRectF segmentRect(const BarChart& chart, const BarGeometry& g, bool horizontal, size_t b, size_t s, double acc) {
    double band = (horizontal ? g.plot.height() : g.plot.width()) / double(chart.bars.size());
    double thick = std::min(band * 0.7, 90.0);
    size_t ns = chart.series.size();
    double v = std::max(0.0, chart.values[b][s]);
    double off = band * double(b) + (band - thick) / 2;
    double a0 = acc / g.maxValue, a1 = (acc + v) / g.maxValue;
    if (!chart.stacked) {
        thick /= double(std::max<size_t>(1, ns));
        off += thick * double(s);
        a0 = 0;
        a1 = v / g.maxValue;
    }
    if (horizontal)
        return QRectF(g.plot.left() + a0 * g.plot.width(), g.plot.top() + off, (a1 - a0) * g.plot.width(), thick);
    return QRectF(g.plot.left() + off, g.plot.bottom() - a1 * g.plot.height(), thick, (a1 - a0) * g.plot.height());
}

}  // namespace

void drawBarChart(Canvas& c, const BarChart& chart, bool horizontal) {
    if (chart.bars.empty()) {
        QRectF area = drawTitle(c, c.rect, chart.title, chart.subtitle);
        drawMessage(c, area, chart.messages.empty() ? "nothing to show" : chart.messages.front());
        return;
    }
    BarGeometry g = barLayout(c, chart, horizontal);
    TickFormatter f = chart.percentAxis    ? TickFormatter([](double v) { return formatPercent(v); })
                      : chart.durationAxis ? TickFormatter([](double v) { return formatDuration(v); })
                                           : TickFormatter([](double v) { return formatNumber(v); });
    drawValueAxis(c, g.plot, 0, g.maxValue, !horizontal, f, chart.valueLabel);
    drawBandLabels(c, g.plot, chart.bars, !horizontal, chart.highlightBar);
    Theme t = c.theme();
    for (size_t b = 0; b < chart.bars.size(); ++b) {
        double acc = 0;
        QRectF all;
        for (size_t s = 0; s < chart.series.size(); ++s) {
            QRectF r = segmentRect(chart, g, horizontal, b, s, acc);
            if (chart.stacked) acc += std::max(0.0, chart.values[b][s]);
            if (r.width() <= 0 || r.height() <= 0) continue;
            c.painter.fillRect(r, chart.colors[s]);
            all = all.isNull() ? r : all.united(r);
        }
        if (int(b) == chart.highlightBar && !all.isNull()) {
            c.painter.setPen(QPen(t.highlight, 2.5));
            c.painter.setBrush(Qt::NoBrush);
            c.painter.drawRect(all.adjusted(-2, -2, 2, 2));
        }
    }
}

std::optional<HitInfo> hitBarChart(const BarChart& chart, bool horizontal, const QRectF& rect, QPointF pt) {
    if (chart.bars.empty()) return std::nullopt;
    QImage scratch(1, 1, QImage::Format_ARGB32);
    QPainter painter(&scratch);
    Canvas c{painter, rect, false};
    BarGeometry g = barLayout(c, chart, horizontal);
    for (size_t b = 0; b < chart.bars.size(); ++b) {
        double acc = 0;
        double total = 0;
        for (double v : chart.values[b]) total += std::max(0.0, v);
        for (size_t s = 0; s < chart.series.size(); ++s) {
            QRectF r = segmentRect(chart, g, horizontal, b, s, acc);
            if (chart.stacked) acc += std::max(0.0, chart.values[b][s]);
            if (!r.adjusted(-1, -1, 1, 1).contains(pt)) continue;
            HitInfo h;
            h.title = chart.series[s];
            double v = chart.values[b][s];
            h.fields.push_back({"bar", chart.bars[b]});
            h.fields.push_back({"value", chart.percentAxis    ? formatPercent(v)
                                         : chart.durationAxis ? formatDuration(v)
                                                              : formatNumber(v)});
            if (chart.stacked && !chart.percentAxis && total > 0)
                h.fields.push_back({"share", formatPercent(v / total * 100)});
            h.itemRect = r;
            return h;
        }
    }
    return std::nullopt;
}

}  // namespace strobe::plots
